/** `GET /api/createAlias/:baseId/:oid` for a resource of a peer: fetched from its public route. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { db } from '../../src/db/client.ts';
import { logIn } from '../support/actors.ts';
import { startApp, type TestApp } from '../support/app.ts';
import { type FakeLab, startFakeLab } from '../support/fake-lab.ts';
import { type FakePeer, startFakePeer } from '../support/fake-peer.ts';
import { errorCode, graphql } from '../support/graphql.ts';

let lab: FakeLab;
let voisine: FakePeer;
let app: TestApp;

beforeAll(async () => {
  lab = await startFakeLab('labSrc');
  voisine = await startFakePeer('voisine');
  app = await startApp({
    labs: [lab.config()],
    peers: [{ baseId: 'voisine', baseUrl: voisine.baseUrl, apiToken: 'token-never-sent-to-read-0123' }],
    http: { peerTimeoutMs: 300 },
  });
});

afterAll(async () => {
  await app.close();
  await Promise.all([lab.close(), voisine.close()]);
});

let nextOid = 100;
/** A public resource the fake peer serves at `api/public/<oid>`, in this service's legacy shape. */
function peerResource(fields: Record<string, unknown> = {}) {
  const oid = nextOid++;
  voisine.serve(`/api/public/${oid}`, 200, {
    success: true,
    oid,
    rid: `voisine/${oid}`,
    origine: 'voisine',
    idOrigine: String(oid),
    aliasOf: null,
    type: 'j3p',
    titre: `Exercice voisin ${oid}`,
    resume: 'Résumé',
    description: '',
    commentaires: '',
    parametres: { niveau: 2 },
    niveaux: ['6'],
    categories: [7],
    typePedagogiques: [],
    typeDocumentaires: [],
    relations: [],
    auteurs: ['ailleurs/1'],
    auteursParents: [],
    contributeurs: [],
    groupes: [],
    groupesAuteurs: [],
    langue: 'fra',
    publie: true,
    restriction: 0,
    indexable: true,
    ...fields,
  });
  return oid;
}

const ALIAS = `mutation($baseId: String!, $oid: Int!) { createResourceAlias(baseId: $baseId, oid: $oid) {
  __typename ... on SaveResourceResult { created resource { aliasOf titre authors { person { pid } } } } ... on Error { code message } } }`;

describe('GET /api/createAlias/:baseId/:oid of a peer’s resource', () => {
  it('makes the caller’s alias from the peer’s public form, once, without sending the peer’s token', async () => {
    const oid = peerResource();
    const teacher = await logIn(app, lab);
    const response = await teacher.get(`/api/createAlias/voisine/${oid}`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      success: true,
      clone: expect.objectContaining({
        aliasOf: `voisine/${oid}`,
        titre: `Exercice voisin ${oid}`,
        type: 'j3p',
        categories: [7],
        public: true,
      }),
    });
    const request = voisine.received.find((r) => r.path === `/api/public/${oid}`);
    expect(request?.method).toBe('GET');
    expect(request?.headers['x-apitoken']).toBeUndefined();
    const again = await graphql(teacher, ALIAS, { baseId: 'voisine', oid });
    expect(again.data?.createResourceAlias).toMatchObject({
      __typename: 'SaveResourceResult',
      created: false,
      resource: { aliasOf: `voisine/${oid}`, titre: `Exercice voisin ${oid}` },
    });
  });

  it('points to the source of a peer’s alias', async () => {
    const oid = peerResource({ aliasOf: 'troisieme/5' });
    const teacher = await logIn(app, lab);
    const created = await graphql(teacher, ALIAS, { baseId: 'voisine', oid });
    expect(created.data?.createResourceAlias.resource.aliasOf).toBe('troisieme/5');
  });

  it('answers 404 when the peer has no such public resource, 502 when it fails, 504 when it is silent', async () => {
    const teacher = await logIn(app, lab);
    const missing = await teacher.get('/api/createAlias/voisine/99999');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ success: false, error: 'La ressource voisine/99999 n’existe pas' });
    voisine.serve('/api/public/99998', 200, { success: false, error: 'bof' });
    expect((await teacher.get('/api/createAlias/voisine/99998')).status).toBe(502);
    const oid = peerResource();
    try {
      voisine.behave('silent');
      const silent = await teacher.get(`/api/createAlias/voisine/${oid}`);
      expect(silent.status).toBe(504);
      expect(
        errorCode(await graphql(teacher, ALIAS, { baseId: 'voisine', oid }), 'createResourceAlias'),
      ).toBe('UPSTREAM_TIMEOUT');
    } finally {
      voisine.behave('accept');
    }
  });

  it('answers 502 and stores nothing when the peer serves what no database should store (NUL, lone surrogates, absurd shapes)', async () => {
    const teacher = await logIn(app, lab);
    for (const fields of [
      { titre: 'Titre\u0000caché' },
      { titre: 'Titre\ud800caché' },
      { parametres: { 'cl\udc00': 'x' } },
      { parametres: { ['__proto__']: { polluted: true } } },
      { parametres: { deep: JSON.parse(`${'{"a":'.repeat(100)}1${'}'.repeat(100)}`) } },
    ]) {
      const oid = peerResource(fields);
      const count = await db.resource.count();
      const response = await teacher.get(`/api/createAlias/voisine/${oid}`);
      expect(response.status, response.text).toBe(502);
      expect(response.body.error).toMatch(/^Réponse invalide de la sésathèque voisine/);
      expect(await db.resource.count()).toBe(count);
    }
  });

  it('refuses anonymous callers before contacting the peer', async () => {
    const oid = peerResource();
    const response = await app.client().get(`/api/createAlias/voisine/${oid}`);
    expect(response.status).toBe(401);
    expect(
      errorCode(await graphql(app.client(), ALIAS, { baseId: 'voisine', oid }), 'createResourceAlias'),
    ).toBe('UNAUTHENTICATED');
    expect(voisine.received.some((r) => r.path === `/api/public/${oid}`)).toBe(false);
  });
});
