/**
 * Applies pending migrations with the Prisma CLI (`migrate deploy`), serialised so that several
 * instances starting together on one database cannot race: an advisory lock on PostgreSQL, a lock
 * file beside the database on SQLite.
 */
import { execFile } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import pg from 'pg';
import lockfile from 'proper-lockfile';
import { providerOf, sqlitePath } from './database-url.ts';

const run = promisify(execFile);
const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const prismaBin = resolve(projectRoot, 'node_modules/.bin/prisma');
// Arbitrary constant: the key of the advisory lock every instance takes around `migrate deploy`.
const MIGRATION_LOCK_KEY = 7_370_215_001;

export async function applyMigrations(databaseUrl: string): Promise<void> {
  if (providerOf(databaseUrl) === 'sqlite') {
    const file = resolve(sqlitePath(databaseUrl));
    mkdirSync(dirname(file), { recursive: true });
    const release = await lockfile.lock(dirname(file), {
      lockfilePath: `${file}.migrate.lock`,
      retries: { retries: 60, minTimeout: 250, maxTimeout: 1000 },
    });
    try {
      await deploy(databaseUrl);
    } finally {
      await release();
    }
    return;
  }
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    await deploy(databaseUrl);
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
