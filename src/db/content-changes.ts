/**
 * The content generation: a number that moves on every change to what readers see (resources,
 * persons, groups and their relations), so that an answer computed under an older generation is
 * never served again (src/gateway/response-cache.ts keys its entries by it).
 *
 * Every instance moves it for its own writes, through the Prisma client (`openDatabase`):
 *   - before a write is sent, so that a read that began earlier cannot be stored as current;
 *   - after it is committed (after the statement, or after the whole `$transaction`), so that a
 *     read that ran while the transaction was open (and saw the old rows) is not current either.
 * Other instances sharing the database learn of a commit through the database itself:
 *   - PostgreSQL: `NOTIFY rrs_content_changed` after each commit, heard by every instance's LISTEN
 *     connection (within milliseconds);
 *   - SQLite: `PRAGMA data_version` polled on a connection of its own, which changes whenever
 *     another connection (another process, or this one's writer) commits.
 * While an instance cannot hear the others (the listening connection is down), `live` is false and
 * nothing may be served from what it computed earlier.
 *
 * `onChange` listeners hear the same events (GraphQL subscriptions re-check what they follow then),
 * so following changes costs the write path nothing beyond the one notification it already sends.
 */
import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import pg from 'pg';
import type { Logger } from '../logging/logger.ts';
import { providerOf, SQLITE_CACHE_KIB, sqlitePath } from './database-url.ts';

/** Rows that no public answer depends on: writing them leaves cached answers valid. */
export const NON_CONTENT_MODELS: ReadonlySet<string> = new Set([
  'Session',
  'RateLimit',
  'OutboxMessage',
  'InboxEvent',
  'PeerListener',
  'ServiceSetting',
  'ApiToken',
  // Written with the change it records, which moves the generation itself; never read by public answers.
  'AuditEntry',
]);

const CHANNEL = 'rrs_content_changed';
/** The `application_name` of each instance's listening connection. */
export const FEED_APPLICATION_NAME = 'rrs-content-changes';
const SQLITE_POLL_MS = 250;
const RECONNECT_MS = 1000;

export interface ContentChangeOptions {
  logger: Logger;
  databaseUrl: string;
}

class ContentChanges {
  /** Moves on every change; never moves back. */
  generation = 0;
  /** Whether changes made by other instances are heard (always true with nothing to hear from). */
  live = true;
  private readonly instance = randomUUID();
  private stopListening: (() => Promise<void>) | undefined;
  private publish: (() => void) | undefined;
  private readonly listeners = new Set<() => void>();

  /**
   * Calls `listener` after each commit this instance makes or hears of (and after the feed comes
   * back, when commits may have been missed); returns the unsubscribe function. Synchronous and
   * frequent (once per statement inside a transaction): listeners should only schedule work.
   */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }

  /** A write is about to be sent: reads that began before it are no longer current. */
  writing(): void {
    this.generation += 1;
  }

  /** A write was committed (or rolled back): current again from here on, and tell the others. */
  committed(): void {
    this.generation += 1;
    this.publish?.();
    this.changed();
  }

  /** Starts hearing the other instances' commits. */
  async listen({ logger, databaseUrl }: ContentChangeOptions): Promise<void> {
    await this.stop();
    const log = logger.child({ component: 'content-changes' });
    this.stopListening =
      providerOf(databaseUrl) === 'sqlite'
        ? this.pollSqlite(databaseUrl, log)
        : await this.listenPostgres(databaseUrl, log);
  }

  async stop(): Promise<void> {
    const stop = this.stopListening;
    this.stopListening = undefined;
    this.publish = undefined;
    this.live = true;
    await stop?.();
  }

  private pollSqlite(databaseUrl: string, log: Logger): () => Promise<void> {
    const connection = new Database(sqlitePath(databaseUrl), { fileMustExist: true });
    connection.pragma(`cache_size = -${SQLITE_CACHE_KIB.others}`);
    const version = connection.prepare('PRAGMA data_version').pluck();
    let last = version.get();
    const timer = setInterval(() => {
      try {
        const now = version.get();
        if (now !== last) {
          last = now;
          this.generation += 1;
          this.changed();
        }
        this.live = true;
      } catch (error) {
        if (this.live) {
          log.warn(
            { error: (error as Error).message },
            'cannot read the database version: response cache paused',
          );
        }
        this.live = false;
      }
    }, SQLITE_POLL_MS);
    timer.unref();
    return async () => {
      clearInterval(timer);
      connection.close();
    };
  }

  private async listenPostgres(databaseUrl: string, log: Logger): Promise<() => Promise<void>> {
    let client: pg.Client | undefined;
    let stopped = false;
    let retry: NodeJS.Timeout | undefined;
    // One notification in flight at most; a commit during it asks for one more.
    let sending = false;
    let again = false;

    const send = async (): Promise<void> => {
      if (!client || !this.live) return;
      if (sending) {
        again = true;
        return;
      }
      sending = true;
      try {
        do {
          again = false;
          await client.query('SELECT pg_notify($1, $2)', [CHANNEL, this.instance]);
        } while (again);
      } catch {
        // The connection is failing: its 'error' handler reconnects, and the others, when they
        // reconnect, start from a new generation anyway.
      } finally {
        sending = false;
      }
    };

    const connect = async (): Promise<void> => {
      // Named, so that operators (and tests) find it in pg_stat_activity whatever it last ran: it
      // also sends this instance's notifications.
      const next = new pg.Client({ connectionString: databaseUrl, application_name: FEED_APPLICATION_NAME });
      const lost = (error?: Error) => {
        if (client !== next || stopped) return;
        client = undefined;
        this.live = false;
        // A database outage is logged (once) by the availability monitor: no stack here.
        log.warn({ error: error?.message }, 'content change feed lost: response cache paused');
        next.end().catch(() => {});
        retry = setTimeout(reconnect, RECONNECT_MS);
      };
      next.on('error', lost);
      next.on('end', () => lost());
      next.on('notification', (message) => {
        if (message.payload === this.instance) return;
        this.generation += 1;
        this.changed();
      });
      await next.connect();
      await next.query(`LISTEN ${CHANNEL}`);
      client = next;
    };

    const reconnect = () => {
      retry = undefined;
      connect().then(
        () => {
          // Commits made while nobody listened are unknown: start from a new generation.
          this.generation += 1;
          this.live = true;
          this.changed();
          log.info('content change feed restored');
        },
        () => {
          if (!stopped) retry = setTimeout(reconnect, RECONNECT_MS);
        },
      );
    };

    await connect();
    this.publish = () => void send();
    return async () => {
      stopped = true;
      clearTimeout(retry);
      const last = client;
      client = undefined;
      await last?.end().catch(() => {});
    };
  }
}

/** One per process, like the database client whose writes move it. */
export const contentChanges = new ContentChanges();
