/**
 * Applies pending migrations with the Prisma CLI (`migrate deploy`), serialised so that several
 * instances starting together on one database cannot race: an advisory lock on PostgreSQL, a lock
 * file beside the database on SQLite. Under the lock, an instance first compares the applied
 * migrations with the migration folders and calls the CLI only when something is pending, so
 * instances that start after the first never run migrations beside a serving instance.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, readdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import pg from 'pg';
import lockfile from 'proper-lockfile';
import { prismaPaths, providerOf, sqlitePath } from './database-url.ts';

const run = promisify(execFile);
const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const prismaBin = resolve(projectRoot, 'node_modules/.bin/prisma');
// Arbitrary constant: the key of the advisory lock every instance takes around migrations.
const MIGRATION_LOCK_KEY = 7_370_215_001;
const APPLIED_MIGRATIONS_SQL =
  'SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL';

function migrationNames(provider: 'sqlite' | 'postgresql'): string[] {
  return readdirSync(resolve(projectRoot, prismaPaths[provider].migrations), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name);
}

const isPending = (applied: Set<string>, provider: 'sqlite' | 'postgresql') =>
  migrationNames(provider).some((name) => !applied.has(name));

export async function applyMigrations(databaseUrl: string): Promise<void> {
  if (providerOf(databaseUrl) === 'sqlite') {
    const file = resolve(sqlitePath(databaseUrl));
    mkdirSync(dirname(file), { recursive: true });
    const release = await lockfile.lock(dirname(file), {
      lockfilePath: `${file}.migrate.lock`,
      retries: { retries: 120, minTimeout: 250, maxTimeout: 1000 },
    });
    try {
      const database = new Database(file, { timeout: 15_000 });
      try {
        const hasTable = database
          .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '_prisma_migrations'")
          .get();
        const applied = hasTable
          ? new Set(
              (database.prepare(APPLIED_MIGRATIONS_SQL).all() as { migration_name: string }[]).map(
                (r) => r.migration_name,
              ),
            )
          : new Set<string>();
        if (isPending(applied, 'sqlite')) await deploy(databaseUrl);
        // WAL needs an exclusive lock to switch on: done here, serialised, and only once per file.
        database.pragma('journal_mode = WAL');
      } finally {
        database.close();
      }
    } finally {
      await release();
    }
    return;
  }
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    const table = await client.query("SELECT to_regclass('_prisma_migrations') IS NOT NULL AS present");
    const applied = table.rows[0].present
      ? new Set((await client.query(APPLIED_MIGRATIONS_SQL)).rows.map((r) => r.migration_name as string))
      : new Set<string>();
    if (isPending(applied, 'postgresql')) await deploy(databaseUrl);
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => {});
    await client.end();
  }
}

async function deploy(databaseUrl: string): Promise<void> {
  try {
    await run(prismaBin, ['migrate', 'deploy'], {
      cwd: projectRoot,
      env: { ...process.env, DATABASE_URL: databaseUrl, PRISMA_HIDE_UPDATE_MESSAGE: '1' },
      maxBuffer: 16 * 1024 * 1024,
    });
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    throw new Error(`prisma migrate deploy failed:\n${stderr || stdout}`);
  }
}
