/**
 * Backup and restore of the service's database (`DATABASE_URL`, default file:./data/repository.db),
 * with the native tools of each provider:
 *
 *   npm run backup  -- [file]   PostgreSQL: pg_dump, custom format (default data/backups/<time>.dump)
 *                               SQLite: SQLite's online backup API (default data/backups/<time>.db);
 *                               safe while the service runs: a consistent snapshot
 *   npm run restore -- <file>   PostgreSQL: pg_restore --clean in one transaction (all or nothing)
 *                               SQLite: the backup API again, into the database file
 *                               Stop every instance first; start them again afterwards.
 *
 * Both print a summary of what the database holds (rows per table, a SHA-256 of every resource),
 * read with the bare driver: the summary after a restore must equal the one printed at backup.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import pg from 'pg';
import { DEFAULT_DATABASE_URL, providerOf, redact, sqlitePath } from '../src/db/database-url.ts';

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

function defaultBackupFile(databaseUrl: string): string {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  return resolve('data/backups', `${stamp}.${providerOf(databaseUrl) === 'sqlite' ? 'db' : 'dump'}`);
}

/** Writes a backup of `databaseUrl` to `file`; resolves to the summary of what it holds. */
export async function backup(databaseUrl: string, file: string): Promise<DatabaseSummary> {
  mkdirSync(dirname(resolve(file)), { recursive: true });
  if (providerOf(databaseUrl) === 'sqlite') {
    const source = new Database(sqlitePath(databaseUrl), { readonly: true, fileMustExist: true });
    try {
      await source.backup(file);
    } finally {
      source.close();
    }
    return summarize(`file:${file}`);
  }
  // The dump and the summary read one snapshot, so the summary describes exactly the dump even
  // while the service writes.
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const snapshot = (await client.query('SELECT pg_export_snapshot() AS id')).rows[0].id as string;
    await run('pg_dump', [
      '--format=custom',
      '--no-owner',
      '--no-privileges',
      `--snapshot=${snapshot}`,
      `--file=${file}`,
      `--dbname=${databaseUrl}`,
    ]);
    const summary = await summarizePostgres(client);
    await client.query('COMMIT');
    return summary;
  } finally {
    await client.end();
  }
}

export async function restore(file: string, databaseUrl: string): Promise<void> {
  if (!existsSync(file)) throw new Error(`No backup at ${file}`);
  if (providerOf(databaseUrl) === 'sqlite') {
    const source = new Database(file, { readonly: true, fileMustExist: true });
    try {
      // Refuse a damaged backup before touching the database.
      const check = source.pragma('integrity_check', { simple: true });
      if (check !== 'ok') throw new Error(`${file} is not a sound SQLite database: ${check}`);
      mkdirSync(dirname(resolve(sqlitePath(databaseUrl))), { recursive: true });
      await source.backup(sqlitePath(databaseUrl));
    } finally {
      source.close();
    }
    return;
  }
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
}

async function main(): Promise<void> {
  const [command, file] = process.argv.slice(2);
  const databaseUrl = process.env.DATABASE_URL || DEFAULT_DATABASE_URL;
  if (command === 'backup') {
    const target = file ?? defaultBackupFile(databaseUrl);
    const summary = await backup(databaseUrl, target);
    console.log(JSON.stringify({ backup: target, from: redact(databaseUrl), ...summary }));
    return;
  }
  if (command === 'restore' && file) {
    await restore(file, databaseUrl);
    console.log(
      JSON.stringify({ restored: file, into: redact(databaseUrl), ...(await summarize(databaseUrl)) }),
    );
    return;
  }
  throw new Error('usage: backup.ts backup [file] | restore <file>   (database: DATABASE_URL)');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((error) => {
    const { stderr } = error as { stderr?: string };
    console.error(stderr?.trim() || (error instanceof Error ? error.message : error));
    process.exit(1);
  });
}
