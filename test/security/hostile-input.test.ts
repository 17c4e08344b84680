/**
 * Input that cannot be valid, as an attacker sends it: prototype keys, absurd nesting, huge lists,
 * numbers beyond the database's integers, NUL characters, huge documents, malformed ids. Each gets a
 * 4xx JSON answer (REST) or a typed GraphQL error, never a 500, and changes nothing.
 */
import { describe, expect, it } from 'vitest';
import { db } from '../../src/db/client.ts';
import { type Browser, logIn, tokenHeaders } from '../support/actors.ts';
import type { TestApp } from '../support/app.ts';
import { databaseState } from '../support/database-state.ts';
import { type FakeLab, labUser } from '../support/fake-lab.ts';
import { appTest } from '../support/fixtures.ts';
import { createResource } from '../support/resources.ts';

const test = appTest.override({ labId: 'labH' });

let lab: FakeLab;
let app: TestApp;
let teacher: Browser;
let oid: number;

test.beforeAll(async ({ lab: startedLab, app: startedApp }) => {
  lab = startedLab;
  app = startedApp;
  teacher = await logIn(app, lab, labUser({ type: 1 }));
  oid = await createResource(app, { titre: 'Fractions' });
});

type Answer = {
  status: number;
  body: Record<string, unknown>;
  text: string;
  headers: Record<string, unknown>;
};

/** A REST answer to hostile input: a 4xx JSON failure, and the database unchanged. */
async function expectRefused(send: () => Promise<Answer>, status?: number) {
  const before = await databaseState();
  const response = await send();
  const label = `${response.status} ${response.text.slice(0, 300)}`;
  if (status) expect(response.status, label).toBe(status);
  else {
    expect(response.status, label).toBeGreaterThanOrEqual(400);
    expect(response.status, label).toBeLessThan(500);
  }
  expect(response.body.success, label).toBe(false);
  expect(typeof response.body.error, label).toBe('string');
  expect(response.body.error, label).not.toMatch(/Variable|\$[a-z]+|GraphQL|Int cannot|non-integer/i);
  expect(await databaseState()).toEqual(before);
  return response;
}

/** A GraphQL answer to hostile input: typed errors only (a code, never the masked "Unexpected error"). */
async function expectTypedError(query: string, variables: Record<string, unknown> = {}) {
  const before = await databaseState();
  const response = await app.client().post('/graphql').set(tokenHeaders).send({ query, variables });
  const label = `${response.status} ${response.text.slice(0, 300)}`;
  expect(response.status, label).toBeLessThan(500);
  const body = response.body as {
    data?: Record<string, { __typename?: string; code?: string } | null> | null;
    errors?: { message: string; extensions?: { code?: string } }[];
  };
  // A typed error is a result-union member implementing `Error`, or an error with a code.
  const members = Object.values(body.data ?? {}).filter((value) => value?.__typename?.endsWith('Error'));
  const codes = (body.errors ?? []).map((error) => error.extensions?.code);
  expect(members.length + codes.length, label).toBeGreaterThan(0);
  for (const code of codes) expect(code, label).toMatch(/^[A-Z_]+$/);
  expect(response.text, label).not.toMatch(/Unexpected error/);
  expect(await databaseState()).toEqual(before);
  return body;
}

describe('the fingerprint that proves nothing was written', () => {
  it('sees any write, even one that changes no count', async () => {
    const before = await databaseState();
    await db.resource.update({ where: { oid }, data: { resume: `changé ${Date.now()}` } });
    const after = await databaseState();
    expect(after.Resource).not.toBe(before.Resource);
    expect(after.Resource!.split(':')[0]).toBe(before.Resource!.split(':')[0]);
    // The harvest entry of the resource follows it (the database's triggers), restamped when the
    // write falls in another second than its last stamp.
    expect({ ...after, Resource: '', HarvestEntry: '' }).toEqual({
      ...before,
      Resource: '',
      HarvestEntry: '',
    });
  });
});

describe('prototype keys', () => {
  const pollution = ['__proto__', 'constructor', 'prototype'];
  const objectMembers = ['toString', 'hasOwnProperty', 'valueOf'];
  const json = (key: string, value: string) => `{"${key}": ${value}, "titre": "T", "type": "url"}`;

  it.each(pollution)('refuses a body holding the key %s, on every kind of route (400)', async (key) => {
    const posts: Array<[string, string]> = [
      ['/api/ressource', json(key, '{"isAdmin": true}')],
      ['/api/groupe', `{"nom": "G", "${key}": {"ouvert": true}}`],
      ['/api/personne/add', `{"origine": "o", "idOrigine": "1", "nom": "N", "prenom": "P", "${key}": {}}`],
      ['/api/ressource/addRelations', `{"oid": ${oid}, "relations": [], "${key}": {}}`],
      ['/api/ressource/registerListener', `{"action": "add", "baseId": "x", "rids": [], "${key}": {}}`],
      ['/api/ressource/externalUpdate', `{"ref": {"aliasOf": "x/1", "${key}": {}}}`],
      ['/api/checkLab', `{"baseUrl": "http://x/", "sesatheques": [], "${key}": {}}`],
      ['/api/notifyError', `{"message": "m", "${key}": {"polluted": true}}`],
    ];
    for (const [path, body] of posts) {
      await expectRefused(
        () => app.client().post(path).set(tokenHeaders).set('Content-Type', 'application/json').send(body),
        400,
      );
      expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    }
    await expectRefused(
      () =>
        app
          .client()
          .get('/api/liste')
          .query({ json: `{"${key}": {"publie": [false]}, "nb": 5}` }),
      400,
    );
    await expectTypedError(
      'mutation ($input: ResourceInput!) { saveResource(input: $input) { __typename } }',
      {
        input: JSON.parse(json(key, '{"isAdmin": true}')),
      },
    );
  });

  it.each(objectMembers)(
    'treats %s as an ordinary unknown property (a warning, not a crash)',
    async (key) => {
      const response = await app
        .client()
        .post('/api/ressource')
        .set(tokenHeaders)
        .send({ [key]: 'x', titre: 'Membres', type: 'url', categories: [7] });
      expect(response.status, response.text).toBe(200);
      expect(response.body.warnings).toEqual([`Propriété ${key} inconnue, ignorée`]);
      const group = await teacher.post('/api/groupe').send({ nom: `G ${key} ${Date.now()}`, [key]: 1 });
      expect(group.status, group.text).toBeLessThan(500);
      const person = await app
        .client()
        .post('/api/personne/add')
        .set(tokenHeaders)
        .send({ origine: 'o', idOrigine: key, nom: 'N', prenom: 'P', roles: [key] });
      expect(person.status, person.text).toBe(400);
      const search = await app
        .client()
        .get('/api/liste')
        .query({ [key]: '1' });
      expect(search.status, search.text).toBeLessThan(500);
      const filtered = await app
        .client()
        .get('/api/liste')
        .query({ json: JSON.stringify({ filters: [{ index: key, values: [1] }] }) });
      expect(filtered.status, filtered.text).toBe(400);
      const ordered = await app.client().get('/api/liste').query({ orderBy: key });
      expect(ordered.status, ordered.text).toBe(400);
    },
  );
});

describe('absurd shapes', () => {
  it('refuses JSON nested 10,000 levels deep, through REST and GraphQL', async () => {
    // Written by hand: the test client's own JSON encoder cannot serialise such a value.
    const deep = `${'{"a":'.repeat(10_000)}"fond"${'}'.repeat(10_000)}`;
    const post = (path: string, body: string) =>
      app.client().post(path).set(tokenHeaders).set('Content-Type', 'application/json').send(body);
    await expectRefused(
      () => post('/api/ressource', `{"titre": "T", "type": "url", "parametres": ${deep}}`),
      400,
    );
    await expectRefused(() => post('/api/notifyError', `{"deep": ${deep}}`), 400);
    const before = await databaseState();
    const response = await post(
      '/graphql',
      `{"query": "mutation ($input: ResourceInput!) { saveResource(input: $input) { __typename } }", "variables": {"input": {"titre": "T", "type": "url", "parametres": ${deep}}}}`,
    );
    expect(response.status, response.text.slice(0, 200)).toBe(400);
    expect(response.body.errors[0].extensions.code).toBe('INVALID_INPUT');
    expect(await databaseState()).toEqual(before);
  });

  it('refuses a list filter of 10,000 values, through GraphQL variables and REST json=', async () => {
    const values = Array.from({ length: 10_000 }, (_, i) => i + 1);
    await expectTypedError('query ($f: [ResourceFilter!]) { searchResources(filters: $f) { __typename } }', {
      f: [{ index: 'oid', values }],
    });
    // 10,000 values do not fit in a URL; what fits must be refused by the service, not the database.
    const many = Array.from({ length: 1500 }, (_, i) => i + 1);
    await expectRefused(
      () =>
        app
          .client()
          .get('/api/liste')
          .query({ json: JSON.stringify({ filters: [{ index: 'oid', values: many }] }) }),
      400,
    );
    await expectRefused(
      () =>
        app
          .client()
          .get('/api/liste')
          .query({ oid: many.join(',') }),
      400,
    );
  });

  it('answers a 1 MB GraphQL document with a GraphQL error, not a crash', async () => {
    const huge = [
      `{ viewer { kind } } # ${'x'.repeat(1_000_000)}`,
      `{ groupByName(nom: "${'x'.repeat(1_000_000)}") { __typename } }`,
      `{ ${'viewer { kind } '.repeat(60_000)} }`,
    ];
    for (const query of huge) {
      const response = await app.client().post('/graphql').send({ query });
      expect(response.status, response.text.slice(0, 200)).toBeLessThan(500);
      expect(response.body.errors?.length, response.text.slice(0, 200)).toBeGreaterThan(0);
      expect(response.text).not.toMatch(/Unexpected error/);
    }
  });
});

describe('numbers beyond the database integers', () => {
  const huge = '99999999999999999999';

  it.each([
    `/api/ressource/repo/${huge}`,
    `/api/ressource/repo/2147483648`,
    `/api/ressource/${huge}`,
    `/api/public/${huge}`,
    `/api/public/repo/${huge}`,
    `/api/groupe/${huge}`,
    `/api/groupe/byId/2147483648`,
    `/api/clone/${huge}`,
    `/api/forkAlias/${huge}`,
    `/api/createAlias/repo/${huge}`,
    `/api/public/getRid?id=${huge}`,
  ])('GET %s is a 404, with a French message', async (path) => {
    await expectRefused(() => app.client().get(path).set(tokenHeaders), 404);
  });

  it('jstree answers its error node for a huge id', async () => {
    const response = await app.client().get('/api/jstree').query({ ref: huge }).set(tokenHeaders);
    expect(response.status, response.text).toBe(200);
    expect(response.body).toEqual([{ text: expect.stringMatching(/^Erreur : .*n’existe pas/) }]);
  });

  it('DELETE of a huge oid is a 404', async () => {
    await expectRefused(() => app.client().delete(`/api/ressource/${huge}`).set(tokenHeaders), 404);
    await expectRefused(() => app.client().delete(`/api/ressource/repo/${huge}`).set(tokenHeaders), 404);
  });

  it('refuses huge numbers in posted resources and filters (400)', async () => {
    for (const body of [
      { oid: 2 ** 31, titre: 'T', type: 'url' },
      { oid: 1e20, titre: 'T', type: 'url' },
      { titre: 'T', type: 'url', categories: [2 ** 40] },
      { titre: 'T', type: 'url', typePedagogiques: [2 ** 53 + 2] },
      { titre: 'T', type: 'url', relations: [[2 ** 35, 'repo/1']] },
    ]) {
      await expectRefused(() => app.client().post('/api/ressource').set(tokenHeaders).send(body), 400);
    }
    for (const filters of [
      [{ index: 'oid', values: [2 ** 31] }],
      [{ index: 'categories', values: [1e20] }],
      [{ index: 'restriction', values: [2 ** 53] }],
    ]) {
      await expectRefused(
        () =>
          app
            .client()
            .get('/api/liste')
            .query({ json: JSON.stringify({ filters }) }),
        400,
      );
    }
    await expectRefused(() => app.client().get('/api/liste').query({ oid: huge }), 400);
  });

  it('keeps list sizes and offsets sane whatever the numbers', async () => {
    for (const query of [{ nb: huge }, { start: huge }, { nb: '-5' }, { skip: '1e9' }]) {
      const response = await app.client().get('/api/liste').query(query);
      expect(response.status, `${JSON.stringify(query)} ${response.text.slice(0, 200)}`).toBeLessThan(500);
    }
  });

  it('GraphQL fields taking any id answer a typed error for huge ids', async () => {
    for (const id of [huge, `repo/${huge}`, '2147483648']) {
      await expectTypedError('query ($id: String!) { resourceById(id: $id) { __typename } }', { id });
      await expectTypedError('query ($id: String!) { resourceRid(id: $id) { __typename } }', { id });
      await expectTypedError('query ($id: String!) { tree(ref: $id) { __typename } }', { id });
      await expectTypedError('mutation ($id: String!) { deleteResource(id: $id) { __typename } }', { id });
    }
    await expectTypedError('query { resource(oid: 2147483648) { __typename } }');
  });
});

describe('NUL characters', () => {
  const nul = 'a\u0000b';

  it('refuses them in bodies, paths and queries (400), on every database', async () => {
    await expectRefused(() => teacher.post('/api/groupe').send({ nom: nul }), 400);
    await expectRefused(
      () => app.client().post('/api/ressource').set(tokenHeaders).send({ titre: nul, type: 'url' }),
      400,
    );
    await expectRefused(
      () =>
        app
          .client()
          .post('/api/personne/add')
          .set(tokenHeaders)
          .send({ origine: 'o', idOrigine: '1', nom: nul, prenom: 'p' }),
      400,
    );
    await expectRefused(() => app.client().get('/api/groupe/byNom/a%00b'), 400);
    await expectRefused(() => app.client().get('/api/ressource/x/a%00b').set(tokenHeaders), 400);
    await expectRefused(() => app.client().get('/api/liste').query({ titre: nul }), 400);
    await expectRefused(() => app.client().get('/api/liste').query({ fulltext: nul }), 400);
    await expectRefused(() => app.client().post('/api/connexion').send({ origine: nul, token: nul }), 400);
    await expectRefused(
      () => app.client().get('/api/personne/checkPid').set(tokenHeaders).query({ pid: nul, nom: nul }),
      400,
    );
  });

  it('refuses them in GraphQL variables and in literals', async () => {
    await expectTypedError('query ($nom: String!) { groupByName(nom: $nom) { __typename } }', { nom: nul });
    await expectTypedError('{ groupByName(nom: "a\\u0000b") { __typename } }');
    await expectTypedError('query ($pid: String!) { person(pid: $pid) { __typename } }', { pid: nul });
  });
});

describe('ill-formed Unicode (a lone surrogate: valid JSON, not valid text)', () => {
  // Written as JSON escapes, the way such text arrives: no UTF-8 byte sequence encodes it.
  const lone = 'abc\ud800def';
  const json = (fields: Record<string, unknown>) => JSON.stringify(fields);

  it('refuses it in bodies and JSON queries (400 naming the field), on every database', async () => {
    const post = (path: string, body: Record<string, unknown>) => () =>
      app.client().post(path).set(tokenHeaders).set('Content-Type', 'application/json').send(json(body));
    const refused = await expectRefused(post('/api/ressource', { titre: lone, type: 'url' }), 400);
    expect(refused.body.error).toMatch(/titre/);
    await expectRefused(post('/api/ressource', { titre: 'T', type: 'url', resume: 'x\udfffy' }), 400);
    await expectRefused(post('/api/ressource', { titre: 'T', type: 'url', parametres: { [lone]: 1 } }), 400);
    await expectRefused(
      () =>
        teacher
          .post('/api/groupe')
          .set('Content-Type', 'application/json')
          .send(json({ nom: lone })),
      400,
    );
    await expectRefused(
      post('/api/personne/add', { origine: 'o', idOrigine: '1', nom: lone, prenom: 'p' }),
      400,
    );
    await expectRefused(
      () =>
        app
          .client()
          .get('/api/liste')
          .query({ json: '{"filters":[{"index":"titre","values":["\\ud800"]}]}' }),
      400,
    );
  });

  it('refuses it in GraphQL variables with a typed error naming the field', async () => {
    const body = await expectTypedError(
      'mutation ($input: ResourceInput!) { saveResource(input: $input) { __typename } }',
      { input: { titre: lone, type: 'url' } },
    );
    expect(JSON.stringify(body)).toMatch(/titre/);
    await expectTypedError('query ($nom: String!) { groupByName(nom: $nom) { __typename } }', { nom: lone });
    // In a literal: as a GraphQL escape, and as the character itself (a JSON escape in the body).
    await expectTypedError('{ groupByName(nom: "abc\\ud800def") { __typename } }');
    await expectTypedError(`{ groupByName(nom: "${lone}") { __typename } }`);
  });

  it('stores well-formed text exactly, noncharacters and astral characters included', async () => {
    const titre = `Sonde \uFFFE\uFFFF 😀 \u{10FFFF} e\u0301 \u0001 ${Date.now()}`;
    const saved = await app.client().post('/api/ressource').set(tokenHeaders).send({ titre, type: 'url' });
    expect(saved.status, saved.text).toBe(200);
    const read = await app.client().get(`/api/ressource/${saved.body.oid}`).set(tokenHeaders);
    expect(read.body.titre).toBe(titre);
  });
});

describe('what a lab answers', () => {
  it('a lab naming its user with a NUL or an absurd name a lone surrogate or an absurd name gets a 502, and nobody is stored', async () => {
    for (const user of [
      { oid: 'nul', nom: 'a\u0000b', prenom: 'P', type: 1 },
      { oid: 'lone', nom: 'a\ud800b', prenom: 'P', type: 1 },
      { oid: 'long', nom: 'n'.repeat(5000), prenom: 'P', type: 1 },
      { oid: 'x'.repeat(2000), nom: 'N', prenom: 'P', type: 1 },
    ]) {
      const token = lab.rawToken(200, JSON.stringify({ ok: true, utilisateur: user }), 'application/json');
      const response = await expectRefused(
        () => app.client().post('/api/connexion').send({ origine: lab.baseUrl, token }),
        502,
      );
      expect(response.headers['set-cookie']).toBeUndefined();
    }
  });
});

describe('malformed ids', () => {
  it.each(['cle/', '/', 'x/y/z/w', 'cle', '', ' ', 'repo/', '/1', 'repo/abc'])(
    'GraphQL fields taking any id answer a typed error for %j',
    async (id) => {
      await expectTypedError('query ($id: String!) { resourceById(id: $id) { __typename } }', { id });
      await expectTypedError('query ($id: String!) { resourceRid(id: $id) { __typename } }', { id });
      await expectTypedError('query ($id: String!) { tree(ref: $id) { __typename } }', { id });
      await expectTypedError('mutation ($id: String!) { deleteResource(id: $id) { __typename } }', { id });
    },
  );

  it.each([
    ['cle', ''],
    ['', ''],
    ['repo', ''],
    ['repo', 'abc'],
    ['x/y', 'z'],
  ])('GraphQL fields taking an origin pair answer a typed error for %j / %j', async (origine, idOrigine) => {
    const variables = { origine, idOrigine };
    await expectTypedError(
      'query ($origine: String!, $idOrigine: String!) { resourceByOrigin(origine: $origine, idOrigine: $idOrigine) { __typename } }',
      variables,
    );
    await expectTypedError(
      'query ($origine: String!, $idOrigine: String!) { publicResourceByOrigin(origine: $origine, idOrigine: $idOrigine) { __typename } }',
      variables,
    );
  });

  it.each(['abc', '-1', '1.5', '{"$ne":1}', '0x10', '1e3', ' 1', '00'])(
    'a REST path id %j that is not an oid is a 404 with a French message',
    async (id) => {
      const path = encodeURIComponent(id);
      for (const url of [
        `/api/ressource/${path}`,
        `/api/public/${path}`,
        `/api/groupe/${path}`,
        `/api/groupe/byId/${path}`,
        `/api/clone/${path}`,
        `/api/forkAlias/${path}`,
        `/api/createAlias/repo/${path}`,
      ]) {
        const response = await expectRefused(() => app.client().get(url).set(tokenHeaders), 404);
        expect(response.body.error, url).toMatch(/n’existe pas/);
      }
    },
  );
});
