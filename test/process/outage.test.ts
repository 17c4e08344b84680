/**
 * The database going away and coming back, under a real service process.
 * - PostgreSQL (through a proxy the test cuts): every route answers 503 with `Retry-After` and
 *   `{success: false, error}`, GraphQL answers SERVICE_UNAVAILABLE, a logged-in teacher is not
 *   silently logged out (no 401), the log says "database unavailable" once and "database available
 *   again" once, with no stack; after the return everything works, sessions included.
 * - A start while the database is down waits with logged retries and serves once it is back; when
 *   it does not come back in time, the start ends with one line and exit code 1.
 * - SQLite: a write that cannot get the database (locked by another process past the busy timeout)
 *   answers 503, not 500.
 */
import Database from 'better-sqlite3';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, dropTestDatabase, provider } from '../setup/test-databases.ts';
import { type FakeLab, labUser, startFakeLab } from '../support/fake-lab.ts';
import { configFile, type LogLine, startServer } from '../support/server-process.ts';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.ts';

const TOKEN = 'outage-api-token-0123456789';
let lab: FakeLab;
const proxies: TcpProxy[] = [];
const databases: string[] = [];

beforeAll(async () => {
  lab = await startFakeLab('labOut');
});

afterAll(async () => {
  for (const proxy of proxies) await proxy.close();
  await lab.close();
  for (const url of databases) await dropTestDatabase(url);
});

const config = (overrides: object = {}) =>
  configFile({
    baseId: 'out',
    baseUrl: 'http://out.test/',
    listeMax: 100,
    apiTokens: [TOKEN],
    sessionSecret: 'outage-session-secret-0123456789',
    labs: [lab.config()],
    ...overrides,
  });

const isStack = (line: LogLine) => JSON.stringify(line).includes('    at ');

/** A database of its own behind a proxy of its own. */
async function proxiedDatabase(label: string): Promise<{ url: string; proxy: TcpProxy }> {
  const url = await createTestDatabase(label);
  databases.push(url);
  const proxy = await startTcpProxy(url);
  proxies.push(proxy);
  return { url: proxy.through(url), proxy };
}

/** A service started while its database is cut off. */
async function startWhileDown(label: string, lifecycle: object) {
  const { url, proxy } = await proxiedDatabase(label);
  await proxy.cut();
  return { proxy, server: startServer({ CONFIG_FILE: config({ lifecycle }), DATABASE_URL: url }) };
}

describe.runIf(provider === 'postgresql')('PostgreSQL goes away and comes back (PostgreSQL only)', () => {
  it('answers 503 / SERVICE_UNAVAILABLE on every kind of route, logs it once, and recovers', async () => {
    const { url, proxy } = await proxiedDatabase('outage');
    const server = startServer({ CONFIG_FILE: config(), DATABASE_URL: url });
    const port = await server.serving;
    const base = `http://127.0.0.1:${port}`;
    const teacher = request.agent(base);
    await teacher
      .post('/api/connexion')
      .send({ origine: lab.baseUrl, token: lab.tokenFor(labUser({ type: 1 })) })
      .expect(200);
    const created = await request(base)
      .post('/api/ressource')
      .set('X-ApiToken', TOKEN)
      .send({ titre: 'Avant la panne', type: 'j3p', publie: true });
    expect(created.body).toMatchObject({ success: true });
    const oid = created.body.oid as number;

    const calls = {
      list: () => request(base).get('/api/liste?type=j3p'),
      'public read': () => request(base).get(`/api/public/${oid}`),
      'token write': () =>
        request(base).post('/api/ressource').set('X-ApiToken', TOKEN).send({ titre: 'Pendant', type: 'j3p' }),
      "teacher's own page (session lookup)": () => teacher.get('/api/personne/me'),
      'teacher write': () => teacher.post('/api/ressource').send({ titre: 'Pendant', type: 'j3p' }),
    };

    await proxy.cut();
    const cutAt = Date.now();
    const seen = new Map<string, number[]>();
    // A few rounds over 3 s of outage: every answer of every round is checked.
    while (Date.now() - cutAt < 3000) {
      for (const [name, call] of Object.entries(calls)) {
        const response = await call();
        seen.set(name, [...(seen.get(name) ?? []), response.status]);
        expect(response.status, `${name}: ${JSON.stringify(response.body)}`).toBe(503);
        expect(response.headers['retry-after']).toBe('5');
        expect(response.body).toEqual({ success: false, error: expect.stringMatching(/indisponible/) });
      }
      const graphql = await request(base)
        .post('/graphql')
        .set('X-ApiToken', TOKEN)
        .send({ query: `{ resource(oid: ${oid}) { ... on Resource { titre } } }` });
      seen.set('graphql', [...(seen.get('graphql') ?? []), graphql.status]);
      expect(graphql.status).toBe(503);
      expect(graphql.headers['retry-after']).toBe('5');
      expect(graphql.body.errors[0].extensions).toEqual({ code: 'SERVICE_UNAVAILABLE' });
      await new Promise((done) => setTimeout(done, 200));
    }
    expect((await request(base).get('/readyz')).status).toBe(503);

    await proxy.restore();
    const restoredAt = Date.now();
    let recovered = await request(base).get('/api/liste?type=j3p');
    while (recovered.status !== 200 && Date.now() - restoredAt < 10_000) {
      await new Promise((done) => setTimeout(done, 50));
      recovered = await request(base).get('/api/liste?type=j3p');
    }
    const recoveryMs = Date.now() - restoredAt;
    expect(recovered.status).toBe(200);
    // The teacher's session survived the outage.
    expect((await teacher.get('/api/personne/me')).body).toMatchObject({ success: true });
    expect(
      (await teacher.post('/api/ressource').send({ titre: 'Après la panne', type: 'j3p' })).body,
    ).toMatchObject({ success: true });
    await server.waitForLog((line) => line.msg === 'database available again', 5000);

    const lines = server.logLines();
    expect(lines.filter((line) => line.msg === 'database unavailable')).toHaveLength(1);
    expect(lines.filter((line) => line.msg === 'database available again')).toHaveLength(1);
    expect(lines.filter(isStack)).toEqual([]);
    const statuses = [...seen].map(
      ([name, codes]) => `${name}: ${[...new Set(codes)].join('/')} ×${codes.length}`,
    );
    console.log(
      `outage of 3 s: ${statuses.join(', ')}; recovered ${recoveryMs} ms after the database returned`,
    );
    expect(await server.stop()).toBe(0);
  }, 60_000);

  it('a start while the database is down waits with logged retries and serves once it is back', async () => {
    const { proxy, server } = await startWhileDown('late', { databaseWaitMs: 20_000, databaseRetryMs: 200 });
    await server.waitForLog((line) => line.msg === 'database not reachable yet' && line.attempt === 2);
    await proxy.restore();
    await server.serving;
    expect(server.logLines().find((line) => line.msg === 'database reachable')).toMatchObject({
      attempt: expect.any(Number),
    });
    expect(await server.stop()).toBe(0);
  }, 30_000);

  it('a start whose database stays down gives up with one line and exit code 1', async () => {
    const { server } = await startWhileDown('down', { databaseWaitMs: 1500, databaseRetryMs: 200 });
    expect(await server.exited).toBe(1);
    const { stdout, stderr } = server.output();
    expect(stderr).toBe('');
    const fatal = server.logLines().filter((line) => line.level === 60);
    expect(fatal).toEqual([
      expect.objectContaining({
        msg: expect.stringMatching(/unreachable after \d+ attempts .*ECONNREFUSED.*giving up/),
      }),
    ]);
    expect(stdout).not.toMatch(/ {4}at /);
  }, 30_000);
});

describe.runIf(provider === 'sqlite')('SQLite locked by another process (SQLite only)', () => {
  it('a write that cannot get the database answers 503 with Retry-After, not 500', async () => {
    const url = await createTestDatabase('locked');
    databases.push(url);
    const server = startServer({ CONFIG_FILE: config(), DATABASE_URL: url });
    const base = `http://127.0.0.1:${await server.serving}`;
    const locker = new Database(url.replace(/^file:/, ''));
    try {
      locker.exec('BEGIN EXCLUSIVE');
      const write = await request(base)
        .post('/api/ressource')
        .set('X-ApiToken', TOKEN)
        .send({ titre: 'Bloquée', type: 'j3p' });
      expect(write.status, JSON.stringify(write.body)).toBe(503);
      expect(write.headers['retry-after']).toBe('5');
      expect(write.body).toEqual({ success: false, error: expect.stringMatching(/indisponible/) });
    } finally {
      locker.exec('ROLLBACK');
      locker.close();
    }
    const after = await request(base)
      .post('/api/ressource')
      .set('X-ApiToken', TOKEN)
      .send({ titre: 'Libre', type: 'j3p' });
    expect(after.body).toMatchObject({ success: true });
    expect(server.logLines().filter(isStack)).toEqual([]);
    expect(await server.stop()).toBe(0);
  }, 30_000);
});
