/**
 * The development login: absent (404 / NOT_FOUND) unless `devLogin` is on; on, it logs a pid in
 * like a lab login (session, person created with the roles asked for), so groups can be tried
 * without a lab; refused in production.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.ts';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { db } from '../../src/db/client.ts';
import { startApp, type TestApp, testConfig } from '../support/app.ts';
import { errorCode, graphql } from '../support/graphql.ts';
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

describe('development login switched off (the default)', () => {
  it('is a 404 on REST and NOT_FOUND in GraphQL, and creates nobody', async () => {
    const pid = `dev/${unique()}`;
    const response = await off.browser().post('/api/dev/connexion').send({ pid });
    expect(response.status).toBe(404);
    expect(response.body).toMatchObject({ success: false });
    expect(response.headers['set-cookie']).toBeUndefined();
    expect(errorCode(await graphql(off.client(), DEV_LOGIN, { pid }), 'devLogin')).toBe('NOT_FOUND');
    expect(await db.person.findUnique({ where: { pid } })).toBeNull();
  });
});

describe('development login switched on', () => {
  it('logs a new pid in with roles, and the session can create a group', async () => {
    const pid = `dev/${unique()}`;
    const browser = on.browser();
    const response = await browser.post('/api/dev/connexion').send({ pid, roles: ['formateur'] });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body).toMatchObject({ success: true, pid, roles: ['formateur'] });
    expect(response.body.permissions).toContain('createGroupe');
    const me = await browser.get('/api/personne/me');
    expect(me.body).toMatchObject({ success: true, kind: 'person', person: { pid } });
    const group = await browser.post('/api/groupe').send({ nom: `Dev ${unique()}` });
    expect(group.status, JSON.stringify(group.body)).toBe(200);
    const person = await db.person.findUniqueOrThrow({ where: { pid }, include: { roles: true } });
    expect(person.roles.map((role) => [role.role, role.source])).toEqual([['formateur', 'admin']]);
  });

  it('keeps an existing person’s names and roles when only the pid is given (GraphQL)', async () => {
    const pid = `dev/${unique()}`;
    await on
      .browser()
      .post('/api/dev/connexion')
      .send({ pid, nom: 'Curie', prenom: 'Marie', roles: ['admin'] });
    const browser = on.browser();
    const answer = await graphql(browser, DEV_LOGIN, { pid });
    expect(answer.data?.devLogin).toEqual({
      __typename: 'Viewer',
      kind: 'person',
      person: { pid, roles: ['admin'] },
    });
    expect(await db.person.findUniqueOrThrow({ where: { pid } })).toMatchObject({
      nom: 'Curie',
      prenom: 'Marie',
    });
  });

  it('refuses a malformed pid or an unknown role, and changes nothing', async () => {
    const bad = await on.browser().post('/api/dev/connexion').send({ pid: 'no-slash' });
    expect(bad.status).toBe(400);
    const pid = `dev/${unique()}`;
    const unknownRole = await on
      .browser()
      .post('/api/dev/connexion')
      .send({ pid, roles: ['pape'] });
    expect(unknownRole.status).toBe(400);
    expect(await db.person.findUnique({ where: { pid } })).toBeNull();
  });

  it('is refused from another site, like any login', async () => {
    const response = await on
      .browser()
      .post('/api/dev/connexion')
      .set('Origin', 'https://evil.example')
      .send({ pid: `dev/${unique()}` });
    expect(response.status).toBe(403);
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
