/**
 * Prometheus metrics at /metrics: off unless a bearer token is configured, refused without it,
 * route patterns (never raw paths) as labels, operations and error codes from both transports,
 * outbox and pool gauges read at scrape time, a registry per app, and no statement per request.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { db, onStatement, provider } from '../../src/db/client.ts';
import { tokenHeaders } from '../support/actors.ts';
import { startApp, type TestApp } from '../support/app.ts';
import { graphql } from '../support/graphql.ts';
import { createResource } from '../support/resources.ts';

const METRICS_TOKEN = 'metrics-token-0123456789';
const bearer = { Authorization: `Bearer ${METRICS_TOKEN}` };

let app: TestApp;
let plain: TestApp;

beforeAll(async () => {
  app = await startApp({ metrics: { bearerToken: METRICS_TOKEN }, responseCache: { enabled: false } });
  // A second instance in the same process, with metrics too: each has its own registry.
  plain = await startApp({ responseCache: { enabled: false } });
});

afterAll(async () => {
  await app.close();
  await plain.close();
});

async function scrape(instance: TestApp = app): Promise<string> {
  const response = await instance.client().get('/metrics').set(bearer);
  expect(response.status).toBe(200);
  expect(response.headers['content-type']).toMatch(/^text\/plain/);
  return response.text;
}

/** The value of one sample, e.g. `sample(text, 'errors_total', {code: 'NOT_FOUND'})`. */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (Object.entries(labels).every(([key, value]) => line.includes(`${key}="${value}"`))) {
      return Number(line.slice(line.lastIndexOf(' ') + 1));
    }
  }
  return undefined;
}

describe('access', () => {
  it('is not served when no bearer token is configured', async () => {
    expect((await plain.client().get('/metrics').set(bearer)).status).toBe(404);
  });

  it('refuses a scrape without the bearer token, or with a wrong one', async () => {
    const missing = await app.client().get('/metrics');
    expect(missing.status).toBe(401);
    expect(missing.headers['www-authenticate']).toMatch(/^Bearer/);
    expect(missing.text).not.toContain('http_request_duration_seconds');
    const wrong = await app.client().get('/metrics').set('Authorization', 'Bearer metrics-token-9876543210');
    expect(wrong.status).toBe(401);
    const asApiToken = await app.client().get('/metrics').set(tokenHeaders);
    expect(asApiToken.status).toBe(401);
  });

  it('answers the configured bearer token with the default process metrics', async () => {
    const text = await scrape();
    expect(text).toContain('process_cpu_user_seconds_total');
    expect(text).toContain('nodejs_heap_size_used_bytes');
  });
});

describe('what is measured', () => {
  it('times HTTP requests by route pattern, never by raw path', async () => {
    const oid = await createResource(app, { titre: 'Mesurée' });
    const count = (text: string, labels: Record<string, string>) =>
      sample(text, 'http_request_duration_seconds_count', labels) ?? 0;
    const publicRead = { method: 'GET', route: '/api/public/:oid', status: '200' };
    const unmatched = { route: 'unmatched', status: '404' };
    const before = await scrape();
    for (let i = 0; i < 3; i += 1) expect((await app.client().get(`/api/public/${oid}`)).status).toBe(200);
    expect((await app.client().get('/api/nulle/part/123')).status).toBe(404);
    const text = await scrape();
    expect(count(text, publicRead) - count(before, publicRead)).toBe(3);
    expect(count(text, unmatched) - count(before, unmatched)).toBe(1);
    expect(text).not.toContain(`/api/public/${oid}"`);
    expect(text).not.toContain('/api/nulle');
  });

  it('times GraphQL operations by name and transport, anonymous ones grouped', async () => {
    const oid = await createResource(app, { titre: 'Opérations' });
    const count = (text: string, operation: string, transport: string) =>
      sample(text, 'graphql_operation_duration_seconds_count', { operation, transport }) ?? 0;
    const before = await scrape();
    await app.client().get(`/api/public/${oid}`);
    const query = 'query Titre($oid: Int!) { publicResource(oid: $oid) { __typename } }';
    await graphql(app.client(), query, { oid });
    await graphql(app.client(), '{ __typename }');
    await graphql(app.client(), '{ __typename }');
    const after = await scrape();
    expect(count(after, 'PublicResource', 'rest') - count(before, 'PublicResource', 'rest')).toBe(1);
    expect(count(after, 'Titre', 'graphql') - count(before, 'Titre', 'graphql')).toBe(1);
    expect(count(after, 'anonymous', 'graphql') - count(before, 'anonymous', 'graphql')).toBe(2);
  });

  it('counts errors by code, from both transports, returned or thrown', async () => {
    const before = await scrape();
    const count = (text: string, code: string, transport: string) =>
      sample(text, 'errors_total', { code, transport }) ?? 0;
    // REST: a missing resource (a typed error returned by the field).
    expect((await app.client().get('/api/public/999999')).status).toBe(404);
    // GraphQL: the same, and a document that does not validate.
    await graphql(app.client(), 'query { publicResource(oid: 999999) { __typename } }');
    const invalid = await app.client().post('/graphql').send({ query: '{ nothingHere }' });
    expect(invalid.body.errors).toHaveLength(1);
    // A field the caller may not use: thrown by the scope check.
    await graphql(app.client(), 'query { myGroups { manager } }');
    const after = await scrape();
    expect(count(after, 'NOT_FOUND', 'rest') - count(before, 'NOT_FOUND', 'rest')).toBe(1);
    expect(count(after, 'NOT_FOUND', 'graphql') - count(before, 'NOT_FOUND', 'graphql')).toBe(1);
    expect(count(after, 'INVALID_INPUT', 'graphql') - count(before, 'INVALID_INPUT', 'graphql')).toBe(1);
    expect(count(after, 'UNAUTHENTICATED', 'graphql') - count(before, 'UNAUTHENTICATED', 'graphql')).toBe(1);
  });

  it('reads outbox depth and failures when scraped', async () => {
    const base = { kind: 'externalUpdate', peerBaseId: 'nowhere', payload: {} };
    await db.outboxMessage.createMany({
      data: [
        { ...base, id: randomUUID() },
        { ...base, id: randomUUID() },
        { ...base, id: randomUUID(), status: 'failed' },
      ],
    });
    try {
      const text = await scrape();
      expect(sample(text, 'outbox_messages', { status: 'pending' })).toBe(2);
      expect(sample(text, 'outbox_messages', { status: 'failed' })).toBe(1);
    } finally {
      await db.outboxMessage.deleteMany({ where: { peerBaseId: 'nowhere' } });
    }
  });

  it('reports the PostgreSQL pool (nothing on SQLite, which has none)', async () => {
    // The pool closes connections idle for 10 s: use one, which stays idle in the pool.
    await db.outboxMessage.count();
    const text = await scrape();
    if (provider === 'postgresql') {
      expect(sample(text, 'db_pool_connections', { state: 'total' })).toBeGreaterThan(0);
      expect(sample(text, 'db_pool_connections', { state: 'idle' })).toBeGreaterThanOrEqual(0);
      expect(sample(text, 'db_pool_connections', { state: 'waiting' })).toBe(0);
    } else {
      expect(sample(text, 'db_pool_connections', { state: 'total' })).toBeUndefined();
    }
  });
});

describe('cost', () => {
  it('adds no database statement to a request', async () => {
    const oid = await createResource(app, { titre: 'Coût' });
    const statementsOf = async (instance: TestApp) => {
      let statements = 0;
      const stop = onStatement(() => {
        statements += 1;
      });
      try {
        expect((await instance.client().get(`/api/ressource/${oid}`).set(tokenHeaders)).status).toBe(200);
        await graphql(instance.client(), 'query { publicResource(oid: 999999) { __typename } }');
      } finally {
        stop();
      }
      return statements;
    };
    expect(await statementsOf(app)).toBe(await statementsOf(plain));
  });
});
