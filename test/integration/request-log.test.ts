/**
 * The request id, the one line per request and the request-scoped logger (src/logging/request-log.ts):
 * what each request costs the logger, and what the lines say.
 */
import { Writable } from 'node:stream';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type App, createApp } from '../../src/app.ts';
import { createLogger, type Logger } from '../../src/logging/logger.ts';
import { API_TOKEN, testConfig } from '../support/app.ts';
import { type FakeLab, startFakeLab } from '../support/fake-lab.ts';

type Line = Record<string, unknown>;

/** An app whose logger writes at `level` into `lines`, with `child` watched, and its lab. */
async function loggedApp(level: string) {
  const lab = await startFakeLab(`labLog${level}`);
  const lines: Line[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  const logger: Logger = createLogger(level, sink);
  const children = vi.spyOn(logger, 'child');
  const instance = await createApp(testConfig({ labs: [lab.config()] }), { logger });
  children.mockClear();
  return { instance, lines, children, lab };
}

describe('request log', () => {
  let silent: Awaited<ReturnType<typeof loggedApp>>;
  let info: Awaited<ReturnType<typeof loggedApp>>;
  let oid: number;

  beforeAll(async () => {
    silent = await loggedApp('silent');
    info = await loggedApp('info');
    const saved = await request(info.instance.app)
      .post('/api/ressource')
      .set('X-ApiToken', API_TOKEN)
      .send({ titre: 'Journal des requêtes', type: 'url', categories: [7], publie: true, restriction: 0 });
    expect(saved.status).toBe(200);
    oid = saved.body.oid;
  });

  afterAll(async () => {
    await Promise.all(
      [silent, info].map(async ({ instance, lab }: { instance: App; lab: FakeLab }) => {
        await instance.close();
        await lab.close();
      }),
    );
  });

  it('makes no logger for a request that logs nothing, at any level', async () => {
    for (const { instance, children } of [silent, info]) {
      children.mockClear();
      const client = () => request(instance.app);
      expect(
        (await client().get(`/api/ressource/${oid}?format=full`).set('X-ApiToken', API_TOKEN)).status,
      ).toBe(200);
      expect((await client().get(`/api/public/${oid}`)).status).toBe(200);
      expect((await client().get('/api/liste?nb=5')).status).toBe(200);
      expect((await client().post('/graphql').send({ query: '{ viewer { kind } }' })).status).toBe(200);
      expect(children).not.toHaveBeenCalled();
    }
  });

  it('writes one line per request with its id, and echoes the id', async () => {
    const client = () => request(info.instance.app);
    const read = await client().get(`/api/public/${oid}?format=full`).set('X-Request-Id', 'read-1');
    expect(read.headers['x-request-id']).toBe('read-1');
    const line = info.lines.filter((l) => l.reqId === 'read-1');
    expect(line).toEqual([
      expect.objectContaining({
        level: 30,
        msg: 'request completed',
        method: 'GET',
        path: `/api/public/${oid}?format`,
        status: 200,
        durationMs: expect.any(Number),
        operation: 'PublicResource',
        caller: 'anonymous',
      }),
    ]);
    // An id a client may not choose (spaces, too long) is replaced by a UUID.
    const odd = await client().get('/api/liste?nb=1').set('X-Request-Id', 'not an id');
    expect(odd.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(info.lines.some((l) => l.reqId === odd.headers['x-request-id'] && l.status === 200)).toBe(true);
    // Probes are not logged.
    const before = info.lines.length;
    expect((await client().get('/healthz')).status).toBe(200);
    expect(info.lines.length).toBe(before);
  });

  it('says that a token was presented and refused, never what it was', async () => {
    const client = () => request(info.instance.app);
    const token = 'rrs_not-a-token-of-this-repository';
    await client().get('/api/personne/me').set('X-ApiToken', token).set('X-Request-Id', 'refused-rest');
    await client()
      .post('/graphql')
      .set('X-ApiToken', token)
      .set('X-Request-Id', 'refused-graphql')
      .send({ query: '{ viewer { kind } }' });
    await client().get('/api/personne/me').set('X-ApiToken', API_TOKEN).set('X-Request-Id', 'accepted');
    await client().get('/api/personne/me').set('X-Request-Id', 'without');
    for (const reqId of ['refused-rest', 'refused-graphql']) {
      const lines = info.lines.filter((l) => l.reqId === reqId);
      expect(lines).toEqual([
        expect.objectContaining({ msg: 'request completed', caller: 'anonymous', apiToken: 'refused' }),
      ]);
      expect(JSON.stringify(lines)).not.toContain('not-a-token');
    }
    const [accepted] = info.lines.filter((l) => l.reqId === 'accepted');
    expect(accepted).toMatchObject({ caller: 'token' });
    expect(accepted).not.toHaveProperty('apiToken');
    const [without] = info.lines.filter((l) => l.reqId === 'without');
    expect(without).toMatchObject({ caller: 'anonymous' });
    expect(without).not.toHaveProperty('apiToken');
  });

  it('gives the lines logged during a request its id', async () => {
    const client = () => request(info.instance.app);
    // A hostile body is refused, and the refusal logged through the request's logger.
    const nested = `{"titre": "T", "parametres": ${'{"a":'.repeat(200)}1${'}'.repeat(200)}}`;
    const refused = await client()
      .post('/api/ressource')
      .set('X-ApiToken', API_TOKEN)
      .set('Content-Type', 'application/json')
      .set('X-Request-Id', 'hostile-1')
      .send(nested);
    expect(refused.status).toBe(400);
    const lines = info.lines.filter((l) => l.reqId === 'hostile-1');
    expect(lines.map((l) => l.msg)).toEqual(['hostile input refused', 'request completed']);
    expect(lines[1]).toMatchObject({ status: 400 });
  });

  it('says when a request failed on the server, without a made-up error', async () => {
    // A lab that answers a login check with nonsense: the login answers 502.
    const failed = await request(info.instance.app)
      .post('/api/connexion')
      .set('X-Request-Id', 'upstream-1')
      .send({ origine: info.lab.baseUrl, token: info.lab.rawToken(200, 'pas du JSON', 'text/plain') });
    expect(failed.status).toBe(502);
    // The lab's answer is logged where it was read (a warning), then the request line.
    const lines = info.lines.filter((l) => l.reqId === 'upstream-1');
    expect(lines.map((l) => l.msg)).toEqual(['unusable answer from lab check-token', 'request errored']);
    const line = lines[1];
    expect(line).toMatchObject({
      level: 50,
      status: 502,
      msg: 'request errored',
      method: 'POST',
      path: '/api/connexion',
      operation: 'Login',
    });
    expect(line).not.toHaveProperty('err');
  });

  it('logs a failed request at error level, so a log kept at warn still shows it', async () => {
    const warn = await loggedApp('warn');
    try {
      const client = () => request(warn.instance.app);
      expect((await client().get('/api/liste?nb=1').set('X-Request-Id', 'fine-1')).status).toBe(200);
      const failed = await client()
        .post('/api/connexion')
        .set('X-Request-Id', 'upstream-2')
        .send({ origine: warn.lab.baseUrl, token: warn.lab.rawToken(200, 'pas du JSON', 'text/plain') });
      expect(failed.status).toBe(502);
      expect(warn.lines.filter((l) => l.reqId === 'fine-1')).toEqual([]);
      expect(warn.lines.filter((l) => l.reqId === 'upstream-2')).toEqual([
        expect.objectContaining({ level: 40, msg: 'unusable answer from lab check-token' }),
        expect.objectContaining({ level: 50, msg: 'request errored', status: 502, path: '/api/connexion' }),
      ]);
    } finally {
      await warn.instance.close();
      await warn.lab.close();
    }
  });
});
