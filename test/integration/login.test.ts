/**
 * Lab login (`connexion`), logout and the session, through REST and GraphQL, against a fake lab
 * on loopback.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { db } from '../../src/db/client.ts';
import { addPerson, logIn } from '../support/actors.ts';
import { startApp, type TestApp } from '../support/app.ts';
import { type FakeLab, labUser, startFakeLab } from '../support/fake-lab.ts';
import { errorCode, graphql } from '../support/graphql.ts';

let lab: FakeLab;
let unconfiguredLab: FakeLab;
let app: TestApp;

beforeAll(async () => {
  lab = await startFakeLab('labA');
  unconfiguredLab = await startFakeLab('labX');
  app = await startApp({ labs: [lab.config()] });
});

afterAll(async () => {
  await app.close();
  await lab.close();
  await unconfiguredLab.close();
});

function sessionCookie(response: { headers: Record<string, unknown> }): string | undefined {
  const cookies = (response.headers['set-cookie'] as string[] | undefined) ?? [];
  return cookies.find((cookie) => cookie.startsWith('connect.sid='))?.split(';')[0];
}

const LOGIN = /* GraphQL */ `
  mutation ($origine: String, $token: String) {
    login(origine: $origine, token: $token) {
      __typename
      ... on Error { code message }
      ... on Viewer { authenticated kind person { pid nom prenom roles } }
    }
  }
`;

describe('POST /api/connexion', () => {
  it('logs a teacher in: upserts the person, posts the token as a form field, sets a session', async () => {
    const user = labUser({ type: 1 });
    const token = lab.tokenFor(user);
    const browser = app.browser();
    const response = await browser.post('/api/connexion').send({ origine: lab.baseUrl, token });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ success: true });
    expect(sessionCookie(response)).toBeDefined();

    const call = lab.received.find((r) => r.token === token);
    expect(call).toMatchObject({
      method: 'POST',
      path: '/api/utilisateur/check-token',
      contentType: 'application/x-www-form-urlencoded',
    });

    const person = await db.person.findUniqueOrThrow({
      where: { pid: `labA/${user.oid}` },
      include: { roles: true },
    });
    expect(person).toMatchObject({ nom: user.nom, prenom: user.prenom, email: user.mail });
    expect(person.roles.map((r) => r.role)).toEqual(['formateur']);

    const current = await browser.get('/api/personne/current');
    expect(current.body).toEqual({
      success: true,
      user: { pid: `labA/${user.oid}`, nom: user.nom, prenom: user.prenom },
      sso: { name: lab.name, links: [{ href: lab.baseUrl, icon: 'lab', value: lab.name }] },
      logoutUrl: 'http://repo.test/api/deconnexion',
      loginLinks: [],
    });
  });

  it('starts a session for a request that carries other cookies but not the session one', async () => {
    const user = labUser({ type: 1 });
    const browser = app.browser();
    const response = await browser
      .post('/api/connexion')
      .set('Cookie', 'theme=dark')
      .send({ origine: lab.baseUrl, token: lab.tokenFor(user) });
    expect(response.status).toBe(200);
    const cookie = sessionCookie(response);
    expect(cookie).toBeDefined();
    const current = await app.client().get('/api/personne/current').set('Cookie', cookie!);
    expect(current.body.user).toEqual({ pid: `labA/${user.oid}`, nom: user.nom, prenom: user.prenom });
  });

  it('keeps no session for a request without the session cookie that logs nobody in', async () => {
    const before = await db.session.count();
    const response = await app.client().get('/api/personne/current').set('Cookie', 'theme=dark');
    expect(response.headers['set-cookie']).toBeUndefined();
    expect(await db.session.count()).toBe(before);
  });

  it('keeps a role an administrator granted when the lab held it first and later stops giving it', async () => {
    const user = labUser({ type: 1 });
    await logIn(app, lab, user);
    const pid = `labA/${user.oid}`;
    const rolesOf = async () =>
      (await db.personRole.findMany({ where: { person: { pid } }, orderBy: { role: 'asc' } })).map((r) => [
        r.role,
        r.source,
      ]);
    expect(await rolesOf()).toEqual([['formateur', 'lab']]);
    // The administrator grants the same role: from now on it is the administrator's.
    await addPerson(app, {
      origine: 'labA',
      idOrigine: user.oid,
      nom: user.nom,
      prenom: user.prenom,
      roles: ['formateur'],
    });
    expect(await rolesOf()).toEqual([['formateur', 'admin']]);
    // The lab now sees a pupil: its role changes, the administrator's grant stays.
    await logIn(app, lab, { ...user, type: 0 });
    expect(await rolesOf()).toEqual([
      ['eleve', 'lab'],
      ['formateur', 'admin'],
    ]);
  });

  it('gives a pupil (type other than 1) the eleve role', async () => {
    const user = labUser({ type: 0 });
    await logIn(app, lab, user);
    const roles = await db.personRole.findMany({ where: { person: { pid: `labA/${user.oid}` } } });
    expect(roles.map((r) => r.role)).toEqual(['eleve']);
  });

  it('accepts the origin without its trailing slash, and GET with query parameters', async () => {
    const token = lab.tokenFor(labUser());
    const response = await app
      .client()
      .get('/api/connexion')
      .query({ origine: lab.baseUrl.slice(0, -1), token });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ success: true });
    expect(sessionCookie(response)).toBeDefined();
  });

  it('accepts a form-encoded body', async () => {
    const token = lab.tokenFor(labUser());
    const response = await app
      .client()
      .post('/api/connexion')
      .type('form')
      .send({ origine: lab.baseUrl, token });
    expect(response.body).toEqual({ success: true });
  });

  it('regenerates the session id on login', async () => {
    const browser = app.browser();
    const first = await browser
      .post('/api/connexion')
      .send({ origine: lab.baseUrl, token: lab.tokenFor(labUser()) });
    const second = await browser
      .post('/api/connexion')
      .send({ origine: lab.baseUrl, token: lab.tokenFor(labUser()) });
    expect(sessionCookie(first)).toBeDefined();
    expect(sessionCookie(second)).toBeDefined();
    expect(sessionCookie(second)).not.toBe(sessionCookie(first));
    // The first id is dead: replaying it shows nobody.
    const replay = await app.client().get('/api/personne/current').set('Cookie', sessionCookie(first)!);
    expect(replay.body.user).toBeUndefined();
  });

  it('refuses an origin that is not a configured lab, without contacting it', async () => {
    const before = unconfiguredLab.received.length;
    const response = await app
      .client()
      .post('/api/connexion')
      .send({
        origine: unconfiguredLab.baseUrl,
        token: unconfiguredLab.tokenFor(labUser()),
      });
    expect(response.status).toBe(403);
    expect(response.body).toEqual({
      success: false,
      error: `Origine ${unconfiguredLab.baseUrl} non autorisée à se connecter ici`,
    });
    expect(unconfiguredLab.received.length).toBe(before);
    expect(sessionCookie(response)).toBeUndefined();
  });

  it.each([
    [{ origine: 'x' }, 'token missing'],
    [{ token: 'x' }, 'origine missing'],
    [{}, 'both missing'],
    [{ origine: '', token: '' }, 'both empty'],
  ])('answers 400 when fields are missing (%j: %s)', async (body, _label) => {
    const response = await app.client().post('/api/connexion').send(body);
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ success: false, error: 'token ou origine manquant' });
  });

  it('reports the lab refusing the token (401, the lab’s message)', async () => {
    const response = await app
      .client()
      .post('/api/connexion')
      .send({ origine: lab.baseUrl, token: lab.refusingToken('Token expiré') });
    expect(response.status).toBe(401);
    expect(response.body).toEqual({ success: false, error: 'Token expiré' });
  });

  it.each([
    ['an HTML error page', 500, '<html>boom</html>', undefined],
    ['JSON without utilisateur', 200, '{"ok":true}', 'application/json'],
    ['a user without nom', 200, '{"ok":true,"utilisateur":{"oid":"1","prenom":"A"}}', 'application/json'],
    ['not JSON at all', 200, 'ok', 'text/plain'],
  ])('answers 502 when the lab sends %s, and creates nobody', async (_label, status, body, contentType) => {
    const persons = await db.person.count();
    const response = await app
      .client()
      .post('/api/connexion')
      .send({ origine: lab.baseUrl, token: lab.rawToken(status, body, contentType) });
    expect(response.status).toBe(502);
    expect(response.body).toEqual({ success: false, error: `Réponse invalide de ${lab.name}` });
    expect(await db.person.count()).toBe(persons);
  });

  it('gives up on a lab that does not answer in time (504)', async () => {
    const started = Date.now();
    const response = await app
      .client()
      .post('/api/connexion')
      .send({ origine: lab.baseUrl, token: lab.silentToken() });
    expect(response.status).toBe(504);
    expect(response.body.success).toBe(false);
    expect(response.body.error).toMatch(/n’a pas répondu en 2000 ms/);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('answers 502 when the lab is down', async () => {
    // Port 1: nothing listens there, whereas a port a closed server freed may be taken meanwhile by
    // a server of another test file running in parallel (a CI run met a 401 from one).
    const config = { baseId: 'labDown', baseUrl: 'http://127.0.0.1:1/', name: 'labDown' };
    const isolated = await startApp({ labs: [config] });
    try {
      const response = await isolated
        .client()
        .post('/api/connexion')
        .send({ origine: config.baseUrl, token: 't' });
      expect(response.status).toBe(502);
      expect(response.body.error).toMatch(/injoignable/);
    } finally {
      await isolated.close();
    }
  });

  it('rejects wrong body types with 400 and writes nothing', async () => {
    const persons = await db.person.count();
    const response = await app
      .client()
      .post('/api/connexion')
      .send({ origine: ['a', 'b'], token: { x: 1 } });
    expect(response.status).toBe(400);
    expect(response.body.success).toBe(false);
    expect(await db.person.count()).toBe(persons);
  });
});

describe('roles across logins', () => {
  it('keeps roles granted by personne/add when the person later logs in through a lab', async () => {
    const user = labUser({ type: 0 });
    await addPerson(app, {
      origine: 'labA',
      idOrigine: String(user.oid),
      nom: 'X',
      prenom: 'Y',
      roles: ['admin'],
    });
    const browser = await logIn(app, lab, user);
    const me = await browser.get('/api/personne/me');
    expect(me.body.person.roles).toEqual(['admin', 'eleve']);
    expect(me.body.allRights).toBe(true);
    // The lab's data wins for the name: the lab is the source of truth for its users.
    expect(me.body.person.nom).toBe(user.nom);
  });

  it('replaces the role a lab granted when the lab’s answer changes', async () => {
    const user = labUser({ type: 0 });
    await logIn(app, lab, user);
    const browser = await logIn(app, lab, { ...user, type: 1 });
    const me = await browser.get('/api/personne/me');
    expect(me.body.person.roles).toEqual(['formateur']);
  });
});

describe('GET /api/deconnexion', () => {
  it('destroys the session: the old cookie no longer authenticates, and the stored session is gone', async () => {
    const browser = app.browser();
    const login = await browser
      .post('/api/connexion')
      .send({ origine: lab.baseUrl, token: lab.tokenFor(labUser()) });
    const cookie = sessionCookie(login)!;
    const sid = decodeURIComponent(cookie.split('=')[1]!).slice(2).split('.')[0]!;
    expect(await db.session.findUnique({ where: { sid } })).not.toBeNull();

    const logout = await browser.get('/api/deconnexion');
    expect(logout.status).toBe(200);
    expect(logout.body).toEqual({ success: true });
    expect(await db.session.findUnique({ where: { sid } })).toBeNull();

    const replay = await app.client().get('/api/personne/current').set('Cookie', cookie);
    expect(replay.body.user).toBeUndefined();
  });

  it('is harmless for an anonymous caller', async () => {
    const response = await app.client().get('/api/deconnexion');
    expect(response.body).toEqual({ success: true });
  });
});

describe('GraphQL login / logout', () => {
  it('logs in, reports the viewer, and logs out, with the same rules as REST', async () => {
    const user = labUser({ type: 1 });
    const browser = app.browser();
    const login = await graphql(browser, LOGIN, { origine: lab.baseUrl, token: lab.tokenFor(user) });
    expect(login.data?.login).toEqual({
      __typename: 'Viewer',
      authenticated: true,
      kind: 'person',
      person: { pid: `labA/${user.oid}`, nom: user.nom, prenom: user.prenom, roles: ['formateur'] },
    });
    const viewer = await graphql(browser, '{ viewer { authenticated person { pid } } }');
    expect(viewer.data?.viewer).toEqual({ authenticated: true, person: { pid: `labA/${user.oid}` } });

    const logout = await graphql(browser, 'mutation { logout { authenticated } }');
    expect(logout.data?.logout).toEqual({ authenticated: false });
    const after = await graphql(browser, '{ viewer { authenticated } }');
    expect(after.data?.viewer).toEqual({ authenticated: false });
  });

  it.each([
    ['missing fields', () => ({ origine: lab.baseUrl }), 'INVALID_INPUT'],
    ['unknown lab', () => ({ origine: unconfiguredLab.baseUrl, token: 't' }), 'LAB_NOT_ALLOWED'],
    ['refused token', () => ({ origine: lab.baseUrl, token: lab.refusingToken() }), 'LAB_LOGIN_REJECTED'],
    [
      'malformed answer',
      () => ({ origine: lab.baseUrl, token: lab.rawToken(200, '{}', 'application/json') }),
      'UPSTREAM_UNAVAILABLE',
    ],
    ['timeout', () => ({ origine: lab.baseUrl, token: lab.silentToken() }), 'UPSTREAM_TIMEOUT'],
  ])('returns a typed error for %s', async (_label, variables, code) => {
    const response = await graphql(app.client(), LOGIN, variables());
    expect(response.errors).toBeUndefined();
    expect(errorCode(response, 'login')).toBe(code);
  });
});
