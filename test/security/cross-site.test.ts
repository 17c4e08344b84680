/**
 * Cross-site request forgery: a page of another site making a logged-in browser change state here,
 * through legacy GET links, unsafe methods or GraphQL mutations, or signing the browser into the
 * attacker's account. Each attempt is refused (403 JSON) and changes nothing; browsers on this
 * service or a lab, navigations the user started, non-browser clients and token callers are not.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, logIn, tokenHeaders } from '../support/actors.ts';
import { startApp, type TestApp } from '../support/app.ts';
import { databaseState } from '../support/database-state.ts';
import { type FakeLab, labUser, startFakeLab } from '../support/fake-lab.ts';
import { groupName } from '../support/groups.ts';
import { createResource } from '../support/resources.ts';

let lab: FakeLab;
let app: TestApp;
let teacher: Browser;
let owner: Browser;
/** A group `teacher` manages, is a member of and follows; another that is open and public. */
let mine: string;
let open: string;
let oid: number;
let aliasOid: number;

const labOrigin = () => new URL(lab.baseUrl).origin;
const SELF = 'http://repo.test';
const EVIL = 'http://evil.example';

/** Headers a browser sends when a page of another site makes it send a request. */
const HOSTILE: Array<[string, Record<string, string>]> = [
  ['a foreign Origin', { Origin: EVIL }],
  ['Origin: null', { Origin: 'null' }],
  ['Sec-Fetch-Site: cross-site without Origin', { 'Sec-Fetch-Site': 'cross-site' }],
  [
    'Sec-Fetch-Site: cross-site and a foreign Referer',
    { 'Sec-Fetch-Site': 'cross-site', Referer: `${EVIL}/p` },
  ],
  ['only a foreign Referer', { Referer: `${EVIL}/page?x=1` }],
];

/** Headers of requests that must still work (`LAB` stands for the lab's base URL). */
const FRIENDLY: Array<[string, Record<string, string>]> = [
  ['no browser headers (a script)', {}],
  ['this service’s Origin', { Origin: SELF }],
  ['a lab’s Origin', { Origin: 'LAB' }],
  ['Sec-Fetch-Site: same-origin', { 'Sec-Fetch-Site': 'same-origin' }],
  ['Sec-Fetch-Site: same-site', { 'Sec-Fetch-Site': 'same-site' }],
  ['Sec-Fetch-Site: none (typed or bookmarked)', { 'Sec-Fetch-Site': 'none' }],
  ['a link from a lab page', { 'Sec-Fetch-Site': 'cross-site', Referer: 'LAB/cours/1' }],
  ['only a Referer of this service', { Referer: `${SELF}/page` }],
];

const withLab = (headers: Record<string, string>) =>
  Object.fromEntries(
    Object.entries(headers).map(([name, value]) => [name, value.replace('LAB', labOrigin())]),
  );

beforeAll(async () => {
  lab = await startFakeLab('labX');
  app = await startApp({ labs: [lab.config()] });
  teacher = await logIn(app, lab, labUser({ type: 1 }));
  owner = await logIn(app, lab, labUser({ type: 1 }));
  mine = groupName('Mien');
  open = groupName('Ouvert');
  expect((await teacher.post('/api/groupe').send({ nom: mine, ouvert: true, public: true })).status).toBe(
    200,
  );
  expect((await owner.post('/api/groupe').send({ nom: open, ouvert: true, public: true })).status).toBe(200);
  oid = await createResource(app, { titre: 'Source', type: 'url' });
  const alias = await teacher.get(
    `/api/createAlias/repo/${await createResource(app, { titre: 'Pour alias', type: 'em' })}`,
  );
  expect(alias.status, alias.text).toBe(200);
  const aliases = await app
    .client()
    .get('/api/liste')
    .set(tokenHeaders)
    .query({ aliasOf: alias.body.clone.aliasOf, format: 'light' });
  aliasOid = aliases.body.liste[0]?.oid;
  expect(aliasOid, JSON.stringify(alias.body)).toBeTypeOf('number');
});

afterAll(async () => {
  await app.close();
  await lab.close();
});

const enc = encodeURIComponent;

/** Every legacy GET route that changes state, as the logged-in teacher would follow it. */
const STATE_CHANGING_LINKS = () => [
  `/api/groupe/ajouter/${enc(groupName('Forgé'))}`,
  `/groupe/rejoindre/${enc(open)}`,
  `/api/groupe/rejoindre/${enc(open)}`,
  `/groupe/suivre/${enc(open)}`,
  `/api/groupe/suivre/${enc(open)}`,
  `/groupe/quitter/${enc(mine)}`,
  `/api/groupe/quitter/${enc(mine)}`,
  `/api/groupe/ignorer/${enc(mine)}`,
  `/api/clone/${oid}`,
  `/api/createAlias/repo/${oid}`,
  `/api/forkAlias/${aliasOid}`,
  '/api/deconnexion',
];

async function expectForbiddenAndNothingChanged(
  send: () => Promise<{ status: number; body: unknown; text: string }>,
) {
  const before = await databaseState();
  const response = await send();
  expect(response.status, response.text).toBe(403);
  expect(response.body).toEqual({ success: false, error: expect.stringMatching(/^Requête refusée : /) });
  expect(await databaseState()).toEqual(before);
}

async function stillLoggedIn(browser: Browser) {
  expect((await browser.get('/api/personne/current')).body.user).toBeDefined();
}

describe('legacy GET links that change state', () => {
  it.each(HOSTILE)('are refused for a browser session when a page sends %s', async (_label, headers) => {
    for (const link of STATE_CHANGING_LINKS()) {
      await expectForbiddenAndNothingChanged(() => teacher.get(link).set(headers));
    }
    await stillLoggedIn(teacher);
  });

  it.each(FRIENDLY)('still work with %s', async (_label, friendly) => {
    const headers = withLab(friendly);
    const response = await teacher.get(`/groupe/rejoindre/${enc(open)}`).set(headers);
    expect(response.status, response.text).toBe(200);
    const created = await teacher.get(`/api/groupe/ajouter/${enc(groupName('Légitime'))}`).set(headers);
    expect(created.status, created.text).toBe(200);
  });

  it('still work for callers that are no browser session: no cookie, or a valid API token', async () => {
    const anonymous = await app
      .client()
      .get(`/groupe/rejoindre/${enc(open)}`)
      .set('Origin', EVIL);
    expect(anonymous.status).toBe(401);
    // A token caller is no person: cloning is denied for that reason, not as a cross-site request.
    const token = await app.client().get(`/api/clone/${oid}`).set(tokenHeaders).set('Origin', EVIL);
    expect(token.body).toEqual({ success: false, error: 'Droits insuffisants' });
  });

  it('a browser session cannot be ended from another site', async () => {
    const browser = await logIn(app, lab, labUser({ type: 0 }));
    expect((await browser.get('/api/deconnexion').set('Origin', EVIL)).status).toBe(403);
    await stillLoggedIn(browser);
    expect((await browser.get('/api/deconnexion').set('Sec-Fetch-Site', 'same-origin')).status).toBe(200);
    expect((await browser.get('/api/personne/current')).body.user).toBeUndefined();
  });
});

describe('unsafe methods on /api', () => {
  const writes = () =>
    [
      (b: Browser) => b.post('/api/groupe').send({ nom: groupName('Forgé') }),
      (b: Browser) =>
        b
          .post('/api/groupe')
          .type('form')
          .send({ nom: groupName('Formulaire') }),
      (b: Browser) => b.delete(`/api/groupe/${enc(mine)}`),
      (b: Browser) => b.post('/api/ressource').send({ titre: 'Forgée', type: 'url', categories: [7] }),
      (b: Browser) => b.post('/api/ressource').type('text/plain').send('{"titre":"Balise","type":"url"}'),
      (b: Browser) => b.post('/api/ressource/addRelations').send({ oid, relations: [[1, `repo/${oid}`]] }),
    ] as const;

  it.each(HOSTILE)('are refused for a browser session when a page sends %s', async (_label, headers) => {
    for (const write of writes()) await expectForbiddenAndNothingChanged(() => write(teacher).set(headers));
  });

  it('are accepted from this service, a lab, and clients without browser headers', async () => {
    for (const headers of [{ Origin: SELF }, { Origin: labOrigin() }, {}]) {
      const response = await teacher
        .post('/api/groupe')
        .set(headers)
        .send({ nom: groupName('Accepté') });
      expect(response.status, response.text).toBe(200);
    }
  });

  it('are accepted from a token caller whatever its Origin (a browser cannot send the header cross-site)', async () => {
    const response = await app
      .client()
      .post('/api/ressource')
      .set(tokenHeaders)
      .set('Origin', EVIL)
      .send({ titre: 'Par jeton', type: 'url', categories: [7] });
    expect(response.status, response.text).toBe(200);
  });
});

describe('GraphQL mutations', () => {
  const mutation = () =>
    `mutation { createGroupFromName(nom: ${JSON.stringify(groupName('GraphQL'))}) { __typename } }`;

  it.each(HOSTILE)('are refused for a browser session when a page sends %s', async (_label, headers) => {
    const before = await databaseState();
    const response = await teacher.post('/graphql').set(headers).send({ query: mutation() });
    expect(response.status, response.text).toBe(403);
    expect(response.body.errors[0].extensions.code).toBe('CROSS_SITE_REQUEST');
    expect(response.body.data).toBeUndefined();
    expect(await databaseState()).toEqual(before);
  });

  it('are refused from a cookie caller in a body a plain form can send (form, multipart, text)', async () => {
    const body = { query: mutation() };
    const before = await databaseState();
    const sends = [
      teacher.post('/graphql').type('form').send(body),
      teacher.post('/graphql').type('text/plain').send(JSON.stringify(body)),
      teacher.post('/graphql').field('operations', JSON.stringify(body)).field('map', '{}'),
    ];
    for (const send of sends) {
      const response = await send;
      expect(response.status, response.text).toBe(403);
      expect(response.body.errors[0].extensions.code).toBe('CROSS_SITE_REQUEST');
    }
    expect(await databaseState()).toEqual(before);
  });

  it('are accepted from a cookie caller with JSON, or with the CSRF-prevention header', async () => {
    const json = await teacher.post('/graphql').send({ query: mutation() });
    expect(json.body.data?.createGroupFromName?.__typename, json.text).toBe('Group');
    const form = await teacher
      .post('/graphql')
      .set('X-GraphQL-Yoga-CSRF', '1')
      .type('form')
      .send({ query: mutation() });
    expect(form.body.data?.createGroupFromName?.__typename, form.text).toBe('Group');
  });

  it('are never run over GET', async () => {
    const before = await databaseState();
    const anonymous = await app.client().get('/graphql').query({ query: 'mutation { logout { kind } }' });
    expect(anonymous.status).toBe(405);
    const withHeader = await teacher
      .get('/graphql')
      .set('X-GraphQL-Yoga-CSRF', '1')
      .query({ query: mutation() });
    expect(withHeader.status).toBe(405);
    const withoutHeader = await teacher.get('/graphql').query({ query: mutation() });
    expect(withoutHeader.status).toBe(403);
    expect(await databaseState()).toEqual(before);
    await stillLoggedIn(teacher);
  });

  it('leave queries alone: reading is CORS’s business', async () => {
    const response = await teacher
      .post('/graphql')
      .set('Origin', EVIL)
      .send({ query: '{ viewer { kind } }' });
    expect(response.body.data.viewer.kind).toBe('person');
  });
});

describe('login CSRF', () => {
  const credentials = () => ({ origine: lab.baseUrl, token: lab.tokenFor(labUser()) });

  it.each(HOSTILE)(
    'a login from another site (%s) starts no session and never reaches the lab',
    async (_label, headers) => {
      const calls = lab.received.length;
      for (const send of [
        (b: Browser) => b.post('/api/connexion').set(headers).send(credentials()),
        (b: Browser) => b.get('/api/connexion').set(headers).query(credentials()),
      ]) {
        const browser = app.browser();
        const response = await send(browser);
        expect(response.status, response.text).toBe(403);
        expect(response.headers['set-cookie']).toBeUndefined();
        expect((await browser.get('/api/personne/current')).body.user).toBeUndefined();
      }
      const { o, t } = { o: lab.baseUrl, t: lab.tokenFor(labUser()) };
      const graphql = await app
        .browser()
        .post('/graphql')
        .set(headers)
        .send({ query: `mutation { login(origine: "${o}", token: "${t}") { __typename } }` });
      expect(graphql.status).toBe(403);
      expect(graphql.headers['set-cookie']).toBeUndefined();
      expect(lab.received.length).toBe(calls);
    },
  );

  it('a login from a lab page, a link the lab shows, or a script still works', async () => {
    for (const headers of [
      { Origin: labOrigin() },
      { 'Sec-Fetch-Site': 'cross-site', Referer: `${lab.baseUrl}accueil` },
      {},
    ]) {
      const browser = app.browser();
      const response = await browser.get('/api/connexion').set(headers).query(credentials());
      expect(response.body, JSON.stringify(headers)).toEqual({ success: true });
      await stillLoggedIn(browser);
    }
  });
});
