/**
 * Stopping on SIGTERM / SIGINT without dropping work: stop accepting connections, let the requests
 * in flight finish (their connections close after the answer, idle keep-alive ones at once), and
 * after `graceMs` cut whatever is still open. Then release resources (outbox worker, sessions,
 * database) and exit 0. A second signal changes nothing; a release that hangs ends in exit 1.
 */
import type { Server, ServerResponse } from 'node:http';
import type { Logger } from '../logging/logger.ts';

export interface ShutdownOptions {
  server: Server;
  logger: Logger;
  graceMs: number;
  /** Runs while requests drain (e.g. stop background work that needs no HTTP). */
  beforeDrain?: () => Promise<void>;
  /** Runs once no request is left (close the stores and the database). */
  afterDrain: () => Promise<void>;
  /** Ends the process (tests observe the code instead). */
  exit?: (code: number) => void;
}

/** How long releasing resources may take after the grace period before the process gives up. */
const RELEASE_BOUND_MS = 5000;

export function stopGracefullyOnSignals(options: ShutdownOptions): void {
  const stop = gracefulStop(options);
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

/** The stop a signal starts; a second call changes nothing. */
export function gracefulStop(options: ShutdownOptions): (signal: NodeJS.Signals) => Promise<void> {
  const { server, logger, graceMs } = options;
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const inFlight = new Set<ServerResponse>();
  let stopping = false;
  // Requests in flight at the signal or arriving after it: answered in full, or cut.
  let finished = 0;
  let cut = 0;

  server.on('request', (_req, res: ServerResponse) => {
    // A request that arrives on a kept-alive connection while stopping is served, then its
    // connection is closed.
    if (stopping) res.setHeader('Connection', 'close');
    inFlight.add(res);
    res.once('close', () => {
      inFlight.delete(res);
      if (!stopping) return;
      // A response whose headers went out before the signal (an event stream) kept its connection
      // alive: close it once idle rather than wait for the keep-alive time-out.
      setImmediate(() => server.closeIdleConnections());
      if (res.writableFinished) finished++;
      else cut++;
    });
  });

  return async (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    for (const res of inFlight) if (!res.headersSent) res.setHeader('Connection', 'close');
    // close() shuts the listening socket at once: from here on new connections are refused.
    const drained = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    // Logged once connections are refused, so what a supervisor reads is already true.
    logger.info({ signal, inFlight: inFlight.size, graceMs }, 'shutting down');
    const releaseBound = setTimeout(() => {
      logger.fatal('resources not released in time: exiting');
      exit(1);
    }, graceMs + RELEASE_BOUND_MS);
    releaseBound.unref();
    const graceTimer = setTimeout(() => {
      logger.warn({ requests: inFlight.size }, 'grace period over: cutting the requests still in flight');
      server.closeAllConnections();
    }, graceMs);
    let exitCode = 0;
    try {
      await Promise.all([options.beforeDrain?.(), drained]);
      clearTimeout(graceTimer);
      await options.afterDrain();
    } catch (error) {
      logger.error({ err: error }, 'error while stopping');
      exitCode = 1;
    }
    clearTimeout(releaseBound);
    logger.info({ finished, cut }, 'stopped');
    exit(exitCode);
  };
}
