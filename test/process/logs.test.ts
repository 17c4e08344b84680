/**
 * What a real service process writes to stdout: JSON lines only (Prisma's messages included, through
 * pino), and one short line per request with method, path without query values, status, duration,
 * request id, GraphQL operation and kind of caller, never headers, tokens or cookies.
 */
import request from 'supertest';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase, dropTestDatabase } from '../setup/test-databases.ts';
import type { TestApp } from '../support/app.ts';
import { type FakeLab, labUser, startFakeLab } from '../support/fake-lab.ts';
import { graphiqlTabs, tabOperation } from '../support/graphiql-tabs.ts';
import { configFile, type LogLine, type ServerProcess, startServer } from '../support/server-process.ts';

const TOKEN = 'logs-api-token-0123456789';
let url: string;
let lab: FakeLab;
let server: ServerProcess;
let base: string;

beforeAll(async () => {
  lab = await startFakeLab('labLogs');
  url = await createTestDatabase('logs');
  server = startServer({
    CONFIG_FILE: configFile({
      baseId: 'logs',
      baseUrl: 'http://logs.test/',
      listeMax: 100,
      apiTokens: [TOKEN],
      labs: [lab.config()],
      sessionSecret: 'logs-session-secret-0123456789',
    }),
    DATABASE_URL: url,
    // Debug: Prisma's messages about failed statements are written too.
    LOG_LEVEL: 'debug',
  });
  base = `http://127.0.0.1:${await server.serving}`;
});

afterAll(async () => {
  await server?.stop();
  await lab.close();
  await dropTestDatabase(url);
});

it('writes only JSON lines, one short line per request with its operation and kind of caller', async () => {
  const client = () => request(base);
  const save = (body: object) =>
    client()
      .post('/api/ressource')
      .set('X-ApiToken', TOKEN)
      .set('X-Request-Id', `save-${JSON.stringify(body).length}`)
      .send({ type: 'url', categories: [7], publie: true, restriction: 0, titre: 'Journal', ...body });
  const first = await save({ origine: 'ext', idOrigine: '1' });
  const second = await save({ origine: 'ext', idOrigine: '2' });
  expect([first.status, second.status]).toEqual([200, 200]);
  // Moving the second onto the first's origin: a unique violation, answered as a conflict.
  const conflict = await save({ oid: second.body.oid, origine: 'ext', idOrigine: '1' });
  expect(conflict.status).toBe(409);

  await client().get(`/api/public/${first.body.oid}?format=full`).set('X-Request-Id', 'public-read');
  const browser = request.agent(base);
  const loginToken = lab.tokenFor(labUser());
  const login = await browser
    .get('/api/connexion')
    .query({ origine: lab.baseUrl, token: loginToken })
    .set('X-Request-Id', 'login');
  expect(login.body).toEqual({ success: true });
  await browser
    .post('/graphql')
    .set('X-Request-Id', 'graphql-session')
    .send({ query: 'query MesGroupes { myGroups { manager } }' });
  await client().post('/graphql').set('X-Request-Id', 'graphql-anonymous').send({ query: '{ __typename }' });
  await server.waitForLog((line) => line.reqId === 'graphql-anonymous' && line.msg === 'request completed');
  expect(await server.stop()).toBe(0);

  const { stdout } = server.output();
  const lines = stdout.split('\n').filter((line) => line.length > 0);
  for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow();
  const parsed = lines.map((line) => JSON.parse(line) as LogLine);
  const requestLine = (id: string) => {
    const found = parsed.filter((line) => line.reqId === id && line.status !== undefined);
    expect(found, id).toHaveLength(1);
    return found[0]!;
  };

  const publicRead = requestLine('public-read');
  expect(publicRead).toMatchObject({
    method: 'GET',
    path: `/api/public/${first.body.oid}?format`,
    status: 200,
    durationMs: expect.any(Number),
    operation: 'PublicResource',
    caller: 'anonymous',
  });
  expect(requestLine('login')).toMatchObject({ path: '/api/connexion?origine&token', caller: 'anonymous' });
  expect(requestLine('graphql-session')).toMatchObject({
    operation: 'MesGroupes',
    caller: 'session',
    path: '/graphql',
  });
  expect(requestLine('graphql-anonymous')).toMatchObject({ operation: 'anonymous', caller: 'anonymous' });
  expect(requestLine(conflict.request.getHeader('X-Request-Id') as string)).toMatchObject({
    status: 409,
    caller: 'token',
    operation: 'SaveResource',
  });

  for (const line of parsed.filter((l) => l.status !== undefined)) {
    expect(line.req, JSON.stringify(line)).toBeUndefined();
    expect(line.res, JSON.stringify(line)).toBeUndefined();
    expect(JSON.stringify(line).length, JSON.stringify(line)).toBeLessThan(400);
  }
  expect(stdout).not.toContain(TOKEN);
  expect(stdout).not.toContain(loginToken);
  // Prisma's message about the failed statement came through pino.
  expect(parsed.some((line) => line.component === 'prisma' && /Unique constraint/i.test(line.msg))).toBe(
    true,
  );
});

it('writes only JSON lines where a newcomer runs it (no NODE_ENV): the session reads of anonymous and token callers included', async () => {
  // `npm start` on a fresh clone: NODE_ENV unset, which development stands for here.
  const newcomer = startServer({
    CONFIG_FILE: configFile({ baseId: 'logsdev', listeMax: 100, apiTokens: [TOKEN] }),
    DATABASE_URL: url,
    NODE_ENV: 'development',
  });
  const address = `http://127.0.0.1:${await newcomer.serving}`;
  const client = () => request(address);
  // GraphiQL's first tab, run as a browser opening it runs it.
  const [firstTab] = await graphiqlTabs({ client } as unknown as TestApp);
  expect(tabOperation(firstTab!)).toBe('CurrentSession');
  const tab = await client()
    .post('/graphql')
    .set('X-Request-Id', 'first-tab')
    .send({ query: firstTab!.query, variables: JSON.parse(firstTab!.variables || '{}') });
  expect(tab.body.errors).toBeUndefined();
  for (const [id, headers] of [
    ['me-anonymous', {}],
    ['me-token', { 'X-ApiToken': TOKEN }],
  ] as const) {
    const me = await client().get('/api/personne/me').set(headers).set('X-Request-Id', id);
    expect(me.body.success, JSON.stringify(me.body)).toBe(true);
  }
  const current = await client().get('/api/personne/current').set('X-Request-Id', 'current');
  expect(current.body.success).toBe(true);
  await newcomer.waitForLog((line) => line.reqId === 'current' && line.msg === 'request completed');
  expect(await newcomer.stop()).toBe(0);

  const { stdout, stderr } = newcomer.output();
  const bare = [...stdout.split('\n'), ...stderr.split('\n')].filter(
    (line) => line.length > 0 && !line.startsWith('{'),
  );
  expect(bare).toEqual([]);
  for (const line of stdout.split('\n').filter(Boolean)) expect(() => JSON.parse(line), line).not.toThrow();
});
