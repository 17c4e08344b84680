/**
 * The development login: off unless `devLogin` is on, and then saying how to turn it on (404 /
 * DEV_LOGIN_OFF); on, it logs a pid in like a lab login (session, person created with the roles
 * asked for), so groups can be tried without a lab, for callers on loopback only unless
 * `devLoginAllowRemote`; refused in production.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.ts';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { db } from '../../src/db/client.ts';
import { startApp, type TestApp, testConfig } from '../support/app.ts';
import { graphql } from '../support/graphql.ts';
import { serveOnEveryInterface } from '../support/remote-caller.ts';
import { configFile } from '../support/server-process.ts';

let off: TestApp;
let on: TestApp;

beforeAll(async () => {
  off = await startApp();
  on = await startApp({ devLogin: true });
});

afterAll(async () => {
  await off.close();
  await on.close();
});

const unique = () => `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 7)}`;
const DEV_LOGIN = /* GraphQL */ `
  mutation ($pid: String, $roles: [String!]) {
    devLogin(pid: $pid, roles: $roles) {
      __typename
      ... on Error { code message }
      ... on Viewer { kind person { pid roles } }
    }
  }
`;

// The example of the README (First steps), as a newcomer pastes it into GraphiQL.
const README_EXAMPLE = /* GraphQL */ `
  mutation {
    devLogin(pid: "local/paul", roles: ["formateur"]) {
      ... on Viewer { person { pid roles } }
      ... on Error { code message }
    }
  }
`;
const HOW_TO_TURN_ON = /DEV_LOGIN=1.*"devLogin": true/;

describe('development login switched off (the default)', () => {
  it('says it is off and how to turn it on: 404 on REST, DEV_LOGIN_OFF in GraphQL, and creates nobody', async () => {
    const pid = `dev/${unique()}`;
    const response = await off.browser().post('/api/dev/connexion').send({ pid });
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ success: false, error: expect.stringMatching(HOW_TO_TURN_ON) });
    expect(response.body.error).toMatch(/^Connexion de développement désactivée/);
    expect(response.headers['set-cookie']).toBeUndefined();
    const answer = await graphql(off.client(), DEV_LOGIN, { pid });
    expect(answer.data?.devLogin).toEqual({
      __typename: 'DevLoginUnavailableError',
      code: 'DEV_LOGIN_OFF',
      message: response.body.error,
    });
    expect(await db.person.findUnique({ where: { pid } })).toBeNull();
  });

  it('answers the README’s example with the error, not an empty object', async () => {
    const answer = await graphql(off.client(), README_EXAMPLE);
    expect(answer.errors).toBeUndefined();
    expect(answer.data?.devLogin).toEqual({
      code: 'DEV_LOGIN_OFF',
      message: expect.stringMatching(HOW_TO_TURN_ON),
    });
  });
});

describe('development login from another machine', () => {
  const served: Awaited<ReturnType<typeof serveOnEveryInterface>>[] = [];
  let onServed: Awaited<ReturnType<typeof serveOnEveryInterface>>;
  let trusting: TestApp;
  let open: TestApp;

  beforeAll(async () => {
    onServed = await serveOnEveryInterface(on.app);
    served.push(onServed);
    trusting = await startApp({ devLogin: true, http: { trustProxy: true } });
    open = await startApp({ devLogin: true, devLoginAllowRemote: true });
  });

  afterAll(async () => {
    for (const server of served) await server.close();
    await trusting.close();
    await open.close();
  });

  const REMOTE_REFUSAL =
    /^Connexion de développement désactivée pour les appels distants.*DEV_LOGIN_ALLOW_REMOTE=1.*"devLoginAllowRemote": true/;

  it('refuses a caller that is not on loopback (REST 403, GraphQL DEV_LOGIN_REMOTE), saying how to allow it, and creates nobody', async () => {
    const pid = `dev/${unique()}`;
    const response = await onServed
      .remote()
      .post('/api/dev/connexion')
      .send({ pid, roles: ['admin'] });
    expect(response.status, JSON.stringify(response.body)).toBe(403);
    expect(response.body).toEqual({ success: false, error: expect.stringMatching(REMOTE_REFUSAL) });
    expect(response.headers['set-cookie']).toBeUndefined();
    const answer = await graphql(onServed.remote(), DEV_LOGIN, { pid, roles: ['admin'] });
    expect(answer.data?.devLogin).toEqual({
      __typename: 'DevLoginUnavailableError',
      code: 'DEV_LOGIN_REMOTE',
      message: expect.stringMatching(REMOTE_REFUSAL),
    });
    expect(await db.person.findUnique({ where: { pid } })).toBeNull();
  });

  it('accepts callers on loopback, IPv4 (mapped) and IPv6, on the same server', async () => {
    for (const host of ['127.0.0.1', '::1'] as const) {
      const pid = `dev/${unique()}`;
      const response = await onServed.loopback(host).post('/api/dev/connexion').send({ pid });
      expect(response.status, `${host}: ${JSON.stringify(response.body)}`).toBe(200);
    }
  });

  it('accepts a remote caller when devLoginAllowRemote is on', async () => {
    const openServed = await serveOnEveryInterface(open.app);
    served.push(openServed);
    const pid = `dev/${unique()}`;
    const response = await openServed.remote().post('/api/dev/connexion').send({ pid });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body).toMatchObject({ success: true, pid });
  });

  it('refuses a loopback connection that forwards a remote caller (a reverse proxy on this machine), trusted or not', async () => {
    for (const app of [on, trusting]) {
      for (const headers of [
        { 'X-Forwarded-For': '203.0.113.9' },
        { 'X-Forwarded-For': '127.0.0.1, 203.0.113.9' },
        { 'X-Forwarded-For': '203.0.113.9, 127.0.0.1' },
        { Forwarded: 'for="[2001:db8::9]:4711"' },
        { 'X-Real-IP': '203.0.113.9' },
      ]) {
        const response = await app
          .client()
          .post('/api/dev/connexion')
          .set(headers)
          .send({ pid: `dev/${unique()}` });
        expect(response.status, JSON.stringify(headers)).toBe(403);
        expect(response.body.error).toMatch(REMOTE_REFUSAL);
      }
    }
  });

  it('accepts a loopback proxy forwarding a loopback caller', async () => {
    const response = await trusting
      .client()
      .post('/api/dev/connexion')
      .set('X-Forwarded-For', '127.0.0.1, ::1')
      .send({ pid: `dev/${unique()}` });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
  });

  it('never lets a remote caller pass for a local one by what it forwards, even with trust proxy', async () => {
    const trustingServed = await serveOnEveryInterface(trusting.app);
    served.push(trustingServed);
    const response = await trustingServed
      .remote()
      .post('/api/dev/connexion')
      .set('X-Forwarded-For', '127.0.0.1')
      .set('Forwarded', 'for=127.0.0.1')
      .send({ pid: `dev/${unique()}` });
    expect(response.status, JSON.stringify(response.body)).toBe(403);
  });
});

describe('development login in production', () => {
  it('stops the configuration with one line, and createApp refuses it too', async () => {
    const env = {
      NODE_ENV: 'production',
      CONFIG_FILE: configFile({ baseId: 'p', baseUrl: 'http://p.test/', listeMax: 10, devLogin: true }),
    };
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(/^devLogin .*NODE_ENV=production$/);
    expect(() => loadConfig({ ...env, DEV_LOGIN: '0' })).not.toThrow();
    expect(() => loadConfig({ ...env, NODE_ENV: 'development' })).not.toThrow();
    const saved = process.env.NODE_ENV;
    process.env.NODE_ENV = 'production';
    try {
      await expect(createApp(testConfig({ devLogin: true }))).rejects.toThrow(ConfigError);
    } finally {
      process.env.NODE_ENV = saved;
    }
  });
});
