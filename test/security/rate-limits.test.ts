/**
 * Failed authentications are limited: lab logins, wrong API tokens, pid/name checks. Per client
 * address (generous: a school shares one) and per subject (strict), in counters every instance
 * shares (the database, or Redis when configured). Successes are never counted.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.ts';
import { db } from '../../src/db/client.ts';
import { addPerson, tokenHeaders } from '../support/actors.ts';
import { API_TOKEN, startApp, type TestApp } from '../support/app.ts';
import { type FakeLab, labUser, startFakeLab } from '../support/fake-lab.ts';

let lab: FakeLab;
let app: TestApp;

beforeAll(async () => {
  lab = await startFakeLab('labR');
  // Behind a proxy, as in production: the client address comes from X-Forwarded-For.
  app = await startApp({ labs: [lab.config()], http: { trustProxy: true } });
});

afterAll(async () => {
  await app.close();
  await lab.close();
});

let addressCounter = 0;
/** An address of its own for each test, so that tests never share a counter. */
const newAddress = () => `198.51.100.${++addressCounter}`;

describe('defaults', () => {
  it('are generous per address and strict per subject, over 15 minutes', () => {
    const { rateLimits } = parseConfig({ baseId: 'b', baseUrl: 'http://b.test/', listeMax: 10 });
    expect(rateLimits).toEqual({
      enabled: true,
      windowSeconds: 900,
      failuresPerAddress: 100,
      failuresPerSubject: 10,
    });
  });
});

describe('failed lab logins', () => {
  const login = (address: string, token: string, via = app.client()) =>
    via.post('/api/connexion').set('X-Forwarded-For', address).send({ origine: lab.baseUrl, token });

  it('200 failures from one address: the first 100 reach the lab, then 429 with Retry-After', async () => {
    const address = newAddress();
    const statuses: number[] = [];
    for (let i = 0; i < 200; i++) statuses.push((await login(address, lab.refusingToken())).status);
    expect(statuses.slice(0, 100)).toEqual(Array(100).fill(401));
    expect(statuses.slice(100)).toEqual(Array(100).fill(429));
    const calls = lab.received.length;
    const refused = await login(address, lab.tokenFor(labUser()));
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({
      success: false,
      error: expect.stringMatching(/^Trop de tentatives échouées/),
    });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(800);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(900);
    expect(lab.received.length, 'a limited login never reaches the lab').toBe(calls);
    // Everybody else is unaffected.
    expect((await login(newAddress(), lab.tokenFor(labUser()))).body).toEqual({ success: true });
  });

  it('one credential refused 10 times is limited whatever the address', async () => {
    const token = lab.refusingToken();
    for (let i = 0; i < 10; i++) expect((await login(newAddress(), token)).status).toBe(401);
    expect((await login(newAddress(), token)).status).toBe(429);
  });

  it('successful logins are never counted', async () => {
    const address = newAddress();
    for (let i = 0; i < 120; i++) {
      expect((await login(address, lab.tokenFor(labUser()))).body).toEqual({ success: true });
    }
    expect(await db.rateLimit.count({ where: { key: { contains: address } } })).toBe(0);
  });

  it('logins naming an origin that is not a configured lab count against the address, then 429', async () => {
    // A lower address limit than the default's 100, for the test's time; the mechanism is the same.
    const strict = await startApp({
      labs: [lab.config()],
      http: { trustProxy: true },
      rateLimits: { failuresPerAddress: 20 },
    });
    try {
      const address = newAddress();
      const from = () => strict.client().post('/api/connexion').set('X-Forwarded-For', address);
      const elsewhere = (i: number) =>
        from().send({ origine: `https://pas-un-labo-${i}.example/`, token: `t-${i}-${randomUUID()}` });
      const statuses: number[] = [];
      for (let i = 0; i < 20; i++) statuses.push((await elsewhere(i)).status);
      expect(statuses).toEqual(Array(20).fill(403));
      const calls = lab.received.length;
      const limited = await elsewhere(20);
      expect(limited.status).toBe(429);
      expect(limited.body).toEqual({ success: false, error: expect.stringMatching(/^Trop de tentatives/) });
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(800);
      expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(900);
      // Even a good credential for the configured lab waits, as after refused tokens.
      const genuine = await from().send({ origine: lab.baseUrl, token: lab.tokenFor(labUser()) });
      expect(genuine.status).toBe(429);
      expect(genuine.headers['retry-after']).toMatch(/^\d+$/);
      const query = `mutation { login(origine: "https://autre.example/", token: "t") { __typename } }`;
      const graphql = await strict.client().post('/graphql').set('X-Forwarded-For', address).send({ query });
      expect(graphql.status).toBe(429);
      expect(graphql.headers['retry-after']).toMatch(/^\d+$/);
      expect(graphql.body.errors[0].extensions.code).toBe('RATE_LIMITED');
      expect(lab.received.length, 'a limited login never reaches the lab').toBe(calls);
    } finally {
      await strict.close();
    }
  });

  it('answer 429 with Retry-After through GraphQL too', async () => {
    const token = lab.refusingToken();
    const address = newAddress();
    const query = `mutation { login(origine: "${lab.baseUrl}", token: "${token}") { __typename } }`;
    for (let i = 0; i < 10; i++) {
      await app.client().post('/graphql').set('X-Forwarded-For', address).send({ query });
    }
    const response = await app.client().post('/graphql').set('X-Forwarded-For', address).send({ query });
    expect(response.status).toBe(429);
    expect(response.headers['retry-after']).toMatch(/^\d+$/);
    expect(response.body.errors[0].extensions).toEqual({
      code: 'RATE_LIMITED',
      retryAfterSeconds: expect.any(Number),
    });
  });
});

describe('wrong API tokens', () => {
  const call = (address: string, token: string) =>
    app.client().get('/api/personne/me').set('X-Forwarded-For', address).set('X-ApiToken', token);

  it('200 requests with one wrong token: served as anonymous 10 times, then 429', async () => {
    const address = newAddress();
    const token = `wrong-${randomUUID()}`;
    const statuses: number[] = [];
    for (let i = 0; i < 200; i++) statuses.push((await call(address, token)).status);
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(200));
    expect(statuses.slice(10)).toEqual(Array(190).fill(429));
  });

  it('wrong tokens from one address are limited after 100, while a valid token is still served', async () => {
    const address = newAddress();
    for (let i = 0; i < 100; i++)
      expect((await call(address, `guess-${i}-${randomUUID()}`)).status).toBe(200);
    const limited = await call(address, `guess-${randomUUID()}`);
    expect(limited.status).toBe(429);
    expect(limited.headers['retry-after']).toMatch(/^\d+$/);
    const valid = await call(address, API_TOKEN);
    expect(valid.status).toBe(200);
    expect(valid.body.kind).toBe('token');
  });

  it('the limit applies to GraphQL and to every REST route alike', async () => {
    const address = newAddress();
    const token = `wrong-${randomUUID()}`;
    for (let i = 0; i < 10; i++) await call(address, token);
    const graphql = await app
      .client()
      .post('/graphql')
      .set('X-Forwarded-For', address)
      .set('X-ApiToken', token)
      .send({ query: '{ viewer { kind } }' });
    expect(graphql.status).toBe(429);
    const rest = await app
      .client()
      .get('/api/liste')
      .set('X-Forwarded-For', address)
      .set('X-ApiToken', token);
    expect(rest.status).toBe(429);
    expect(rest.body.success).toBe(false);
  });
});

describe('pid/name checks', () => {
  it('10 wrong names for one pid, then 429 even with the right name', async () => {
    const idOrigine = randomUUID();
    await addPerson(app, { origine: 'ext', idOrigine, nom: 'Vrai', prenom: 'Nom' });
    const check = (nom: string) =>
      app
        .client()
        .get('/api/personne/checkPid')
        .set(tokenHeaders)
        .set('X-Forwarded-For', newAddress())
        .query({ pid: `ext/${idOrigine}`, nom });
    expect((await check('Vrai')).status).toBe(200);
    for (let i = 0; i < 10; i++) expect((await check(`Faux${i}`)).status).toBe(404);
    expect((await check('Vrai')).status).toBe(429);
  });
});

describe('counters shared by instances', () => {
  it('in the database: failures on one instance limit the other', async () => {
    const other = await startApp({ labs: [lab.config()], http: { trustProxy: true } });
    try {
      const token = lab.refusingToken();
      for (let i = 0; i < 10; i++) {
        const instance = i % 2 === 0 ? app : other;
        await instance
          .client()
          .post('/api/connexion')
          .set('X-Forwarded-For', newAddress())
          .send({ origine: lab.baseUrl, token });
      }
      const response = await other
        .client()
        .post('/api/connexion')
        .set('X-Forwarded-For', newAddress())
        .send({ origine: lab.baseUrl, token });
      expect(response.status).toBe(429);
    } finally {
      await other.close();
    }
  });

  it('in Redis when configured: two instances share counters and the database holds none', async () => {
    const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
    const settings = { trustProxy: true };
    const [a, b] = await Promise.all(
      [0, 1].map(() =>
        startApp({ labs: [lab.config()], http: settings, rateLimits: { redisUrl, windowSeconds: 60 } }),
      ),
    );
    const redis = new Redis(redisUrl);
    try {
      const token = `wrong-${randomUUID()}`;
      const rowsBefore = await db.rateLimit.count();
      for (let i = 0; i < 10; i++) {
        const instance = i % 2 === 0 ? a! : b!;
        const response = await instance
          .client()
          .get('/api/personne/me')
          .set('X-Forwarded-For', newAddress())
          .set('X-ApiToken', token);
        expect(response.status).toBe(200);
      }
      const limited = await b!
        .client()
        .get('/api/personne/me')
        .set('X-Forwarded-For', newAddress())
        .set('X-ApiToken', token);
      expect(limited.status).toBe(429);
      expect(await db.rateLimit.count()).toBe(rowsBefore);
      expect((await redis.keys('failures-per-subject:apiToken:subject:*')).length).toBeGreaterThan(0);
    } finally {
      redis.disconnect();
      await Promise.all([a!.close(), b!.close()]);
    }
  });
});
