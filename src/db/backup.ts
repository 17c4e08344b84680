/**
 * Backup and restore of the service's database (the configuration's, as for the server), with the
 * native tools of each provider (`rrs backup` and `rrs restore`, src/cli/commands/backup.ts):
 *
 *   backup [file]    PostgreSQL: pg_dump, custom format (default data/backups/<time>.dump)
 *                    SQLite: SQLite's online backup API (default data/backups/<time>.db);
 *                    safe while the service runs: a consistent snapshot
 *   restore <file>   PostgreSQL: pg_restore --clean in one transaction (all or nothing)
 *                    SQLite: the backup API again, into the database file
 *                    Stop every instance first; start them again afterwards.
 *
 * A SQLite backup is one self-contained file (rollback journal mode, nothing beside it). A restore
 * first reads what the file is and refuses, in one line and before writing anything, a file of the
 * wrong kind: empty, text, a plain SQL dump, the other database's backup, a truncated copy.
 *
 * Both print a summary of what the database holds (rows per table, a SHA-256 of every resource),
 * read with the bare driver: the summary after a restore must equal the one printed at backup.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, readSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import pg from 'pg';
import { providerOf, redact, sqlitePath } from './database-url.ts';
import { claimPrivateFile } from './private-files.ts';
import { DatabaseUnreachableError } from './wait.ts';

const run = promisify(execFile);

export interface DatabaseSummary {
  /** Rows per table (Prisma's migration table aside). */
  rows: Record<string, number>;
  /** SHA-256 over every resource row, in oid order, every column. */
  resourcesChecksum: string;
}

/** Rows of `Resource` as canonical JSON, sorted keys: equal content gives an equal checksum. */
function checksumOf(rows: Record<string, unknown>[]): string {
  const hash = createHash('sha256');
  for (const row of rows) {
    const canonical = Object.keys(row)
      .sort()
      .map((key) => [key, row[key] instanceof Date ? (row[key] as Date).toISOString() : row[key]]);
    hash.update(`${JSON.stringify(canonical)}\n`);
  }
  return hash.digest('hex');
}

export async function summarize(databaseUrl: string): Promise<DatabaseSummary> {
  const rows: Record<string, number> = {};
  if (providerOf(databaseUrl) === 'sqlite') {
    const database = new Database(sqlitePath(databaseUrl), { readonly: true, fileMustExist: true });
    try {
      const tables = database
        .prepare(
          "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> '_prisma_migrations' ORDER BY name",
        )
        .all() as { name: string }[];
      for (const { name } of tables) {
        rows[name] = (database.prepare(`SELECT COUNT(*) AS n FROM "${name}"`).get() as { n: number }).n;
      }
      const resources = database.prepare('SELECT * FROM "Resource" ORDER BY oid').all() as Record<
        string,
        unknown
      >[];
      return { rows, resourcesChecksum: checksumOf(resources) };
    } finally {
      database.close();
    }
  }
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return await summarizePostgres(client);
  } finally {
    await client.end();
  }
}

async function summarizePostgres(client: pg.Client): Promise<DatabaseSummary> {
  const rows: Record<string, number> = {};
  const tables = await client.query(
    `SELECT table_name AS name FROM information_schema.tables
       WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' AND table_name <> '_prisma_migrations'
       ORDER BY table_name`,
  );
  for (const { name } of tables.rows as { name: string }[]) {
    rows[name] = Number((await client.query(`SELECT COUNT(*) AS n FROM "${name}"`)).rows[0].n);
  }
  const resources = await client.query('SELECT * FROM "Resource" ORDER BY oid');
  return { rows, resourcesChecksum: checksumOf(resources.rows) };
}

export function defaultBackupFile(databaseUrl: string): string {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  return resolve('data/backups', `${stamp}.${providerOf(databaseUrl) === 'sqlite' ? 'db' : 'dump'}`);
}

/** A backup tool (pg_dump) that failed on a database it could reach: one line for the operator. */
export class BackupFailed extends Error {
  override name = 'BackupFailed';
}

const unusable = (databaseUrl: string, error: unknown) =>
  new DatabaseUnreachableError(
    `Cannot use the database ${redact(databaseUrl)}: ${(error as Error).message.trim().split('\n').at(-1)}`,
  );

/**
 * An existing SQLite database file at `path`, or DatabaseUnreachableError: a file that is no
 * database is refused before a backup of it is written or a restore into it begins.
 */
function checkSqliteDatabase(databaseUrl: string): void {
  let database: Database.Database | undefined;
  try {
    database = new Database(sqlitePath(databaseUrl), { readonly: true, fileMustExist: true });
    // Reads the header: "file is not a database" shows here, not halfway through a copy.
    database.pragma('schema_version');
  } catch (error) {
    throw unusable(databaseUrl, error);
  } finally {
    database?.close();
  }
}

/** A PostgreSQL client connected to `databaseUrl`, or DatabaseUnreachableError. */
async function connected(databaseUrl: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: databaseUrl });
  try {
    await client.connect();
  } catch (error) {
    await client.end().catch(() => {});
    throw unusable(databaseUrl, error);
  }
  return client;
}

/** Writes a backup of `databaseUrl` to `file`; resolves to the summary of what it holds. */
export async function backup(databaseUrl: string, file: string): Promise<DatabaseSummary> {
  if (providerOf(databaseUrl) === 'sqlite') {
    if (!existsSync(sqlitePath(databaseUrl))) {
      throw new DatabaseUnreachableError(`No database at ${sqlitePath(databaseUrl)}: nothing to back up`);
    }
    checkSqliteDatabase(databaseUrl);
    mkdirSync(dirname(resolve(file)), { recursive: true });
    claimPrivateFile(file);
    const source = new Database(sqlitePath(databaseUrl), { readonly: true, fileMustExist: true });
    try {
      await source.backup(file);
    } finally {
      source.close();
    }
    // The copy keeps the source's WAL mode, in which every later opening of it (the summary below,
    // a restore) leaves -wal and -shm files beside it: rollback mode makes it one self-contained file.
    const copy = new Database(file);
    try {
      copy.pragma('journal_mode = DELETE');
    } finally {
      copy.close();
    }
    return summarize(`file:${file}`);
  }
  // The dump and the summary read one snapshot, so the summary describes exactly the dump even
  // while the service writes.
  const client = await connected(databaseUrl);
  try {
    mkdirSync(dirname(resolve(file)), { recursive: true });
    claimPrivateFile(file);
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const snapshot = (await client.query('SELECT pg_export_snapshot() AS id')).rows[0].id as string;
    await run('pg_dump', [
      '--format=custom',
      '--no-owner',
      '--no-privileges',
      `--snapshot=${snapshot}`,
      `--file=${file}`,
      `--dbname=${databaseUrl}`,
    ]).catch((error: { stderr?: string; message: string }) => {
      const said = (error.stderr ?? error.message).trim().split('\n')[0] ?? '';
      throw new BackupFailed(`pg_dump failed: ${said.replace(/^pg_dump: (error: )?/, '')}`);
    });
    const summary = await summarizePostgres(client);
    await client.query('COMMIT');
    return summary;
  } finally {
    await client.end();
  }
}

/** A restore refused before anything was written: one line for the operator. */
export class RestoreRefused extends Error {
  override name = 'RestoreRefused';
}

const EXPECTED = {
  sqlite: 'expected a SQLite database file, as `npm run backup` writes from a SQLite database',
  postgresql:
    'expected a pg_dump custom-format file (.dump), as `npm run backup` writes from a PostgreSQL database',
} as const;

const SQLITE_MAGIC = 'SQLite format 3\0';
const PG_DUMP_MAGIC = 'PGDMP';

/** What the file is, read from its first bytes: enough to refuse the wrong kind before any tool runs. */
function kindOf(file: string): {
  kind: 'empty' | 'sqlite' | 'pg-dump' | 'sql-text' | 'text' | 'other';
  head: Buffer;
  size: number;
} {
  const size = statSync(file).size;
  const head = Buffer.alloc(Math.min(size, 4096));
  const fd = openSync(file, 'r');
  try {
    readSync(fd, head, 0, head.length, 0);
  } finally {
    closeSync(fd);
  }
  if (size === 0) return { kind: 'empty', head, size };
  if (head.subarray(0, 16).toString('latin1') === SQLITE_MAGIC) return { kind: 'sqlite', head, size };
  if (head.subarray(0, 5).toString('latin1') === PG_DUMP_MAGIC) return { kind: 'pg-dump', head, size };
  const text = head.toString('utf8');
  // Text: no NUL byte and no replacement character but where the 4 KiB cut a character in two.
  if (!head.includes(0) && !text.slice(0, -3).includes('\uFFFD')) {
    const sql =
      /^\s*(--|SET |CREATE |INSERT |BEGIN|PRAGMA )/im.test(text) || /PostgreSQL database dump/.test(text);
    return { kind: sql ? 'sql-text' : 'text', head, size };
  }
  return { kind: 'other', head, size };
}

/** Refuses a file of the wrong kind for `provider`, saying what it is and what is expected. */
function refuseWrongKind(file: string, provider: 'sqlite' | 'postgresql'): ReturnType<typeof kindOf> {
  const found = kindOf(file);
  const refuse = (what: string) =>
    new RestoreRefused(
      `Cannot restore ${file}: it ${what}; ${EXPECTED[provider]}. The database was not changed.`,
    );
  const here = provider === 'sqlite' ? 'SQLite' : 'PostgreSQL';
  switch (found.kind) {
    case 'empty':
      throw refuse('is empty');
    case 'text':
      throw refuse('is a text file');
    case 'sql-text':
      throw refuse(
        provider === 'postgresql'
          ? 'is a plain SQL dump (load one with psql)'
          : 'is a plain SQL dump (load one with the sqlite3 shell)',
      );
    case 'other':
      if (provider === 'sqlite') throw refuse('is not a SQLite database (unknown content)');
      return found; // pg_restore also reads tar archives: it judges them.
    case 'pg-dump':
      if (provider === 'sqlite')
        throw refuse(`is a PostgreSQL backup (pg_dump) and this database is ${here}`);
      return found;
    case 'sqlite':
      if (provider === 'postgresql') throw refuse(`is a SQLite database and this database is ${here}`);
      return found;
  }
}

/** A SQLite file shorter than its header says (a copy cut short), before SQLite reads it. */
function sqliteTruncation(head: Buffer, size: number): string | undefined {
  if (head.length < 100) return `is truncated (${size} bytes, not even a SQLite header)`;
  const pageSize = head.readUInt16BE(16) === 1 ? 65536 : head.readUInt16BE(16);
  // The page count at offset 28 holds when the file change counter (offset 24) equals the
  // version-valid-for number (offset 92): a writer that left it stale (SQLite before 3.7.0) did not
  // bump both. Offset 96 is the SQLite version number, never a counter.
  const pages = head.readUInt32BE(24) === head.readUInt32BE(92) ? head.readUInt32BE(28) : 0;
  if (size % pageSize !== 0 || size < pages * pageSize) {
    return `is truncated or damaged (${size} bytes where its header announces ${pages * pageSize})`;
  }
  return undefined;
}

export async function restore(file: string, databaseUrl: string): Promise<void> {
  if (!existsSync(file)) throw new RestoreRefused(`No backup at ${file}. The database was not changed.`);
  const provider = providerOf(databaseUrl);
  const found = refuseWrongKind(file, provider);
  const refuse = (what: string) =>
    new RestoreRefused(
      `Cannot restore ${file}: it ${what}; ${EXPECTED[provider]}. The database was not changed.`,
    );
  if (provider === 'sqlite') {
    const truncated = sqliteTruncation(found.head, found.size);
    if (truncated) throw refuse(truncated);
    const target = sqlitePath(databaseUrl);
    try {
      mkdirSync(dirname(resolve(target)), { recursive: true });
    } catch (error) {
      throw unusable(databaseUrl, error);
    }
    // A file there that is no database would stop the copy halfway: refused before it starts.
    if (existsSync(target)) checkSqliteDatabase(databaseUrl);
    let source: Database.Database;
    try {
      source = new Database(file, { readonly: true, fileMustExist: true });
    } catch (error) {
      throw refuse(`cannot be read as a SQLite database (${(error as Error).message})`);
    }
    try {
      // Refuse a damaged backup before touching the database.
      let check: unknown;
      try {
        check = source.pragma('integrity_check', { simple: true });
      } catch (error) {
        throw refuse(`is a damaged SQLite database (${(error as Error).message})`);
      }
      if (check !== 'ok') throw refuse(`is a damaged SQLite database (${String(check).split('\n')[0]})`);
      await source.backup(target);
    } finally {
      source.close();
    }
    return;
  }
  await (await connected(databaseUrl)).end();
  try {
    await run('pg_restore', [
      '--clean',
      '--if-exists',
      '--no-owner',
      '--no-privileges',
      '--single-transaction',
      '--exit-on-error',
      `--dbname=${databaseUrl}`,
      file,
    ]);
  } catch (error) {
    const stderr = ((error as { stderr?: string }).stderr ?? (error as Error).message).trim();
    const first = stderr.split('\n').find((line) => /error/i.test(line)) ?? stderr.split('\n')[0] ?? '';
    const reason = first.replace(/^pg_restore: (error: )?/, '');
    // One transaction, stopped at the first error: nothing of it stays.
    if (
      /end of file|could not read|unexpected EOF|too short|could not find block|did not find magic|not a valid archive|does not appear to be a valid archive/i.test(
        stderr,
      )
    ) {
      throw refuse(`is a truncated or damaged PostgreSQL backup (pg_restore: ${reason})`);
    }
    throw new RestoreRefused(
      `Cannot restore ${file}: pg_restore failed (${reason}). The database was not changed.`,
    );
  }
}
