/**
 * The development login: off unless `devLogin` is on, and then saying how to turn it on (404 /
 * DEV_LOGIN_OFF); on, it logs a pid in like a lab login (session, person created with the roles
 * asked for), so groups can be tried without a lab, for callers on loopback only unless
 * `devLoginAllowRemote`; its roles are its own and grant nothing once it is off; refused in production.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.ts';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { db } from '../../src/db/client.ts';
import { exportLines } from '../../src/transfer/export.service.ts';
import { addPerson } from '../support/actors.ts';
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

describe('roles of the development login', () => {
  const me = (app: TestApp, cookie: string) => app.client().get('/api/personne/me').set('Cookie', cookie);

  it('are stored as its own, and grant nothing once it is off (another instance, same session), until it is on again', async () => {
    const pid = `dev/${unique()}`;
    const response = await on
      .client()
      .post('/api/dev/connexion')
      .send({ pid, roles: ['admin'] });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body.permissions).toContain('allRights');
    const cookie = String(response.headers['set-cookie']).split(';')[0]!;
    const person = await db.person.findUniqueOrThrow({ where: { pid }, include: { roles: true } });
    expect(person.roles.map((role) => [role.role, role.source])).toEqual([['admin', 'devLogin']]);

    const whileOff = await me(off, cookie);
    expect(whileOff.body).toMatchObject({ success: true, kind: 'person', allRights: false, permissions: [] });
    expect(whileOff.body.person).toMatchObject({ pid, roles: [] });
    const viewer = await graphql(
      off.client(),
      '{ viewer { allRights permissions person { pid roles } } }',
      {},
      { Cookie: cookie },
    );
    expect(viewer.data?.viewer).toEqual({ allRights: false, permissions: [], person: { pid, roles: [] } });
    // An administrator's read is refused to it.
    const audit = await graphql(off.client(), '{ auditLog { nextCursor } }', {}, { Cookie: cookie });
    expect(audit.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect(
      (await graphql(on.client(), '{ auditLog { nextCursor } }', {}, { Cookie: cookie })).errors,
    ).toBeUndefined();

    expect((await me(on, cookie)).body).toMatchObject({ allRights: true, person: { roles: ['admin'] } });
  });

  it('leave roles granted by an administrator or a lab alone, and yield to an administrator’s grant', async () => {
    const idOrigine = unique();
    const pid = `dev/${idOrigine}`;
    await addPerson(on, { origine: 'dev', idOrigine, nom: 'Curie', prenom: 'Marie', roles: ['formateur'] });
    const logged = await on
      .client()
      .post('/api/dev/connexion')
      .send({ pid, roles: ['admin', 'editeur'] });
    expect(logged.status, JSON.stringify(logged.body)).toBe(200);
    const sources = async () =>
      (await db.personRole.findMany({ where: { person: { pid } }, orderBy: { role: 'asc' } })).map((r) => [
        r.role,
        r.source,
      ]);
    expect(await sources()).toEqual([
      ['admin', 'devLogin'],
      ['editeur', 'devLogin'],
      ['formateur', 'admin'],
    ]);
    // The administrator now grants editeur for good: it is theirs, and outlives the development login.
    await addPerson(on, {
      origine: 'dev',
      idOrigine,
      nom: 'Curie',
      prenom: 'Marie',
      roles: ['formateur', 'editeur'],
    });
    expect(await sources()).toEqual([
      ['admin', 'devLogin'],
      ['editeur', 'admin'],
      ['formateur', 'admin'],
    ]);
    const cookie = String(logged.headers['set-cookie']).split(';')[0]!;
    expect((await me(off, cookie)).body.person.roles).toEqual(['editeur', 'formateur']);
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
    expect(person.roles.map((role) => [role.role, role.source])).toEqual([['formateur', 'devLogin']]);
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

describe('roles of the development login in a transfer file', () => {
  it('are left out of an export: the file has no source, and an import would make them an administrator’s', async () => {
    const idOrigine = unique();
    const pid = `dev/${idOrigine}`;
    await addPerson(on, { origine: 'dev', idOrigine, nom: 'Curie', prenom: 'Marie', roles: ['formateur'] });
    const logged = await on
      .client()
      .post('/api/dev/connexion')
      .send({ pid, roles: ['admin'] });
    expect(logged.status, JSON.stringify(logged.body)).toBe(200);
    let exported: unknown;
    for await (const line of exportLines({ baseId: 'repo' })) {
      const record = JSON.parse(line);
      if (record.personne?.pid === pid) exported = record.personne;
    }
    expect(exported).toMatchObject({ pid, roles: { formateur: true } });
    expect((exported as { roles: object }).roles).toEqual({ formateur: true });
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
