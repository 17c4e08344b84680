/**
 * The root structured logger (pino). Request-scoped children carry the request id. Nothing that
 * grants access is ever written: cookies, `X-ApiToken`, `Authorization`, lab login tokens and read
 * keys (`cle/<key>`) in URLs and referers, and secret-looking keys of objects clients report.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { pino } from 'pino';
import { requestFacts } from './request-facts.ts';

export type Logger = pino.Logger;

const CENSOR = '***';

/** Query parameters whose values are credentials (`connexion?token=…`). */
const SECRET_PARAMETER = /([?&](?:token|apitoken|api_token|access_token|password|secret)=)[^&#]*/gi;
/** A read key opens a private resource to anyone holding it: `cle/<key>`, also URL-encoded. */
const READ_KEY = /(cle(?:\/|%2f))[^/?&#]+/gi;

/** The URL with every credential replaced by `***`. */
export function redactUrl(url: string): string {
  return url.replace(SECRET_PARAMETER, `$1${CENSOR}`).replace(READ_KEY, `$1${CENSOR}`);
}

const SECRET_KEYS = ['token', 'apiToken', 'password', 'secret'];

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'resource-repository' },
      redact: {
        paths: [
          'req.headers.cookie',
          'req.headers["x-apitoken"]',
          'req.headers.authorization',
          'req.headers["proxy-authorization"]',
          'res.headers["set-cookie"]',
          // What clients report through notifyError is logged as posted.
          ...SECRET_KEYS.flatMap((key) => [`report.${key}`, `report.*.${key}`]),
        ],
        censor: CENSOR,
      },
    },
    destination,
  );
}

/**
 * A URL as the request line shows it: the path with read keys redacted, and of the query string
 * only the parameter names (values may be credentials, search terms or personal data).
 */
export function loggedPath(url: string): string {
  const question = url.indexOf('?');
  if (question < 0) return redactUrl(url);
  const names = url
    .slice(question + 1)
    .split('&')
    .filter(Boolean)
    .map((pair) => pair.split('=')[0]);
  return `${redactUrl(url.slice(0, question))}?${names.join('&')}`;
}

/**
 * The fields of the one line logged per request: no headers (they cost hundreds of bytes a line
 * and carry credentials), the operation it ran and the kind of caller, never their credentials
 * (`apiToken: 'refused'` says only that a token was presented and not recognised).
 */
export function requestLine(req: IncomingMessage, res: ServerResponse, durationMs: number) {
  const facts = requestFacts(req);
  return {
    method: req.method,
    path: loggedPath((req as { originalUrl?: string }).originalUrl ?? req.url ?? ''),
    status: res.statusCode,
    durationMs,
    operation: facts.operation,
    caller: facts.caller,
    apiToken: facts.apiToken,
  };
}
