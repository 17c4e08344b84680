/**
 * The real process (`src/server.ts`, what `npm start` runs): configuration errors, migrations on a
 * fresh database, serving, graceful shutdown, and two instances starting together.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createEmptyDatabase, dropTestDatabase, provider } from '../setup/test-databases.ts';

const children: ChildProcess[] = [];
const databases: string[] = [];

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  for (const url of databases) await dropTestDatabase(url);
});

function configFile(content: object): string {
  const file = join(mkdtempSync(join(tmpdir(), 'rrs-server-')), 'config.json');
  writeFileSync(file, JSON.stringify(content));
  return file;
}

const validConfig = { baseId: 'proc', baseUrl: 'http://proc.test/', listeMax: 1000 };

/** The parent's environment without the service's own variables (and Vite's `BASE_URL=/`). */
function cleanEnvironment(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const key of [
    'BASE_URL',
    'BASE_ID',
    'API_TOKENS',
    'SESSION_SECRET',
    'DATABASE_URL',
    'CONFIG_FILE',
    'PORT',
  ]) {
    delete env[key];
  }
  return env;
}

function startServer(env: Record<string, string>) {
  const child = spawn('node_modules/.bin/tsx', ['src/server.ts'], {
    env: { ...cleanEnvironment(), PORT: '0', LOG_LEVEL: 'info', NODE_ENV: 'production', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const serving = new Promise<number>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`not serving after 30 s:\n${stdout}\n${stderr}`)),
      30_000,
    );
    child.stdout.on('data', () => {
      const line = stdout.split('\n').find((l) => l.includes('"msg":"serving"'));
      if (line) {
        clearTimeout(timer);
        resolve(JSON.parse(line).port);
      }
    });
    exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before serving:\n${stderr}`));
    });
  });
  serving.catch(() => {});
  return { child, serving, exited, output: () => ({ stdout, stderr }) };
}

async function migrationRows(url: string): Promise<number> {
  if (provider === 'sqlite') {
    const { default: Database } = await import('better-sqlite3');
    const database = new Database(url.replace(/^file:/, ''), { readonly: true });
    try {
      return (database.prepare('SELECT COUNT(*) AS n FROM _prisma_migrations').get() as { n: number }).n;
    } finally {
      database.close();
    }
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return Number((await client.query('SELECT COUNT(*) AS n FROM _prisma_migrations')).rows[0].n);
  } finally {
    await client.end();
  }
}

describe('npm start (src/server.ts)', () => {
  it('refuses to start without listeMax: a clear message and exit code 1', async () => {
    const { listeMax: _, ...incomplete } = validConfig;
    const server = startServer({
      CONFIG_FILE: configFile(incomplete),
      DATABASE_URL: 'file:/nonexistent/never.db',
    });
    expect(await server.exited).toBe(1);
    expect(server.output().stderr).toMatch(/Invalid configuration:\n.*listeMax/);
  });

  it('migrates a fresh database, serves, and stops gracefully on SIGTERM', async () => {
    const url = await createEmptyDatabase('start');
    databases.push(url);
    const server = startServer({ CONFIG_FILE: configFile(validConfig), DATABASE_URL: url });
    const port = await server.serving;
    const health = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(health.status).toBe(200);
    const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
    expect(ready.status).toBe(200);
    const api = await fetch(`http://127.0.0.1:${port}/api/personne/current`);
    expect(await api.json()).toMatchObject({ success: true });
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    expect(server.output().stdout).toMatch(/"msg":"stopped"/);
  });

  it('lets two instances start together on one fresh database: one migrates, both serve', async () => {
    const url = await createEmptyDatabase('race');
    databases.push(url);
    const env = { CONFIG_FILE: configFile(validConfig), DATABASE_URL: url };
    const first = startServer(env);
    const second = startServer(env);
    const ports = await Promise.all([first.serving, second.serving]);
    for (const port of ports) {
      expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);
    }
    const migrations = readdirSync(`prisma/migrations/${provider}`).filter((d) => /^\d/.test(d));
    expect(await migrationRows(url)).toBe(migrations.length);
    first.child.kill('SIGTERM');
    second.child.kill('SIGTERM');
    expect(await Promise.all([first.exited, second.exited])).toEqual([0, 0]);
  });
});
