/**
 * Start-up waits for the database: a PostgreSQL server still starting, or a container started
 * before its database, is a normal morning. Attempts are logged; after `databaseWaitMs` the start
 * gives up with one clear message (the caller exits 1).
 */
import pg from 'pg';
import type { Logger } from '../logging/logger.ts';
import { isDatabaseUnavailable } from './availability.ts';
import { providerOf, redact } from './database-url.ts';

const MAX_PAUSE_MS = 5000;

export class DatabaseUnreachableError extends Error {
  override name = 'DatabaseUnreachableError';
}

/** Resolves once the database accepts a connection; throws DatabaseUnreachableError after the wait. */
export async function waitForDatabase(
  databaseUrl: string,
  settings: { databaseWaitMs: number; databaseRetryMs: number },
  logger: Logger,
): Promise<void> {
  // An SQLite file is opened (and created) by the migrations; there is no server to wait for.
  if (providerOf(databaseUrl) === 'sqlite') return;
  const started = Date.now();
  let pause = settings.databaseRetryMs;
  for (let attempt = 1; ; attempt++) {
    const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: MAX_PAUSE_MS });
    try {
      await client.connect();
      await client.query('SELECT 1');
      if (attempt > 1) logger.info({ attempt, waitedMs: Date.now() - started }, 'database reachable');
      return;
    } catch (error) {
      // Wrong password, unknown database …: waiting will not help.
      if (!isDatabaseUnavailable(error)) {
        throw new DatabaseUnreachableError(
          `Cannot use the database ${redact(databaseUrl)}: ${(error as Error).message}`,
        );
      }
      const waitedMs = Date.now() - started;
      const reason = (error as Error).message;
      if (waitedMs + pause > settings.databaseWaitMs) {
        throw new DatabaseUnreachableError(
          // Asked not to wait (the command-line tool): no count of one attempt in 0 s.
          settings.databaseWaitMs === 0
            ? `Database ${redact(databaseUrl)} unreachable (${reason})`
            : `Database ${redact(databaseUrl)} unreachable after ${attempt} attempts in ${Math.round(waitedMs / 1000)} s (${reason}); giving up`,
        );
      }
      logger.warn({ attempt, retryInMs: pause, error: reason }, 'database not reachable yet');
      await new Promise((done) => setTimeout(done, pause));
      pause = Math.min(pause * 2, MAX_PAUSE_MS);
    } finally {
      await client.end().catch(() => {});
    }
  }
}
