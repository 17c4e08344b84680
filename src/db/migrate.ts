/**
 * Applies the pending migrations of prisma/migrations/<provider>/, each one atomically: its SQL and
 * the row recording it in `_prisma_migrations` commit in one transaction (PostgreSQL and SQLite
 * both have transactional DDL), so a crash at any point leaves a migration either applied and
 * recorded, or absent. The table keeps Prisma's format (name, SHA-256 checksum of the file, times),
 * so `prisma migrate status`, `diff` and `dev` see the history as their own.
 *
 * Why not `prisma migrate deploy`: with driver adapters (Prisma 6.19) it runs a migration statement
 * by statement, committing each (adapter-pg splits the script on ";"; better-sqlite3 `exec`s it
 * without a transaction), after recording the migration as started. A crash in between left half the
 * tables and a started-but-unfinished row, and every later deploy refused to run (P3009).
 *
 * Such an interrupted migration, left by that runner or by the CLI run by hand, is resumed at the
 * next start: its statements run again in one transaction, those whose effect is already there
 * ("already exists", or "does not exist" for a DROP) are skipped, and its row is completed. When a
 * statement fails for any other reason the transaction rolls back, nothing changes, and the start
 * stops with a message naming the migration.
 *
 * Concurrent starts are serialised without lock files: by a session advisory lock on PostgreSQL,
 * by SQLite's own write lock on SQLite (each migration's transaction is `BEGIN IMMEDIATE`). Both are
 * held by the database for a live connection, so a killed process never leaves a stale lock.
 */
import { createHash, randomUUID } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { postgreSplitterOptions, splitQuery, sqliteSplitterOptions } from 'dbgate-query-splitter';
import pg from 'pg';
import { type Provider, prismaPaths, providerOf, sqlitePath } from './database-url.ts';

const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
// Arbitrary constant: the key of the advisory lock every instance takes around migrations.
export const MIGRATION_LOCK_KEY = 7_370_215_001;
// How long a start waits for another process's migration transaction on SQLite.
const SQLITE_LOCK_WAIT_MS = 120_000;

/** Where progress is reported (pino's logger fits). */
export interface MigrationLog {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
}

const silent: MigrationLog = { info() {}, warn() {} };

export interface Migration {
  name: string;
  sql: string;
  /** Prisma's checksum: SHA-256 of the file, hexadecimal. */
  checksum: string;
}

export class MigrationError extends Error {
  override name = 'MigrationError';
}

export function migrationsOf(
  provider: Provider,
  folder: string = prismaPaths[provider].migrations,
): Migration[] {
  const dir = resolve(projectRoot, folder);
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort()
    .map((name) => {
      const sql = readFileSync(join(dir, name, 'migration.sql'), 'utf8');
      return { name, sql, checksum: createHash('sha256').update(sql).digest('hex') };
    });
}

interface MigrationRow {
  id: string;
  migration_name: string;
  checksum: string;
  finished: boolean;
  rolledBack: boolean;
}

/** What the generic algorithm needs of a database. */
interface MigrationTarget {
  /** The rows of `_prisma_migrations` ([] when the table does not exist yet). */
  rows(): Promise<MigrationRow[]>;
  /** Runs `work` in a transaction that also holds the migration lock; commits when it resolves. */
  transaction<T>(work: () => Promise<T>): Promise<T>;
  exec(script: string): Promise<void>;
  /** Runs one statement of an interrupted migration: false when its effect was already there. */
  replay(statement: string): Promise<boolean>;
  record(migration: Migration, logs: string | null): Promise<void>;
  complete(row: MigrationRow, logs: string): Promise<void>;
  statements(script: string): string[];
}

const now = () => new Date().toISOString();

/**
 * Applies pending migrations to `databaseUrl` and resumes an interrupted one; the history is the
 * provider's own unless `folder` names another (tests of later migrations).
 */
export async function applyMigrations(
  databaseUrl: string,
  log: MigrationLog = silent,
  folder?: string,
): Promise<void> {
  const provider = providerOf(databaseUrl);
  const migrations = migrationsOf(provider, folder);
  if (provider === 'sqlite') {
    const target = await SqliteTarget.open(databaseUrl);
    try {
      await migrate(target, migrations, log);
    } finally {
      await target.close();
    }
    return;
  }
  const target = await PostgresTarget.open(databaseUrl);
  try {
    await target.locked(() => migrate(target, migrations, log), log);
  } finally {
    await target.close();
  }
}

function pendingWork(rows: MigrationRow[], migrations: Migration[]): boolean {
  const live = rows.filter((row) => !row.rolledBack);
  return migrations.some((m) => !live.some((row) => row.migration_name === m.name && row.finished));
}

async function migrate(target: MigrationTarget, migrations: Migration[], log: MigrationLog): Promise<void> {
  const before = await target.rows();
  for (const row of before) {
    if (!row.rolledBack && !migrations.some((m) => m.name === row.migration_name)) {
      log.warn({ migration: row.migration_name }, 'the database has a migration this version does not know');
    }
  }
  if (!pendingWork(before, migrations)) {
    log.info({ migrations: migrations.length }, 'migrations up to date');
    return;
  }
  for (const migration of migrations) {
    const started = Date.now();
    let skipped = 0;
    const outcome = await target.transaction(async (): Promise<'present' | 'applied' | 'resumed'> => {
      // Read again under the lock: another instance may have applied it meanwhile.
      const rows = (await target.rows()).filter(
        (row) => row.migration_name === migration.name && !row.rolledBack,
      );
      const applied = rows.find((row) => row.finished);
      if (applied) {
        if (applied.checksum !== migration.checksum) {
          log.warn({ migration: migration.name }, 'an applied migration was modified since');
        }
        return 'present';
      }
      const interrupted = rows.find((row) => !row.finished);
      if (!interrupted) {
        try {
          await target.exec(migration.sql);
        } catch (error) {
          throw new MigrationError(
            `Migration ${migration.name} failed, nothing of it was applied: ${(error as Error).message}`,
          );
        }
        await target.record(migration, null);
        return 'applied';
      }
      for (const statement of target.statements(migration.sql)) {
        try {
          if (!(await target.replay(statement))) skipped++;
        } catch (error) {
          throw new MigrationError(
            `Migration ${migration.name} was interrupted by an earlier crash and cannot be resumed ` +
              `(${(error as Error).message}); nothing was changed. Restore a backup, or finish it by hand ` +
              `and run: npx prisma migrate resolve --applied ${migration.name}`,
          );
        }
      }
      await target.complete(
        interrupted,
        `resumed after an interruption; ${skipped} statements were already applied`,
      );
      return 'resumed';
    });
    const ms = Date.now() - started;
    if (outcome === 'applied') log.info({ migration: migration.name, ms }, 'migration applied');
    if (outcome === 'resumed') {
      log.warn({ migration: migration.name, alreadyApplied: skipped, ms }, 'interrupted migration resumed');
    }
  }
}

// Errors meaning "this statement's effect is already there" when a migration is replayed.
const ALREADY_CREATED_STATES = new Set(['42P07', '42710', '42701', '42P06', '42723']);
const ALREADY_DROPPED_STATES = new Set(['42P01', '42703', '42704']);
const SQLITE_ALREADY_CREATED = /already exists|duplicate column name/;
const SQLITE_ALREADY_DROPPED = /no such (table|index|column|trigger|view)/;
const isDrop = (statement: string) => /\bDROP\b/i.test(statement.replace(/--.*$/gm, ''));

class PostgresTarget implements MigrationTarget {
  private constructor(private readonly client: pg.Client) {}

  static async open(databaseUrl: string): Promise<PostgresTarget> {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    return new PostgresTarget(client);
  }

  /**
   * Runs `work` holding the migration lock. Waiting for it has no bound (another instance may be
   * running a long migration), so the wait is logged, with the process holding the lock, once
   * at its start and once at its end: a start that seems stuck says why.
   */
  async locked(work: () => Promise<void>, log: MigrationLog): Promise<void> {
    const { rows } = await this.client.query('SELECT pg_try_advisory_lock($1) AS taken', [
      MIGRATION_LOCK_KEY,
    ]);
    if (!rows[0].taken) {
      const since = Date.now();
      log.warn(
        { lockKey: MIGRATION_LOCK_KEY, holderPid: await this.lockHolder() },
        'waiting for another process to finish migrating this database (it holds the migration lock)',
      );
      await this.client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
      log.info({ waitedMs: Date.now() - since }, 'migration lock released by the other process: taken');
    }
    try {
      await work();
    } finally {
      await this.client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => {});
    }
  }

  /** The server process id of the session holding the migration lock, if still held. */
  private async lockHolder(): Promise<number | null> {
    // An advisory lock on a bigint key shows its high and low 32 bits as classid and objid.
    const { rows } = await this.client.query(
      `SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 1
         AND classid::bigint = ($1::bigint >> 32) AND objid::bigint = ($1::bigint & 4294967295)`,
      [MIGRATION_LOCK_KEY],
    );
    return rows[0]?.pid ?? null;
  }

  async rows(): Promise<MigrationRow[]> {
    const table = await this.client.query("SELECT to_regclass('_prisma_migrations') IS NOT NULL AS present");
    if (!table.rows[0].present) return [];
    const result = await this.client.query(
      `SELECT id, migration_name, checksum, finished_at IS NOT NULL AS finished,
              rolled_back_at IS NOT NULL AS "rolledBack"
       FROM _prisma_migrations ORDER BY started_at`,
    );
    return result.rows as MigrationRow[];
  }

  async transaction<T>(work: () => Promise<T>): Promise<T> {
    await this.client.query('BEGIN');
    try {
      // Prisma's own definition of the table, so its CLI reads our rows.
      await this.client.query(`CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
        "id" VARCHAR(36) PRIMARY KEY NOT NULL,
        "checksum" VARCHAR(64) NOT NULL,
        "finished_at" TIMESTAMPTZ,
        "migration_name" VARCHAR(255) NOT NULL,
        "logs" TEXT,
        "rolled_back_at" TIMESTAMPTZ,
        "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
        "applied_steps_count" INTEGER NOT NULL DEFAULT 0
      )`);
      const result = await work();
      await this.client.query('COMMIT');
      return result;
    } catch (error) {
      await this.client.query('ROLLBACK').catch(() => {});
      throw error;
    }
  }

  async exec(script: string): Promise<void> {
    // One simple-protocol query: the whole script, inside the open transaction.
    await this.client.query(script);
  }

  async replay(statement: string): Promise<boolean> {
    await this.client.query('SAVEPOINT replay');
    try {
      await this.client.query(statement);
      await this.client.query('RELEASE SAVEPOINT replay');
      return true;
    } catch (error) {
      const code = (error as { code?: string }).code ?? '';
      const already =
        ALREADY_CREATED_STATES.has(code) || (ALREADY_DROPPED_STATES.has(code) && isDrop(statement));
      if (!already) throw error;
      await this.client.query('ROLLBACK TO SAVEPOINT replay');
      return false;
    }
  }

  async record(migration: Migration, logs: string | null): Promise<void> {
    await this.client.query(
      `INSERT INTO _prisma_migrations (id, checksum, migration_name, logs, started_at, finished_at, applied_steps_count)
       VALUES ($1, $2, $3, $4, now(), clock_timestamp(), 1)`,
      [randomUUID(), migration.checksum, migration.name, logs],
    );
  }

  async complete(row: MigrationRow, logs: string): Promise<void> {
    await this.client.query(
      'UPDATE _prisma_migrations SET finished_at = clock_timestamp(), applied_steps_count = 1, logs = $2 WHERE id = $1',
      [row.id, logs],
    );
  }

  statements(script: string): string[] {
    return splitQuery(script, postgreSplitterOptions) as string[];
  }

  async close(): Promise<void> {
    await this.client.end();
  }
}

/**
 * Runs `attempt` until SQLite stops answering busy (another process holds a lock), waiting
 * asynchronously between tries, at most SQLITE_LOCK_WAIT_MS.
 */
async function whileBusy<T>(attempt: () => T): Promise<T> {
  const deadline = Date.now() + SQLITE_LOCK_WAIT_MS;
  for (;;) {
    try {
      return attempt();
    } catch (error) {
      const code = (error as { code?: string }).code ?? '';
      if (!code.startsWith('SQLITE_BUSY') || Date.now() > deadline) throw error;
      await new Promise((done) => setTimeout(done, 50));
    }
  }
}

class SqliteTarget implements MigrationTarget {
  private constructor(private readonly database: Database.Database) {}

  static async open(databaseUrl: string): Promise<SqliteTarget> {
    const file = resolve(sqlitePath(databaseUrl));
    mkdirSync(dirname(file), { recursive: true });
    // No busy timeout: better-sqlite3 would wait synchronously, deaf to signals. Waits are ours.
    const database = new Database(file, { timeout: 0 });
    // Table redefinitions (CREATE new, copy, DROP old, RENAME) must not cascade deletes, and
    // `PRAGMA foreign_keys` is ignored inside a transaction: turned off for the connection, and
    // the result is checked before each commit instead.
    database.pragma('foreign_keys = OFF');
    // The renaming that ends a redefinition (`new_Resource` to `Resource`) would otherwise check
    // every trigger and fail on those naming the table it replaces (the list tags' triggers on
    // the join tables name Resource); they name it again once renamed.
    database.pragma('legacy_alter_table = ON');
    return new SqliteTarget(database);
  }

  rows(): Promise<MigrationRow[]> {
    // Outside any transaction: another instance may hold the file to itself for a moment.
    return whileBusy(() => this.readRows());
  }

  private readRows(): MigrationRow[] {
    const present = this.database
      .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '_prisma_migrations'")
      .get();
    if (!present) return [];
    const rows = this.database
      .prepare(
        `SELECT id, migration_name, checksum, finished_at IS NOT NULL AS finished,
                rolled_back_at IS NOT NULL AS rolledBack
         FROM _prisma_migrations ORDER BY started_at`,
      )
      .all() as (Omit<MigrationRow, 'finished' | 'rolledBack'> & { finished: number; rolledBack: number })[];
    return rows.map((row) => ({ ...row, finished: row.finished === 1, rolledBack: row.rolledBack === 1 }));
  }

  async transaction<T>(work: () => Promise<T>): Promise<T> {
    await this.beginImmediate();
    try {
      this.database.exec(`CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
        "id" TEXT PRIMARY KEY NOT NULL,
        "checksum" TEXT NOT NULL,
        "finished_at" DATETIME,
        "migration_name" TEXT NOT NULL,
        "logs" TEXT,
        "rolled_back_at" DATETIME,
        "started_at" DATETIME NOT NULL DEFAULT current_timestamp,
        "applied_steps_count" INTEGER UNSIGNED NOT NULL DEFAULT 0
      )`);
      const result = await work();
      const violations = this.database.pragma('foreign_key_check') as unknown[];
      if (violations.length > 0) {
        throw new MigrationError(`foreign keys violated after the migration: ${JSON.stringify(violations)}`);
      }
      // Without WAL (a fresh file), committing waits for the other instances' reads to end.
      await whileBusy(() => this.database.exec('COMMIT'));
      return result;
    } catch (error) {
      if (this.database.inTransaction) this.database.exec('ROLLBACK');
      throw error;
    }
  }

  /** Takes the write lock, waiting (asynchronously) while another process holds it. */
  private async beginImmediate(): Promise<void> {
    await whileBusy(() => this.database.exec('BEGIN IMMEDIATE'));
  }

  async exec(script: string): Promise<void> {
    this.database.exec(script);
  }

  async replay(statement: string): Promise<boolean> {
    try {
      this.database.exec(statement);
      return true;
    } catch (error) {
      const message = (error as Error).message;
      if (SQLITE_ALREADY_CREATED.test(message) || (SQLITE_ALREADY_DROPPED.test(message) && isDrop(statement)))
        return false;
      throw error;
    }
  }

  async record(migration: Migration, logs: string | null): Promise<void> {
    const at = now();
    this.database
      .prepare(
        `INSERT INTO _prisma_migrations (id, checksum, migration_name, logs, started_at, finished_at, applied_steps_count)
         VALUES (?, ?, ?, ?, ?, ?, 1)`,
      )
      .run(randomUUID(), migration.checksum, migration.name, logs, at, at);
  }

  async complete(row: MigrationRow, logs: string): Promise<void> {
    this.database
      .prepare(
        'UPDATE _prisma_migrations SET finished_at = ?, applied_steps_count = 1, logs = ? WHERE id = ?',
      )
      .run(now(), logs, row.id);
  }

  statements(script: string): string[] {
    return splitQuery(script, sqliteSplitterOptions) as string[];
  }

  async close(): Promise<void> {
    // WAL lets readers run beside a writer; switching needs the file to ourselves for a moment, so
    // it is done here, after migrating, and sticks to the file. Another instance starting on the
    // same file may hold a lock just then: wait for it, as for the write lock.
    // Even reading the mode waits while the other holds the file to itself (switching, committing).
    try {
      await whileBusy(() => {
        if (this.database.pragma('journal_mode', { simple: true }) !== 'wal') {
          this.database.pragma('journal_mode = WAL');
        }
      });
    } finally {
      this.database.close();
    }
  }
}
