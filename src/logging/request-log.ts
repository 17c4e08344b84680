/**
 * The request id, a request-scoped logger, and the one line logged per request (`requestLine`).
 *
 * This replaces pino-http. Set up as this service needs it (quiet request and response loggers,
 * its own request line), pino-http still made two child loggers per request, one of them with the
 * whole request serialized and redacted into its bindings, that no line ever used: a large share
 * of the CPU of a short read, even with the logger silent (docs/performance.md). Here a request's child logger is made only when
 * something logs through `req.log`, and the request line is built only when its level is enabled
 * (`error` for a failed request, `info` for the others).
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { LogFn } from 'pino';
import { type Logger, requestLine } from './logger.ts';

declare module 'http' {
  interface IncomingMessage {
    /** The client's `X-Request-Id` when well-formed, a new UUID otherwise (set by `logRequests`). */
    id?: string;
    /** A logger whose lines carry the request id, made on first use. */
    log: Logger;
  }
}

/** What a client may send as its own request id: it is echoed in a header and written in logs. */
const REQUEST_ID = /^[\w.:-]{1,128}$/;
const CHILD = Symbol('requestLogger');

type LoggedRequest = IncomingMessage & { [CHILD]?: Logger };

/**
 * Installs `req.log` on the app's request prototype (`app.request`, Express's documented place for
 * request properties) and returns the middleware that names each request and logs its line once the
 * response is sent or the connection is lost. Paths for which `quiet` is true get no line.
 */
export function logRequests(app: { request: object }, logger: Logger, quiet: (url: string) => boolean) {
  Object.defineProperty(app.request, 'log', {
    configurable: true,
    get(this: LoggedRequest): Logger {
      this[CHILD] ??= logger.child({ reqId: this.id });
      return this[CHILD];
    },
    set(this: LoggedRequest, child: Logger) {
      this[CHILD] = child;
    },
  });

  return function logRequest(req: IncomingMessage, res: ServerResponse, next: () => void) {
    const incoming = req.headers['x-request-id'];
    const id = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    req.id = id;
    res.setHeader('X-Request-Id', id);
    // A failed request's line is at `error`, the others at `info`: nothing to watch when neither is logged.
    if (!logger.isLevelEnabled('error') || quiet(req.url ?? '')) return next();
    const started = Date.now();
    const done = (error?: Error) => {
      res.off('finish', done);
      res.off('close', done);
      res.off('error', done);
      const failed = error !== undefined || res.statusCode >= 500;
      if (!failed && !logger.isLevelEnabled('info')) return;
      const line = { reqId: id, ...requestLine(req, res, Date.now() - started) };
      if (error) logger.error({ ...line, err: error }, 'request errored');
      // The cause of a 5xx is logged where it happened (an outage once, by the availability
      // monitor): the line says only that the request failed.
      else if (failed) logger.error(line, 'request errored');
      else logger.info(line, res.writableEnded ? 'request completed' : 'request aborted');
    };
    res.on('finish', done);
    res.on('close', done);
    // A response that fails before it is finished is logged with its error.
    res.on('error', done);
    next();
  };
}

type Level = 'debug' | 'info' | 'warn' | 'error';

/** What request-scoped code logs through (`context.log`). */
export type RequestLog = Pick<Logger, Level>;

/**
 * The request's logger as the GraphQL context holds it: a line logged through it carries the
 * request id, and the child logger that adds the id is made by the first such line. (A getter on
 * the context itself would not do: the pipeline copies the context's properties into its own,
 * which reads every getter.) Outside Express (no `req.log`), lines go to `root`.
 */
export class RequestLogger implements RequestLog {
  constructor(
    private readonly req: IncomingMessage,
    private readonly root: Logger,
  ) {}

  private at(level: Level): LogFn {
    const logger = (this.req as { log?: Logger }).log ?? this.root;
    return logger[level].bind(logger);
  }

  get debug(): LogFn {
    return this.at('debug');
  }

  get info(): LogFn {
    return this.at('info');
  }

  get warn(): LogFn {
    return this.at('warn');
  }

  get error(): LogFn {
    return this.at('error');
  }
}
