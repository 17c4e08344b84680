/**
 * "The database is unavailable" as a condition of its own: recognised on both providers, answered
 * 503 + Retry-After (REST) or SERVICE_UNAVAILABLE (GraphQL) by the edges, and logged once when it
 * starts and once when it ends rather than as a stack per request.
 */
import { GraphQLError } from 'graphql';
import { messages } from '../errors.ts';
import type { Logger } from '../logging/logger.ts';

/** What clients are told to wait before retrying (`Retry-After`), in seconds. */
export const RETRY_AFTER_SECONDS = 5;

// Prisma's codes for "could not reach / lost / timed out / too many connections".
const PRISMA_CODES = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024', 'P2037']);
// Driver adapter error kinds behind those codes (raw queries report them under P2010).
const ADAPTER_KINDS = new Set([
  'DatabaseNotReachable',
  'ConnectionClosed',
  'SocketTimeout',
  'TooManyConnections',
]);
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);
// PostgreSQL SQLSTATEs: class 08 (connection exception), 57P01-57P03 (server shutting down,
// crashed, starting up), 53300 (too many connections). SQLite: the busy timeout ran out.
const SQL_STATES = /^(08...|57P0[123]|53300|SQLITE_BUSY.*)$/;
// pg reports a connection lost mid-query or a pool that cannot connect with messages only.
const DRIVER_MESSAGES =
  /Connection terminated|connection error and is not queryable|timeout exceeded when trying to connect|Can't reach database server|Server has closed the connection/;

type ErrorLike = {
  code?: unknown;
  kind?: unknown;
  originalCode?: unknown;
  message?: unknown;
  cause?: unknown;
  originalError?: unknown;
  meta?: { driverAdapterError?: { cause?: unknown } };
};

/** True when `error` (or what caused it) says the database cannot be reached right now. */
export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (typeof error !== 'object' || error === null || depth > 5) return false;
  const e = error as ErrorLike;
  if (typeof e.code === 'string' && (PRISMA_CODES.has(e.code) || SOCKET_CODES.has(e.code))) return true;
  if (typeof e.code === 'string' && SQL_STATES.test(e.code)) return true;
  if (typeof e.originalCode === 'string' && SQL_STATES.test(e.originalCode)) return true;
  if (typeof e.kind === 'string' && ADAPTER_KINDS.has(e.kind)) return true;
  if (typeof e.message === 'string' && DRIVER_MESSAGES.test(e.message)) return true;
  return [e.meta?.driverAdapterError?.cause, e.originalError, e.cause].some((inner) =>
    isDatabaseUnavailable(inner, depth + 1),
  );
}

/** A short description for the log line (no stack, no SQL). */
function describe(error: unknown): string {
  const e = error as ErrorLike;
  const cause = e?.meta?.driverAdapterError?.cause as ErrorLike | undefined;
  const detail = cause?.kind ?? e?.code;
  const message = typeof e?.message === 'string' ? e.message.trim().split('\n').at(-1) : String(error);
  return detail ? `${String(detail)}: ${message}` : (message ?? String(error));
}

/** The GraphQL error clients see, in place of the masked "Unexpected error." */
export function serviceUnavailableError(at?: GraphQLError): GraphQLError {
  return new GraphQLError(messages.serviceUnavailable, {
    nodes: at?.nodes,
    path: at?.path,
    extensions: {
      code: 'SERVICE_UNAVAILABLE',
      // Yoga turns this into the status and headers of /graphql answers, and strips it from the body.
      http: { status: 503, headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) } },
    },
  });
}

/**
 * Tracks whether the database is reachable. `report()` is called by whoever met the error; the
 * first report logs "database unavailable" and starts probing (`SELECT 1`) until it answers, which
 * logs "database available again". Reports while down are silent.
 */
export class DatabaseAvailability {
  private downSince: number | null = null;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly logger: Logger,
    private readonly probe: () => Promise<unknown>,
    private readonly probeIntervalMs = 1000,
  ) {}

  get isDown(): boolean {
    return this.downSince !== null;
  }

  /** Records `error` when it is a database outage; returns whether it was one. */
  report(error: unknown): boolean {
    if (!isDatabaseUnavailable(error)) return false;
    if (this.downSince === null && !this.stopped) {
      this.downSince = Date.now();
      this.logger.warn({ error: describe(error) }, 'database unavailable');
      this.scheduleProbe();
    }
    return true;
  }

  private scheduleProbe(): void {
    this.timer = setTimeout(async () => {
      try {
        await this.probe();
      } catch {
        if (!this.stopped) this.scheduleProbe();
        return;
      }
      const downtimeMs = Date.now() - (this.downSince ?? Date.now());
      this.downSince = null;
      this.logger.info({ downtimeMs }, 'database available again');
    }, this.probeIntervalMs);
    // Probing alone must not keep a stopping process alive.
    this.timer.unref();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }
}
