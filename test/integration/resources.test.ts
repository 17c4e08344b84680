/** Resource behaviour: identification, save modes, versioning, validation, formats, public routes, copies. */
import { beforeAll, describe, expect, it } from 'vitest';
import { db, onStatement } from '../../src/db/client.ts';
import { tokenHeaders } from '../support/actors.ts';
import type { TestApp } from '../support/app.ts';
import type { FakeLab } from '../support/fake-lab.ts';
import { appTest } from '../support/fixtures.ts';
import { graphql } from '../support/graphql.ts';
import { type Cast, createResource } from '../support/resources.ts';

const test = appTest.override({ labId: 'labRes' });

let _lab: FakeLab;
let app: TestApp;
let cast: Cast;

test.beforeAll(async ({ lab: startedLab, app: startedApp, cast: madeCast }) => {
  _lab = startedLab;
  app = startedApp;
  cast = madeCast;
});

const unique = (prefix: string) =>
  `${prefix}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 7)}`;
const author = () => cast.browsers.author;
const get = (url: string) => author().get(url);

describe('creating and identifying', () => {
  it('gives a resource without origin origine = baseId, idOrigine = oid, rid = baseId/oid, the creator as author', async () => {
    const created = await author().post('/api/ressource').send({ titre: 'Sans origine', type: 'url' });
    expect(created.body).toEqual({ success: true, oid: expect.any(Number) });
    const { oid } = created.body;
    const resource = (await get(`/api/ressource/${oid}`)).body;
    expect(resource).toMatchObject({
      oid,
      rid: `repo/${oid}`,
      origine: 'repo',
      idOrigine: String(oid),
      auteurs: [cast.pids.author],
      version: 1,
      inc: 0,
      langue: 'fra',
      publie: false,
      restriction: 0,
    });
  });

  it('finds a resource by oid, origin pair, rid and read key', async () => {
    const idOrigine = unique('ext');
    const oid = await createResource(app, {
      origine: 'editeur',
      idOrigine,
      auteurs: [cast.pids.author],
      restriction: 3,
    });
    const { cle } = (await get(`/api/ressource/${oid}`)).body;
    expect(cle).toMatch(/^[\w-]{20,}$/);
    for (const url of [
      `/api/ressource/${oid}`,
      `/api/ressource/editeur/${idOrigine}`,
      `/api/ressource/repo/${oid}`,
    ]) {
      expect((await get(url)).body).toMatchObject({ success: true, oid });
    }
    // The read key opens it to any authenticated caller, with R only.
    const byKey = await cast.browsers.outsider.get(`/api/ressource/cle/${cle}`).query({ droits: 1 });
    expect(byKey.body).toMatchObject({ oid, _droits: 'R' });
    expect((await cast.browsers.outsider.get(`/api/ressource/${oid}`)).status).toBe(403);
    expect((await app.client().get(`/api/ressource/cle/${cle}`)).status).toBe(404);
    expect((await get('/api/ressource/cle/wrong-key')).status).toBe(404);
  });

  it('updates the resource of an existing origin pair instead of duplicating it', async () => {
    const idOrigine = unique('pair');
    const first = await author()
      .post('/api/ressource')
      .send({ origine: 'lab', idOrigine, titre: 'Un', type: 'url' });
    const second = await author()
      .post('/api/ressource')
      .send({ origine: 'lab', idOrigine, titre: 'Deux', type: 'url' });
    expect(second.body.oid).toBe(first.body.oid);
    expect((await get(`/api/ressource/lab/${idOrigine}`)).body.titre).toBe('Deux');
    expect(await db.resource.count({ where: { origine: 'lab', idOrigine } })).toBe(1);
  });

  it.each([
    [{ oid: 99999999, titre: 'x' }, 404],
    [{ origine: 'repo', idOrigine: '99999999', titre: 'x', type: 'url' }, 404],
    [{ rid: 'repo/99999999', titre: 'x' }, 404],
    [{ rid: 'ailleurs/12', titre: 'x' }, 400],
    [{ origine: 'seule', titre: 'x', type: 'url' }, 400],
  ])('refuses a save that designates nothing usable (%j → %i)', async (body, status) => {
    const count = await db.resource.count();
    const response = await author().post('/api/ressource').send(body);
    expect(response.status).toBe(status);
    expect(response.body.success).toBe(false);
    expect(await db.resource.count()).toBe(count);
  });

  it('keeps a read key only while the resource is not public and published', async () => {
    const oid = await createResource(app, { auteurs: [cast.pids.author], restriction: 0, publie: true });
    expect((await get(`/api/ressource/${oid}`)).body.cle).toBeNull();
    await author().post('/api/ressource').send({ oid, restriction: 2 });
    const key = (await get(`/api/ressource/${oid}`)).body.cle;
    expect(key).toEqual(expect.any(String));
    await author().post('/api/ressource').send({ oid, description: 'x' });
    expect((await get(`/api/ressource/${oid}`)).body.cle).toBe(key);
    await author().post('/api/ressource').send({ oid, restriction: 0 });
    expect((await get(`/api/ressource/${oid}`)).body.cle).toBeNull();
  });

  it('stores strings byte for byte (HTML, quotes, emoji, right-to-left marks)', async () => {
    const titre = `<b>"Fractions" & l’été</b> 🍕 \u200Fمرحبا\u200E 'x'`;
    const description = '<script>alert(1)</script>\n\ttabulé';
    const { body } = await author().post('/api/ressource').send({ titre, description, type: 'url' });
    const stored = (await get(`/api/ressource/${body.oid}`)).body;
    expect(Buffer.from(stored.titre).equals(Buffer.from(titre))).toBe(true);
    expect(stored.description).toBe(description);
  });
});

describe('merge and overwrite', () => {
  async function fresh() {
    return createResource(app, {
      auteurs: [cast.pids.author],
      titre: 'Titre',
      resume: 'Résumé',
      description: 'Description',
      categories: [7],
      niveaux: ['6e'],
      groupes: [cast.group],
    });
  }

  it('merges when neither titre nor categories is posted', async () => {
    const oid = await fresh();
    await author().post('/api/ressource').send({ oid, description: 'Nouvelle' });
    expect((await get(`/api/ressource/${oid}`)).body).toMatchObject({
      titre: 'Titre',
      resume: 'Résumé',
      description: 'Nouvelle',
      categories: [7],
      niveaux: ['6e'],
    });
  });

  it('overwrites when titre or categories is posted: unposted content returns to defaults, ownership stays', async () => {
    const oid = await fresh();
    await author().post('/api/ressource').send({ oid, titre: 'Autre' });
    expect((await get(`/api/ressource/${oid}`)).body).toMatchObject({
      titre: 'Autre',
      resume: '',
      description: '',
      categories: [],
      niveaux: [],
      publie: false,
      auteurs: [cast.pids.author],
      groupes: [cast.group],
    });
  });

  it.each(['merge', 'partial'])('merges with %s=1 even when titre is posted', async (flag) => {
    const oid = await fresh();
    await author()
      .post('/api/ressource')
      .query({ [flag]: 1 })
      .send({ oid, titre: 'Fusion' });
    expect((await get(`/api/ressource/${oid}`)).body).toMatchObject({ titre: 'Fusion', resume: 'Résumé' });
  });

  it('lets only authors change authors, contributors and groups', async () => {
    const oid = await createResource(app, {
      auteurs: [cast.pids.author],
      contributeurs: [cast.pids.contributor],
    });
    const authors = await cast.browsers.contributor
      .post('/api/ressource')
      .send({ oid, auteurs: [cast.pids.contributor] });
    expect(authors.status).toBe(403);
    const groups = await cast.browsers.contributor
      .post('/api/ressource')
      .send({ oid, groupes: [cast.group] });
    expect(groups.status).toBe(403);
    // Posting the same lists back is not a change.
    const same = await cast.browsers.contributor
      .post('/api/ressource')
      .send({ oid, auteurs: [cast.pids.author], description: 'ok' });
    expect(same.status).toBe(200);
    const byAuthor = await author().post('/api/ressource').send({ oid, contributeurs: [] });
    expect(byAuthor.status).toBe(200);
    expect((await get(`/api/ressource/${oid}`)).body.contributeurs).toEqual([]);
  });
});

describe('versioning', () => {
  it('bumps inc for text changes, archives and bumps version for structural changes, ignores posted counters', async () => {
    const oid = await createResource(app, { auteurs: [cast.pids.author], parametres: { a: 1 } });
    await author().post('/api/ressource').send({ oid, resume: 'nouveau', version: 99, inc: 42 });
    expect((await get(`/api/ressource/${oid}`)).body).toMatchObject({ version: 1, inc: 1, archiveOid: null });
    await author()
      .post('/api/ressource')
      .send({ oid, parametres: { a: 2 } });
    const after = (await get(`/api/ressource/${oid}`)).body;
    expect(after).toMatchObject({ version: 2, inc: 2, parametres: { a: 2 }, archiveOid: expect.any(Number) });
    const archive = await db.resourceArchive.findUniqueOrThrow({ where: { oid: after.archiveOid } });
    expect(archive).toMatchObject({ resourceOid: oid, version: 1 });
    expect(archive.snapshot).toMatchObject({ parametres: { a: 1 }, resume: 'nouveau', version: 1 });
    await author().post('/api/ressource').send({ oid, description: 'même version' });
    expect((await get(`/api/ressource/${oid}`)).body).toMatchObject({ version: 2, inc: 3 });
  });
});

describe('validation', () => {
  it('lists every problem at once (400) and writes nothing: the wire format’s, then the rules’', async () => {
    const oid = await createResource(app, { auteurs: [cast.pids.author] });
    const before = (await get(`/api/ressource/${oid}`)).body;
    // Types are the REST layer's (the legacy wire format), all at once before GraphQL sees them.
    const wrongTypes = await author()
      .post('/api/ressource')
      .send({
        oid,
        titre: 123,
        categories: '7',
        relations: {},
        restriction: 'sept',
        publie: 'oui',
        niveaux: [1],
      });
    expect(wrongTypes.status).toBe(400);
    for (const field of ['titre', 'categories', 'relations', 'restriction', 'publie', 'niveaux[0]']) {
      expect(wrongTypes.body.error).toContain(`${field} :`);
    }
    // The rules are the service's, all at once too, and the same for a GraphQL client.
    const broken = {
      oid,
      restriction: 7,
      type: 'error',
      relations: [[99, 'repo/1']],
      titre: 'x'.repeat(501),
    };
    const wrongValues = await author().post('/api/ressource').send(broken);
    expect(wrongValues.status).toBe(400);
    const problems = [
      'restriction : doit valoir 0, 1, 2 ou 3',
      'type : le type « error » est réservé',
      'relations[0] : type de relation inconnu (99)',
      'titre : au plus 500 caractères',
    ];
    for (const problem of problems) expect(wrongValues.body.error).toContain(problem);
    const graphqlInput = { ...broken, relations: [{ predicate: 99, rid: 'repo/1' }] };
    const viaGraphQL = await graphql(
      author(),
      'mutation ($i: ResourceInput!) { saveResource(input: $i) { ... on Error { code message } } }',
      { i: graphqlInput },
    );
    expect(viaGraphQL.data?.saveResource.code).toBe('INVALID_INPUT');
    for (const problem of problems) expect(viaGraphQL.data?.saveResource.message).toContain(problem);
    expect((await get(`/api/ressource/${oid}`)).body).toEqual(before);
  });

  it.each([
    [{ relations: [[99, 'repo/1']] }, 'relations[0] : type de relation inconnu (99)'],
    [{ relations: [[1, 'pas-un-rid']] }, 'relations[0] : rid cible invalide (pas-un-rid)'],
    [{ relations: [[1]] }, 'relations[0]'],
    [{ type: 'error' }, 'type : le type « error » est réservé'],
    [{ aliasOf: 'x' }, 'aliasOf : doit être un rid'],
  ])('rejects %j', async (patch, message) => {
    const response = await author()
      .post('/api/ressource')
      .send({ titre: 'T', type: 'url', ...patch });
    expect(response.status).toBe(400);
    expect(response.body.error).toContain(message);
  });

  it('rejects a relation of a resource to itself', async () => {
    const oid = await createResource(app, { auteurs: [cast.pids.author] });
    const response = await author()
      .post('/api/ressource')
      .send({ oid, relations: [[1, `repo/${oid}`]] });
    expect(response.status).toBe(400);
    expect(response.body.error).toBe('relations[0] : une ressource ne peut être en relation avec elle-même');
  });

  it('requires a type and a title to create', async () => {
    const response = await author().post('/api/ressource').send({ resume: 'seul' });
    expect(response.status).toBe(400);
    expect(response.body.error).toBe('type : obligatoire ; titre : obligatoire pour créer une ressource');
  });

  it('warns about unknown properties, authors and groups, and drops them', async () => {
    const response = await author()
      .post('/api/ressource')
      .send({
        titre: 'Avec avertissements',
        type: 'url',
        couleur: 'bleu',
        auteurs: [cast.pids.author, 'inconnu/1'],
        groupes: ['Groupe fantôme'],
      });
    expect(response.body).toEqual({
      success: true,
      oid: expect.any(Number),
      warnings: [
        'Propriété couleur inconnue, ignorée',
        'Auteur inconnu/1 inconnu, ignoré',
        'Groupe Groupe fantôme inexistant, ignoré',
      ],
    });
    expect((await get(`/api/ressource/${response.body.oid}`)).body).toMatchObject({
      auteurs: [cast.pids.author],
      groupes: [],
    });
  });

  it('reports problems as a typed GraphQL error with the list', async () => {
    const response = await graphql(
      author(),
      'mutation { saveResource(input: { titre: "T", type: "error", restriction: 9, aliasOf: "x" }) { __typename ... on InvalidInputError { code problems } } }',
    );
    expect(response.data?.saveResource).toEqual({
      __typename: 'InvalidInputError',
      code: 'INVALID_INPUT',
      problems: [
        // In the order of the input type's fields (the printed schema sorts them).
        'aliasOf : doit être un rid de la forme baseId/oid',
        'restriction : doit valoir 0, 1, 2 ou 3',
        'type : le type « error » est réservé aux éléments de liste en erreur',
      ],
    });
  });
});

describe('formats', () => {
  let oid: number;
  let target: number;
  beforeAll(async () => {
    target = await createResource(app, { titre: 'Cible', type: 'em', auteurs: [cast.pids.coauthor] });
    oid = await createResource(app, {
      titre: 'Formats',
      auteurs: [cast.pids.author, cast.pids.coauthor],
      contributeurs: [cast.pids.contributor],
      relations: [
        [1, `repo/${target}`],
        [10, 'ailleurs/5'],
      ],
      restriction: 3,
    });
  });

  it('format=ref has exactly the Ref fields plus _droits', async () => {
    const { body } = await get(`/api/ressource/${oid}`).query({ format: 'ref' });
    expect(Object.keys(body).sort()).toEqual(
      [
        'success',
        'aliasOf',
        'titre',
        'resume',
        'description',
        'commentaires',
        'type',
        'categories',
        'public',
        'cle',
        '_droits',
      ].sort(),
    );
    expect(body).toMatchObject({ aliasOf: `repo/${oid}`, public: false, _droits: 'RW' });
  });

  it('a repeated format answers in its first value, as the operation selected (it failed with 500)', async () => {
    const ref = await get(`/api/ressource/${oid}?format=ref&format=ref`);
    expect(ref.status).toBe(200);
    expect(ref.body).toMatchObject({ aliasOf: `repo/${oid}`, _droits: 'RW' });
    expect(ref.body.oid).toBeUndefined();
    const full = await get(`/api/ressource/${oid}?format=full&format=ref`);
    expect(full.body).toMatchObject({ oid, _auteurs: ['Alice Auteur', 'Bob Coauteur'] });
    const saved = await author()
      .post('/api/ressource/addRelations?format=ref&format=ref')
      .send({ oid, relations: [] });
    expect(saved.body).toMatchObject({ aliasOf: `repo/${oid}` });
  });

  it('format=full resolves authors, contributors and relations', async () => {
    const { body } = await get(`/api/ressource/${oid}`).query({ format: 'full' });
    expect(body).toMatchObject({
      _auteurs: ['Alice Auteur', 'Bob Coauteur'],
      _contributeurs: ['Claire Contrib'],
      _relations: [
        { predicate: 1, rid: `repo/${target}`, titre: 'Cible', type: 'em' },
        { predicate: 10, rid: 'ailleurs/5', titre: null, type: null },
      ],
      relations: [
        [1, `repo/${target}`],
        [10, 'ailleurs/5'],
      ],
    });
    expect(body._droits).toBeUndefined();
  });

  it('format=full does not disclose the title of a related resource the viewer may not read', async () => {
    const secret = await createResource(app, {
      titre: 'Secret',
      auteurs: [cast.pids.coauthor],
      restriction: 3,
    });
    const visible = await createResource(app, {
      auteurs: [cast.pids.author],
      relations: [[1, `repo/${secret}`]],
    });
    const seenByAuthor = await get(`/api/ressource/${visible}`).query({ format: 'full' });
    expect(seenByAuthor.body._relations).toEqual([
      { predicate: 1, rid: `repo/${secret}`, titre: null, type: null },
    ]);
    const seenByOwner = await cast.browsers.coauthor
      .get(`/api/ressource/${visible}`)
      .query({ format: 'full' });
    expect(seenByOwner.body._relations).toEqual([
      { predicate: 1, rid: `repo/${secret}`, titre: 'Secret', type: 'url' },
    ]);
  });

  it('droits=1 adds _droits to the resource; the default format has no _droits', async () => {
    expect((await get(`/api/ressource/${oid}`)).body._droits).toBeUndefined();
    expect((await get(`/api/ressource/${oid}`).query({ droits: 1 })).body._droits).toBe('RW');
  });

  it('reading one resource with format=full costs a bounded number of SQL statements', async () => {
    const count = async (resourceOid: number) => {
      const statements: string[] = [];
      const stop = onStatement((sql) => statements.push(sql));
      try {
        expect((await get(`/api/ressource/${resourceOid}`).query({ format: 'full', droits: 1 })).status).toBe(
          200,
        );
      } finally {
        stop();
      }
      return statements.length;
    };
    const small = await createResource(app, {
      auteurs: [cast.pids.author],
      relations: [[1, `repo/${target}`]],
    });
    const large = await createResource(app, {
      auteurs: [cast.pids.author, cast.pids.coauthor, cast.pids.contributor, cast.pids.member],
      contributeurs: [cast.pids.outsider, cast.pids.pupil],
      relations: Array.from({ length: 8 }, (_, i) => [1, `repo/${target + i}`]),
      categories: [1, 2, 3, 4],
      groupes: [cast.group],
    });
    const [smallCount, largeCount] = [await count(small), await count(large)];
    expect(largeCount).toBe(smallCount);
    expect(smallCount).toBeLessThanOrEqual(22);
  });
});

describe('public routes', () => {
  it('serve only public and published resources, ignoring the session', async () => {
    const open = await createResource(app, { auteurs: [cast.pids.author] });
    const hidden = await createResource(app, { auteurs: [cast.pids.author], restriction: 3 });
    const draft = await createResource(app, { auteurs: [cast.pids.author], publie: false });
    const idOrigine = unique('pub');
    const byPair = await createResource(app, { auteurs: [cast.pids.author], origine: 'pub', idOrigine });
    const served = await author().get(`/api/public/${open}`).query({ droits: 1 });
    expect(served.status).toBe(200);
    expect(served.body._droits).toBe('R');
    expect(served.headers['access-control-allow-origin']).toBe('*');
    expect((await app.client().get(`/api/public/pub/${idOrigine}`)).body.oid).toBe(byPair);
    for (const oid of [hidden, draft, 99999999]) {
      const response = await author().get(`/api/public/${oid}`).set(tokenHeaders);
      expect(response.status).toBe(404);
      expect(response.body.success).toBe(false);
    }
  });

  it('answer anonymous calls of /api/ressource as the public route', async () => {
    const open = await createResource(app, { auteurs: [cast.pids.author] });
    const hidden = await createResource(app, { auteurs: [cast.pids.author], restriction: 3 });
    expect((await app.client().get(`/api/ressource/${open}`)).status).toBe(200);
    expect((await app.client().get(`/api/ressource/${hidden}`)).status).toBe(404);
  });

  it('are cacheable: Cache-Control, ETag, 304 on a match, a new ETag after a write', async () => {
    const oid = await createResource(app, { auteurs: [cast.pids.author] });
    const first = await app.client().get(`/api/public/${oid}`);
    expect(first.headers['cache-control']).toBe('public, max-age=60');
    const etag = first.headers.etag as string;
    expect(etag).toBeDefined();
    const again = await app.client().get(`/api/public/${oid}`).set('If-None-Match', etag);
    expect(again.status).toBe(304);
    await author().post('/api/ressource').send({ oid, resume: 'changé' });
    const changed = await app.client().get(`/api/public/${oid}`).set('If-None-Match', etag);
    expect(changed.status).toBe(200);
    expect(changed.body.resume).toBe('changé');
    expect(changed.headers.etag).not.toBe(etag);
  });

  it('deny deletion, whatever the credentials', async () => {
    const oid = await createResource(app, { auteurs: [cast.pids.author] });
    for (const call of [
      app.client().delete(`/api/public/${oid}`).set(tokenHeaders),
      author().delete(`/api/public/repo/${oid}`),
    ]) {
      const response = await call;
      expect(response.status).toBe(401);
      expect(response.body.success).toBe(false);
    }
    expect((await app.client().get(`/api/public/${oid}`)).status).toBe(200);
  });

  it('getRid maps any id to the rid, even of a private resource', async () => {
    const idOrigine = unique('rid');
    const oid = await createResource(app, {
      auteurs: [cast.pids.author],
      restriction: 3,
      origine: 'o',
      idOrigine,
    });
    for (const id of [String(oid), `repo/${oid}`, `o/${idOrigine}`]) {
      const response = await app.client().get('/api/public/getRid').query({ id });
      expect(response.body).toEqual({ success: true, rid: `repo/${oid}` });
    }
    expect((await app.client().get('/api/public/getRid').query({ id: 'o/nothing' })).status).toBe(404);
    expect((await app.client().get('/api/public/getRid')).body).toEqual({
      success: false,
      error: 'id manquant',
    });
  });
});

describe('deletion', () => {
  it('echoes the id as passed, by oid and by pair, and 404s afterwards', async () => {
    const idOrigine = unique('del');
    const byPair = await createResource(app, { auteurs: [cast.pids.author], origine: 'd', idOrigine });
    const response = await author().delete(`/api/ressource/d/${idOrigine}`);
    expect(response.body).toEqual({ success: true, deleted: `d/${idOrigine}` });
    expect((await author().get(`/api/ressource/${byPair}`)).status).toBe(404);
    expect((await author().delete(`/api/ressource/${byPair}`)).status).toBe(404);
  });
});

describe('relations', () => {
  it('addRelations appends to the resource named by oid, pair or ref, and needs update rights', async () => {
    const idOrigine = unique('rel');
    const oid = await createResource(app, {
      auteurs: [cast.pids.author],
      origine: 'r',
      idOrigine,
      relations: [[1, 'x/1']],
    });
    expect(
      (
        await author()
          .post('/api/ressource/addRelations')
          .send({ oid, relations: [[4, 'x/2']] })
      ).body,
    ).toEqual({
      success: true,
      oid,
    });
    await author()
      .post('/api/ressource/addRelations')
      .send({ origine: 'r', idOrigine, relations: [[5, 'x/3']] });
    await author()
      .post('/api/ressource/addRelations')
      .send({ ref: `repo/${oid}`, relations: [[1, 'x/1']] });
    expect((await get(`/api/ressource/${oid}`)).body.relations).toEqual([
      [1, 'x/1'],
      [4, 'x/2'],
      [5, 'x/3'],
    ]);
    const denied = await cast.browsers.outsider
      .post('/api/ressource/addRelations')
      .send({ oid, relations: [[1, 'x/9']] });
    expect(denied.status).toBe(403);
    const invalid = await author()
      .post('/api/ressource/addRelations')
      .send({ oid, relations: [[77, 'x/9']] });
    expect(invalid.status).toBe(400);
    const ref = await author()
      .post('/api/ressource/addRelations')
      .query({ format: 'ref' })
      .send({ oid, relations: [] });
    expect(ref.body).toMatchObject({ aliasOf: `repo/${oid}`, _droits: 'RWD' });
    expect(
      (await app.client().options('/api/ressource/addRelations')).headers['access-control-allow-methods'],
    ).toBe('POST OPTIONS');
    expect((await app.client().options('/api/ressource')).headers['access-control-allow-methods']).toBe(
      'POST OPTIONS',
    );
  });
});

describe('copies and aliases', () => {
  it('clone of an editable type: a copy titled "(copie)", the caller as author, a relation to the source', async () => {
    const source = await createResource(app, {
      titre: 'Source',
      type: 'url',
      auteurs: [cast.pids.coauthor],
      parametres: { u: 1 },
    });
    const response = await author().get(`/api/clone/${source}`);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      titre: 'Source (copie)',
      type: 'url',
      parametres: { u: 1 },
      auteurs: [cast.pids.author],
      auteursParents: [cast.pids.coauthor],
      aliasOf: null,
      relations: [[4, `repo/${source}`]],
    });
    expect(response.body.oid).not.toBe(source);
  });

  it('clone of another type: the caller’s alias, reused on the next clone', async () => {
    const source = await createResource(app, {
      titre: 'Exercice',
      type: 'em',
      auteurs: [cast.pids.coauthor],
    });
    const first = await author().get(`/api/clone/${source}`);
    expect(first.body).toMatchObject({
      aliasOf: `repo/${source}`,
      titre: 'Exercice',
      auteurs: [cast.pids.author],
    });
    const second = await author().get(`/api/clone/${source}`);
    expect(second.body.oid).toBe(first.body.oid);
    // An alias of a type this repository cannot edit is never updated.
    const update = await author().post('/api/ressource').send({ oid: first.body.oid, titre: 'Non' });
    expect(update.status).toBe(403);
  });

  it('createAlias answers {clone: Ref}; forkAlias turns the alias into a copy keeping its oid', async () => {
    const source = await createResource(app, {
      titre: 'À dériver',
      type: 'em',
      auteurs: [cast.pids.coauthor],
      parametres: { p: 1 },
    });
    const alias = await author().get(`/api/createAlias/repo/${source}`);
    expect(alias.body).toEqual({
      success: true,
      clone: expect.objectContaining({
        aliasOf: `repo/${source}`,
        titre: 'À dériver',
        type: 'em',
        _droits: 'RD',
      }),
    });
    const aliasOid = (await db.resource.findFirstOrThrow({ where: { aliasOf: `repo/${source}` } })).oid;
    const fork = await author().get(`/api/forkAlias/${aliasOid}`);
    expect(fork.status).toBe(200);
    expect(fork.body).toMatchObject({
      oid: aliasOid,
      aliasOf: null,
      parametres: { p: 1 },
      auteurs: [cast.pids.author],
      auteursParents: [cast.pids.coauthor],
    });
    expect((await author().post('/api/ressource').send({ oid: aliasOid, titre: 'Oui' })).status).toBe(200);
    expect((await author().get(`/api/forkAlias/${aliasOid}`)).status).toBe(400);
  });

  it('refuse pupils, anonymous callers, unreadable sources and unknown repositories', async () => {
    const source = await createResource(app, { type: 'url', auteurs: [cast.pids.coauthor] });
    const hidden = await createResource(app, { type: 'url', auteurs: [cast.pids.coauthor], restriction: 3 });
    expect((await cast.browsers.pupil.get(`/api/clone/${source}`)).status).toBe(403);
    expect((await app.client().get(`/api/clone/${source}`)).status).toBe(401);
    expect((await author().get(`/api/clone/${hidden}`)).status).toBe(403);
    expect((await author().get(`/api/clone/99999999`)).status).toBe(404);
    const elsewhere = await author().get(`/api/createAlias/inconnue/${source}`);
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.body.error).toBe('Sésathèque inconnue inconnue sur http://repo.test/');
  });
});

describe('GraphQL resource operations', () => {
  it('resolve authors, contributors and groups as objects', async () => {
    const oid = await createResource(app, {
      auteurs: [cast.pids.author],
      contributeurs: [cast.pids.contributor],
      groupes: [cast.group],
      restriction: 2,
    });
    const response = await graphql(
      author(),
      `query ($oid: Int!) { resource(oid: $oid) { ... on Resource {
         authors { person { pid nom } } contributors { person { prenom } } readerGroups { group { nom } } rid
       } } }`,
      { oid },
    );
    expect(response.data?.resource).toEqual({
      authors: [{ person: { pid: cast.pids.author, nom: 'Auteur' } }],
      contributors: [{ person: { prenom: 'Claire' } }],
      readerGroups: [{ group: { nom: cast.group } }],
      rid: `repo/${oid}`,
    });
  });

  it('read by any id and copy through mutations', async () => {
    const idOrigine = unique('gql');
    const oid = await createResource(app, {
      auteurs: [cast.pids.author],
      origine: 'g',
      idOrigine,
      type: 'em',
    });
    const byId = await graphql(
      author(),
      'query ($id: String!) { resourceById(id: $id) { ... on Resource { oid } } }',
      {
        id: `g/${idOrigine}`,
      },
    );
    expect(byId.data?.resourceById).toEqual({ oid });
    const rid = await graphql(
      app.client(),
      'query ($id: String!) { resourceRid(id: $id) { ... on QueryResourceRidSuccess { data } } }',
      {
        id: String(oid),
      },
    );
    expect(rid.data?.resourceRid).toEqual({ data: `repo/${oid}` });
    const alias = await graphql(
      cast.browsers.outsider,
      'mutation ($oid: Int!) { cloneResource(oid: $oid) { ... on SaveResourceResult { created resource { aliasOf authors { person { pid } } } } } }',
      { oid },
    );
    expect(alias.data?.cloneResource).toEqual({
      created: true,
      resource: { aliasOf: `repo/${oid}`, authors: [{ person: { pid: cast.pids.outsider } }] },
    });
  });
});
