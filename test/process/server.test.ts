/**
 * The real process (`src/server.ts`, what `npm start` runs): configuration errors, migrations on a
 * fresh database, serving, graceful shutdown, and two instances starting together.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { type AddressInfo, createServer as createNetServer } from 'node:net';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createEmptyDatabase, dropTestDatabase, provider } from '../setup/test-databases.ts';
import { configFile, killServers, startServer } from '../support/server-process.ts';

const databases: string[] = [];

afterAll(async () => {
  await killServers();
  for (const url of databases) await dropTestDatabase(url);
});

const validConfig = { baseId: 'proc', baseUrl: 'http://proc.test/', listeMax: 1000 };

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

  it('names an environment variable given a wrong value, as it was typed, and what it expects', async () => {
    const server = startServer({
      CONFIG_FILE: configFile(validConfig),
      DATABASE_URL: 'file:/nonexistent/never.db',
      PORT: 'abc',
      METRICS_TOKEN: 'short-secret',
    });
    expect(await server.exited).toBe(1);
    const { stderr } = server.output();
    expect(stderr).toMatch(/^ {2}- PORT=abc: expected a port number 0-65535/m);
    expect(stderr).toMatch(
      /^ {2}- METRICS_TOKEN=\*\*\* \(12 characters\): expected a bearer token of at least 16 characters/m,
    );
    expect(stderr).not.toContain('short-secret');
    expect(stderr).not.toContain('metrics.bearerToken');
  });

  it('says which port is taken and how to choose another, in one line without a stack, exit code 1', async () => {
    const url = await createEmptyDatabase('busy');
    databases.push(url);
    const taken = createNetServer();
    await new Promise<void>((done) => taken.listen(0, '127.0.0.1', done));
    const { port } = taken.address() as AddressInfo;
    try {
      const server = startServer({
        CONFIG_FILE: configFile(validConfig),
        DATABASE_URL: url,
        PORT: String(port),
      });
      expect(await server.exited).toBe(1);
      const fatal = server.logLines().filter((line) => line.level === 60);
      expect(fatal).toHaveLength(1);
      expect(fatal[0]!.msg).toContain(`port ${port} on 127.0.0.1 is already in use`);
      expect(fatal[0]!.msg).toContain('PORT');
      expect(JSON.stringify(fatal[0])).not.toMatch(/\n\s+at /);
    } finally {
      await new Promise((done) => taken.close(done));
    }
  });

  it('warns when the port it serves on is not the one its own links (baseUrl) name', async () => {
    const url = await createEmptyDatabase('links');
    databases.push(url);
    const server = startServer({
      CONFIG_FILE: configFile({ ...validConfig, baseUrl: 'http://localhost:3000/' }),
      DATABASE_URL: url,
    });
    const port = await server.serving;
    // Logged right after the serving line: it may come in a later chunk of the output.
    const warning = await server.waitForLog((line) => line.level === 40 && /baseUrl/.test(String(line.msg)));
    expect(warning?.msg).toContain(`listens on port ${port}`);
    expect(warning?.msg).toContain('BASE_URL');
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
  });

  it('names the port it serves on in its own links when PORT is set and baseUrl is not (the shipped configuration file)', async () => {
    const url = await createEmptyDatabase('port');
    databases.push(url);
    const token = 'port-api-token-0123456789';
    // PORT=0: any free port, known only once listening (startServer also sets HOST=127.0.0.1).
    const server = startServer({ CONFIG_FILE: 'config/default.json', DATABASE_URL: url, API_TOKENS: token });
    const port = await server.serving;
    const base = `http://127.0.0.1:${port}/`;
    const home = await (await fetch(base)).json();
    expect(home.baseUrl).toBe(base);
    const identify = await (await fetch(`${base}oai?verb=Identify`)).text();
    expect(identify).toContain(`<baseURL>${base}oai</baseURL>`);
    const save = (body: object) =>
      fetch(`${base}api/ressource`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'X-ApiToken': token },
        body: JSON.stringify({ categories: [7], publie: true, restriction: 0, ...body }),
      }).then((response) => response.json());
    const leaf = await save({ titre: 'Feuille', type: 'url' });
    const tree = await save({
      titre: 'Arbre',
      type: 'arbre',
      enfants: [{ titre: 'Feuille', type: 'url', aliasOf: `local/${leaf.oid}` }],
    });
    expect(tree.success, JSON.stringify(tree)).toBe(true);
    const [root] = await (await fetch(`${base}api/jstree?ref=${tree.oid}`)).json();
    expect(root.a_attr.href).toBe(`${base}api/public/${tree.oid}`);
    expect(root.children[0].a_attr.href).toBe(`${base}api/public/${leaf.oid}`);
    // Its links agree with where it serves: nothing to warn about.
    expect(server.logLines().filter((line) => line.level === 40)).toEqual([]);
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
  });

  it('migrates a fresh database, serves, and stops gracefully on SIGTERM', async () => {
    const url = await createEmptyDatabase('start');
    databases.push(url);
    const server = startServer({ CONFIG_FILE: configFile(validConfig), DATABASE_URL: url });
    const port = await server.serving;
    // The line that says it serves gives the address to open, which answers.
    const serving = server.logLines().find((line) => line.msg === 'serving');
    expect(serving?.url).toMatch(new RegExp(`^http://(localhost|127\\.0\\.0\\.1):${port}/$`));
    expect((await fetch(serving!.url as string)).status).toBe(200);
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

describe('the start command (package.json "start")', () => {
  const start = JSON.parse(readFileSync('package.json', 'utf8')).scripts.start as string;
  /** The environment the service process runs with: the script execs it, so it keeps the pid. */
  const environmentOf = (pid: number) =>
    Object.fromEntries(
      readFileSync(`/proc/${pid}/environ`, 'utf8')
        .split('\0')
        .filter(Boolean)
        .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
    );

  it("runs the service with glibc's malloc held to one arena, big blocks given back, and a small young generation (less memory)", async () => {
    const url = await createEmptyDatabase('malloc');
    databases.push(url);
    const env = { CONFIG_FILE: configFile(validConfig), DATABASE_URL: url };
    const server = startServer(env, { command: ['sh', '-c', start] });
    await server.serving;
    expect(environmentOf(server.child.pid!)).toMatchObject({
      MALLOC_ARENA_MAX: '1',
      MALLOC_MMAP_THRESHOLD_: '65536',
    });
    // V8's young generation held small: Node 22's and 24's default ones kept far more garbage at
    // rest and under load than Node 20's (measured in docs/performance.md).
    const commandLine = readFileSync(`/proc/${server.child.pid}/cmdline`, 'utf8').split('\0');
    expect(commandLine).toContain('--max-semi-space-size=4');
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);

    // An operator's own settings win.
    const tuned = startServer({ ...env, MALLOC_ARENA_MAX: '4' }, { command: ['sh', '-c', start] });
    await tuned.serving;
    expect(environmentOf(tuned.child.pid!)).toMatchObject({ MALLOC_ARENA_MAX: '4' });
    tuned.child.kill('SIGTERM');
    expect(await tuned.exited).toBe(0);
  });
});
