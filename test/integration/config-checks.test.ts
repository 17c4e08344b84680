/** Configuration checks (checkLab, checkRepo, baseId) and lab helpers (deferPost, notifyError). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tokenHeaders } from '../support/actors.ts';
import { startApp, type TestApp } from '../support/app.ts';
import { type FakePeer, startFakePeer } from '../support/fake-peer.ts';
import { errorCode, graphql } from '../support/graphql.ts';

let lab: FakePeer;
let elsewhere: FakePeer;
let app: TestApp;
const PEER = { baseId: 'voisine', baseUrl: 'http://127.0.0.1:9/voisine/' };

beforeAll(async () => {
  lab = await startFakePeer('labConf');
  elsewhere = await startFakePeer('ailleurs');
  app = await startApp({
    labs: [{ baseId: lab.baseId, baseUrl: lab.baseUrl }],
    peers: [PEER, { baseId: elsewhere.baseId, baseUrl: elsewhere.baseUrl }],
    http: { deferPostTimeoutMs: 300 },
  });
});

afterAll(async () => {
  await app.close();
  await Promise.all([lab.close(), elsewhere.close()]);
});

const SELF = { baseId: 'repo', baseUrl: 'http://repo.test/' };
const CHECK = `query($lab: LabConfigurationInput!, $repo: RepositoryConfigurationInput!) {
  checkLabConfiguration(input: $lab) { success message baseId errors warnings }
  checkRepositoryConfiguration(input: $repo) { success message errors warnings }
}`;

describe('POST /api/checkLab and POST /api/checkRepo', () => {
  it('accept a configuration that agrees with ours, warning about repositories unknown here', async () => {
    const sesatheques = [
      SELF,
      { baseId: 'voisine', baseUrl: 'http://127.0.0.1:9/voisine' },
      { baseId: 'x', baseUrl: 'http://x.test/' },
    ];
    const warnings = ['x (http://x.test/) est inconnue ici'];
    const checkLab = await app.client().post('/api/checkLab').send({ baseUrl: lab.baseUrl, sesatheques });
    expect(checkLab.status).toBe(200);
    expect(checkLab.body).toEqual({
      success: true,
      message: 'Configuration sesalab OK',
      baseId: 'labConf',
      warnings,
    });
    const checkRepo = await app
      .client()
      .post('/api/checkRepo')
      .send({ sesatheques, sesalabs: [{ baseId: 'labConf', baseUrl: lab.baseUrl }] });
    expect(checkRepo.body).toEqual({ success: true, message: 'Configuration sésathèque OK', warnings });
    const graph = await graphql(app.client(), CHECK, {
      lab: { baseUrl: lab.baseUrl, repositories: sesatheques },
      repo: { repositories: sesatheques },
    });
    expect(graph.data?.checkLabConfiguration).toEqual({
      success: true,
      message: 'Configuration sesalab OK',
      baseId: 'labConf',
      errors: [],
      warnings,
    });
    expect(graph.data?.checkRepositoryConfiguration.success).toBe(true);
  });

  it('refuse mismatched ids and urls, unknown labs and malformed declarations: 400 {errors, warnings}', async () => {
    const sesatheques = [
      { baseId: 'autre', baseUrl: 'http://repo.test/' },
      { baseId: 'voisine', baseUrl: 'http://voisine.test/' },
      { baseId: 'x' },
    ];
    const errors = [
      'http://repo.test/ a la baseId repo ici, pas autre',
      'voisine a l’url http://127.0.0.1:9/voisine/ ici, pas http://voisine.test/',
      'sesatheques[2] : baseId et baseUrl sont obligatoires',
    ];
    const checkLab = await app
      .client()
      .post('/api/checkLab')
      .send({ baseUrl: 'http://pirate.test/', sesatheques });
    expect(checkLab.status).toBe(400);
    expect(checkLab.body).toEqual({
      success: false,
      errors: ['http://pirate.test/ n’est pas une sesalab déclarée sur http://repo.test/', ...errors],
      warnings: [],
    });
    const checkRepo = await app
      .client()
      .post('/api/checkRepo')
      .send({ sesatheques, sesalabs: [{ baseId: 'autreLab', baseUrl: lab.baseUrl }] });
    expect(checkRepo.status).toBe(400);
    expect(checkRepo.body).toEqual({
      success: false,
      errors: [...errors, `${lab.baseUrl} a la baseId labConf ici, pas autreLab`],
      warnings: [],
    });
    expect((await app.client().post('/api/checkLab').send({})).body).toEqual({
      success: false,
      errors: ['baseUrl manquante', 'sesatheques manquant'],
      warnings: [],
    });
    expect((await app.client().post('/api/checkRepo').send({ sesatheques: 'non' })).body.errors).toEqual([
      'sesatheques doit être une liste de {baseId, baseUrl}',
    ]);
    const graph = await graphql(app.client(), CHECK, { lab: {}, repo: { repositories: sesatheques } });
    expect(graph.data?.checkLabConfiguration).toMatchObject({ success: false, message: null, baseId: null });
    expect(graph.data?.checkRepositoryConfiguration.errors).toEqual(errors);
  });
});

const BASE_ID = `query($baseUrl: String!) { baseIdOfUrl(baseUrl: $baseUrl) {
  __typename ... on KnownBase { baseId type } ... on Error { code message } } }`;
const BASE_URL = `query($baseId: String!) { repositoryBaseUrl(baseId: $baseId) {
  __typename ... on QueryRepositoryBaseUrlSuccess { data } ... on Error { code message } } }`;

describe('GET /api/baseId', () => {
  it('names the baseId and kind of a known base URL (with or without its final slash)', async () => {
    expect((await app.client().get(`/api/baseId?baseUrl=${encodeURIComponent(lab.baseUrl)}`)).body).toEqual({
      success: true,
      baseId: 'labConf',
      type: 'sesalab',
    });
    expect((await app.client().get('/api/baseId?baseUrl=http://127.0.0.1:9/voisine')).body).toEqual({
      success: true,
      baseId: 'voisine',
      type: 'sesatheque',
    });
    const graph = await graphql(app.client(), BASE_ID, { baseUrl: 'http://repo.test/' });
    expect(graph.data?.baseIdOfUrl).toEqual({ __typename: 'KnownBase', baseId: 'repo', type: 'sesatheque' });
  });

  it('answers 404 for an unknown base URL and 400 without one', async () => {
    const unknown = await app.client().get('/api/baseId?baseUrl=http://x.test/');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({
      success: false,
      error: 'Aucune sésathèque ni sesalab d’url http://x.test/ connue sur http://repo.test/',
    });
    expect((await app.client().get('/api/baseId')).status).toBe(400);
    expect(
      errorCode(await graphql(app.client(), BASE_ID, { baseUrl: 'http://x.test/' }), 'baseIdOfUrl'),
    ).toBe('NOT_FOUND');
  });

  it('GET /api/baseId/:id answers the base URL of this repository or a peer, else an error naming the id', async () => {
    expect((await app.client().get('/api/baseId/voisine')).body).toEqual({
      success: true,
      baseUrl: PEER.baseUrl,
    });
    expect((await app.client().get('/api/baseId/repo')).body).toEqual({
      success: true,
      baseUrl: SELF.baseUrl,
    });
    const unknown = await app.client().get('/api/baseId/nulle');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({
      success: false,
      error: 'Sésathèque nulle inconnue sur http://repo.test/',
    });
    expect((await graphql(app.client(), BASE_URL, { baseId: 'voisine' })).data?.repositoryBaseUrl.data).toBe(
      PEER.baseUrl,
    );
    expect(errorCode(await graphql(app.client(), BASE_URL, { baseId: 'nulle' }), 'repositoryBaseUrl')).toBe(
      'NOT_FOUND',
    );
  });
});

const DEFER = `mutation($input: DeferPostInput!) { deferPost(input: $input) {
  __typename ... on MutationDeferPostSuccess { data } ... on Error { code message } } }`;

describe('POST /api/deferPost', () => {
  it('forwards the body without deferUrl to a configured lab, from JSON or text/plain', async () => {
    const deferUrl = `${lab.baseUrl}api/resultat?x=1`;
    const json = await app.client().post('/api/deferPost').send({ deferUrl, score: 1 });
    expect(json.body).toEqual({ success: true });
    const beacon = await app
      .client()
      .post('/api/deferPost')
      .set('Content-Type', 'text/plain')
      .send(JSON.stringify({ deferUrl, score: 2 }));
    expect(beacon.body).toEqual({ success: true });
    const graph = await graphql(app.client(), DEFER, { input: { deferUrl, payload: { score: 3 } } });
    expect(graph.data?.deferPost).toEqual({ __typename: 'MutationDeferPostSuccess', data: true });
    const posted = lab.received.filter((request) => request.path === '/api/resultat?x=1');
    expect(posted.map((request) => [request.method, request.body])).toEqual([
      ['POST', { score: 1 }],
      ['POST', { score: 2 }],
      ['POST', { score: 3 }],
    ]);
  });

  it('refuses any other destination before any network call, even a configured peer (403)', async () => {
    const before = elsewhere.received.length + lab.received.length;
    for (const deferUrl of [
      `${elsewhere.baseUrl}api/x`,
      'http://127.0.0.1:9/',
      `${lab.baseUrl.replace('127.0.0.1', 'localhost')}api/x`,
      'pas une url',
    ]) {
      const response = await app.client().post('/api/deferPost').send({ deferUrl });
      expect(response.status, deferUrl).toBe(403);
      expect(response.body).toEqual({
        success: false,
        error: `deferUrl ${deferUrl} : destination non autorisée`,
      });
    }
    expect(
      errorCode(await graphql(app.client(), DEFER, { input: { deferUrl: elsewhere.baseUrl } }), 'deferPost'),
    ).toBe('FORBIDDEN');
    expect(elsewhere.received.length + lab.received.length).toBe(before);
  });

  it('refuses a body without deferUrl or that is not JSON (400), and reports a failing or silent lab', async () => {
    expect((await app.client().post('/api/deferPost').send({ score: 1 })).body).toEqual({
      success: false,
      error: 'deferUrl manquant',
    });
    const garbage = await app
      .client()
      .post('/api/deferPost')
      .set('Content-Type', 'text/plain')
      .send('{pas du json');
    expect(garbage.status).toBe(400);
    try {
      lab.behave('fail');
      const failing = await app
        .client()
        .post('/api/deferPost')
        .send({ deferUrl: `${lab.baseUrl}api/x` });
      expect(failing.status).toBe(502);
      lab.behave('silent');
      const silent = await app
        .client()
        .post('/api/deferPost')
        .send({ deferUrl: `${lab.baseUrl}api/x` });
      expect(silent.status).toBe(504);
      expect(silent.body.error).toBe(`${new URL(lab.baseUrl).origin} n’a pas répondu en 300 ms`);
    } finally {
      lab.behave('accept');
    }
  });

  it('holds GraphQL clients to the rules REST clients meet; reading a text body is REST’s alone', async () => {
    const before = lab.received.length;
    const refused = async (input: Record<string, unknown>) =>
      (await graphql(app.client(), DEFER, { input })).data?.deferPost;
    expect(await refused({ payload: 3 })).toEqual({
      __typename: 'InvalidInputError',
      code: 'INVALID_INPUT',
      message: 'Le corps de la requête doit être un objet ; deferUrl manquant',
    });
    // A beacon's text is the REST wire format: a GraphQL payload is JSON already.
    expect(
      await refused({ deferUrl: `${lab.baseUrl}api/x`, payload: JSON.stringify({ score: 4 }) }),
    ).toMatchObject({ code: 'INVALID_INPUT', message: 'Le corps de la requête doit être un objet' });
    const text = (body: string) =>
      app.client().post('/api/deferPost').set('Content-Type', 'text/plain').send(body);
    expect((await text('{pas du json')).body).toEqual({
      success: false,
      error: 'Le corps de la requête n’est pas du JSON valide',
    });
    expect((await text(JSON.stringify([`${lab.baseUrl}api/x`]))).body).toEqual({
      success: false,
      error: 'Le corps de la requête doit être un objet',
    });
    expect((await app.client().post('/api/deferPost').send({ deferUrl: 3, score: 1 })).body).toEqual({
      success: false,
      error: 'deferUrl manquant',
    });
    expect(lab.received.length).toBe(before);
  });
});

describe('POST /api/notifyError', () => {
  it('always answers success, for anyone, with or without rid', async () => {
    for (const body of [{ rid: 'repo/1', message: 'données invalides' }, { message: 'plantage' }]) {
      expect((await app.client().post('/api/notifyError').send(body)).body).toEqual({ success: true });
      expect((await app.client().post('/api/notifyError').set(tokenHeaders).send(body)).body).toEqual({
        success: true,
      });
    }
    const graph = await graphql(app.client(), 'mutation { notifyError(input: {report: {message: "x"}}) }');
    expect(graph.data).toEqual({ notifyError: true });
  });
});
