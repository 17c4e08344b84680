/**
 * Test databases. Each run migrates one template database per provider (global set-up); each test
 * file then gets its own copy (SQLite: a file copy; PostgreSQL: CREATE DATABASE … TEMPLATE), so
 * files never see each other's data and can run in parallel, in any order.
 */
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import pg from 'pg';
import type { Provider } from '../../src/db/database-url.ts';

export const provider = (process.env.TEST_DATABASE ?? 'sqlite') as Provider;
export const postgresServerUrl = process.env.TEST_POSTGRES_URL ?? 'postgresql://postgres@127.0.0.1:5432/test';
// One run's files and template database, named by the run (vitest.config.ts sets TEST_RUN_ID).
const runId = process.env.TEST_RUN_ID ?? 'default';
const sqliteDir = resolve('data/test', runId);
const POSTGRES_TEMPLATE = `rrs_test_template_${runId}`;

function postgresUrl(database: string): string {
  const url = new URL(postgresServerUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

async function withPostgres<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: postgresServerUrl });
  try {
    await client.connect();
  } catch (error) {
    throw new Error(
      `PostgreSQL is not reachable at ${postgresServerUrl} (${(error as Error).message}). Start it, or set TEST_POSTGRES_URL.`,
    );
  }
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** A new, empty database URL for the template (the caller migrates it). */
export async function freshTemplateUrl(): Promise<string> {
  if (provider === 'sqlite') {
    rmSync(sqliteDir, { recursive: true, force: true });
    mkdirSync(sqliteDir, { recursive: true });
    return `file:${join(sqliteDir, 'template.db')}`;
  }
  await withPostgres(async (client) => {
    await client.query(`DROP DATABASE IF EXISTS ${POSTGRES_TEMPLATE} WITH (FORCE)`);
    await client.query(`CREATE DATABASE ${POSTGRES_TEMPLATE}`);
  });
  return postgresUrl(POSTGRES_TEMPLATE);
}

/** Removes this run's template (the per-file databases are dropped by their files). */
export async function dropTemplate(): Promise<void> {
  if (provider === 'sqlite') {
    rmSync(sqliteDir, { recursive: true, force: true });
    return;
  }
  await withPostgres((client) => client.query(`DROP DATABASE IF EXISTS ${POSTGRES_TEMPLATE} WITH (FORCE)`));
}

/** A database of its own for one test file, migrated (a copy of the template). */
export async function createTestDatabase(label: string): Promise<string> {
  const name = `rrs_test_${label}_${process.pid}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 6)}`;
  if (provider === 'sqlite') {
    const file = join(sqliteDir, `${name}.db`);
    copyFileSync(join(sqliteDir, 'template.db'), file);
    return `file:${file}`;
  }
  await withPostgres(async (client) => {
    // Two copies of one template cannot start at the same instant; retry the rare collision.
    for (let attempt = 0; ; attempt++) {
      try {
        await client.query(`CREATE DATABASE ${name} TEMPLATE ${POSTGRES_TEMPLATE}`);
        return;
      } catch (error) {
        if (attempt >= 20 || !/being accessed by other users/.test((error as Error).message)) throw error;
        await new Promise((done) => setTimeout(done, 100 + Math.random() * 200));
      }
    }
  });
  return postgresUrl(name);
}

/** An empty, unmigrated database (for tests of migration itself). */
export async function createEmptyDatabase(label: string): Promise<string> {
  const name = `rrs_test_${label}_${process.pid}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 6)}`;
  if (provider === 'sqlite') return `file:${join(sqliteDir, name, 'repository.db')}`;
  await withPostgres((client) => client.query(`CREATE DATABASE ${name}`));
  return postgresUrl(name);
}

export async function dropTestDatabase(url: string): Promise<void> {
  if (provider === 'sqlite') {
    const file = url.replace(/^file:/, '');
    for (const suffix of ['', '-wal', '-shm', '.migrate.lock'])
      rmSync(`${file}${suffix}`, { force: true, recursive: true });
    return;
  }
  const name = new URL(url).pathname.slice(1);
  await withPostgres((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
}
