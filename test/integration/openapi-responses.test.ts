/**
 * Real answers against the OpenAPI document: every route of the route table is driven (as an
 * anonymous, token or session caller, to success and to failure), and each answer's status must be
 * documented for its route and its body must match the schema documented for that status (ajv,
 * JSON Schema 2020-12). A route the document describes wrongly, or a row no case reaches, fails.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import formats from 'ajv-formats';
import type { Response } from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { db } from '../../src/db/client.ts';
import { legacyRoutes } from '../../src/rest/routes/index.ts';
import { type Browser, logIn, tokenHeaders } from '../support/actors.ts';
import { startApp, type TestApp } from '../support/app.ts';
import { type FakeLab, labUser, startFakeLab } from '../support/fake-lab.ts';
import { type FakePeer, startFakePeer } from '../support/fake-peer.ts';
import { groupName } from '../support/groups.ts';
import { createResource } from '../support/resources.ts';

let app: TestApp;
let lab: FakeLab;
/** A second lab that accepts any post: the destination of deferPost. */
let postLab: FakePeer;
let document: { paths: Record<string, Record<string, { responses: Record<string, ResponseDoc> }>> };
let ajv: Ajv2020;
let teacher: Browser;
let other: Browser;
let teacherPid: string;
let teacherName: string;

interface ResponseDoc {
  content?: Record<string, { schema: unknown }>;
}

/** Route key ("get /api/ressource/{oid}") → statuses checked against the document. */
const checked = new Map<string, number[]>();

/**
 * The documented path of an Express path: rows whose paths differ only by parameter names share
 * one path item, under one name.
 */
function documentedPath(expressPath: string): string {
  const template = expressPath.replace(/:\w+/g, '{}');
  const path = Object.keys(document.paths).find((key) => key.replace(/\{\w+\}/g, '{}') === template);
  expect(path, `${expressPath} not documented`).toBeDefined();
  return path!;
}

const escapePointer = (segment: string) =>
  encodeURIComponent(segment.replace(/~/g, '~0').replace(/\//g, '~1'));

beforeAll(async () => {
  lab = await startFakeLab('labDocs');
  postLab = await startFakePeer('labPosts');
  app = await startApp({
    labs: [lab.config(), { baseId: postLab.baseId, baseUrl: postLab.baseUrl }],
    peers: [{ baseId: 'voisine', baseUrl: 'http://127.0.0.1:9/voisine/' }],
    http: { deferPostTimeoutMs: 1000 },
  });
  document = (await app.client().get('/api/openapi.json')).body;
  ajv = new Ajv2020({ strict: false, allErrors: true });
  // ajv-formats is CommonJS: its function is the module's `default` under Node's ESM loader.
  formats.default(ajv);
  ajv.addSchema(document, 'openapi.json');
  const user = labUser({ type: 1, nom: 'Documenté', prenom: 'Dora' });
  teacher = await logIn(app, lab, user);
  teacherPid = `${lab.baseId}/${user.oid}`;
  teacherName = user.nom;
  other = await logIn(app, lab, labUser({ type: 1 }));
});

afterAll(async () => {
  await app?.close();
  await Promise.all([lab?.close(), postLab?.close()]);
});

/**
 * Checks one answer of `route` ("get /api/x/:id", as in the table) against the document, after
 * checking it is the answer the case expects.
 */
function conforms(route: string, response: Response, expected: number) {
  const [method, expressPath] = route.split(' ') as [string, string];
  const path = documentedPath(expressPath);
  const where = `${method.toUpperCase()} ${expressPath} → ${response.status} ${JSON.stringify(response.body)}`;
  expect(response.status, where).toBe(expected);
  const responses = document.paths[path]?.[method]?.responses;
  expect(responses, `${where}: route not documented`).toBeDefined();
  const documented = responses![String(response.status)];
  expect(documented, `${where}: status not documented`).toBeDefined();
  const media = documented!.content?.['application/json'];
  if (media) {
    expect(response.headers['content-type'], where).toMatch(/application\/json/);
    const pointer = [
      'paths',
      path,
      method,
      'responses',
      String(response.status),
      'content',
      'application/json',
      'schema',
    ]
      .map(escapePointer)
      .join('/');
    const validate = ajv.getSchema(`openapi.json#/${pointer}`);
    expect(validate, `${where}: no schema at ${pointer}`).toBeDefined();
    const valid = validate!(response.body);
    expect(valid, `${where}\n${JSON.stringify(validate!.errors, null, 2)}`).toBe(true);
  } else {
    expect(response.text ?? '', `${where}: documented without a body`).toBe('');
  }
  const key = `${method} ${path}`;
  checked.set(key, [...(checked.get(key) ?? []), response.status]);
}

const anonymous = () => app.client();
const token = () => ({
  get: (path: string) => app.client().get(path).set(tokenHeaders),
  post: (path: string) => app.client().post(path).set(tokenHeaders),
  delete: (path: string) => app.client().delete(path).set(tokenHeaders),
});
const unique = () => `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 7)}`;
const group = async (fields: Record<string, unknown> = {}) => {
  const response = await teacher.post('/api/groupe').send({ nom: groupName('Docs'), ...fields });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body as { oid: number; nom: string };
};
const at = (name: string) => encodeURIComponent(name);

// In order: the coverage check comes last.
describe('every route against the document', { shuffle: false }, () => {
  describe('persons and sessions', () => {
    it('POST and GET /api/connexion, GET /api/deconnexion', async () => {
      const login = { origine: lab.baseUrl, token: lab.tokenFor(labUser()) };
      conforms('post /api/connexion', await app.browser().post('/api/connexion').send(login), 200);
      conforms(
        'post /api/connexion',
        await anonymous().post('/api/connexion').send({ origine: 'http://nowhere.test/', token: 'x' }),
        403,
      );
      conforms(
        'post /api/connexion',
        await anonymous().post('/api/connexion').send({ origine: lab.baseUrl, token: lab.refusingToken() }),
        401,
      );
      const query = new URLSearchParams({ origine: lab.baseUrl, token: lab.tokenFor(labUser()) });
      conforms('get /api/connexion', await app.browser().get(`/api/connexion?${query}`), 200);
      conforms('get /api/connexion', await anonymous().get('/api/connexion'), 400);
      const leaving = await logIn(app, lab);
      conforms(
        'get /api/deconnexion',
        await leaving.get('/api/deconnexion').set('Origin', 'https://elsewhere.example'),
        403,
      );
      conforms('get /api/deconnexion', await leaving.get('/api/deconnexion'), 200);
    });

    it('POST /api/dev/connexion: a 404 when off, a session when configured', async () => {
      conforms(
        'post /api/dev/connexion',
        await anonymous().post('/api/dev/connexion').send({ pid: 'dev/1' }),
        404,
      );
      const development = await startApp({ devLogin: true });
      try {
        conforms(
          'post /api/dev/connexion',
          await development
            .browser()
            .post('/api/dev/connexion')
            .send({ pid: 'dev/1', nom: 'Dev', roles: ['formateur'] }),
          200,
        );
      } finally {
        await development.close();
      }
    });

    it('GET /api/personne/current, /me, /checkPid; POST /api/personne/add', async () => {
      conforms('get /api/personne/current', await anonymous().get('/api/personne/current'), 200);
      conforms('get /api/personne/current', await teacher.get('/api/personne/current'), 200);
      conforms('get /api/personne/current', await anonymous().get('/api/personne/current?x=%00'), 400);
      conforms('get /api/personne/me', await anonymous().get('/api/personne/me'), 200);
      conforms('get /api/personne/me', await teacher.get('/api/personne/me'), 200);
      conforms('get /api/personne/me', await token().get('/api/personne/me'), 200);
      conforms('get /api/personne/me', await anonymous().get('/api/personne/me?x=%00'), 400);
      const check = `/api/personne/checkPid?pid=${at(teacherPid)}&nom=${at(teacherName)}`;
      conforms('get /api/personne/checkPid', await token().get(check), 200);
      conforms('get /api/personne/checkPid', await anonymous().get(check), 401);
      conforms(
        'get /api/personne/checkPid',
        await token().get(`/api/personne/checkPid?pid=${at(teacherPid)}&nom=Autre`),
        404,
      );
      const person = {
        origine: 'docs',
        idOrigine: unique(),
        nom: 'Ajoutée',
        prenom: 'Anne',
        roles: ['formateur'],
      };
      conforms('post /api/personne/add', await token().post('/api/personne/add').send(person), 200);
      conforms('post /api/personne/add', await anonymous().post('/api/personne/add').send(person), 401);
      conforms('post /api/personne/add', await teacher.post('/api/personne/add').send(person), 403);
      conforms(
        'post /api/personne/add',
        await token().post('/api/personne/add').send({ origine: 'docs' }),
        400,
      );
    });

    it('GET /api/personne/export', async () => {
      const route = 'get /api/personne/export';
      conforms(route, await teacher.get('/api/personne/export'), 200);
      conforms(route, await token().get(`/api/personne/export?pid=${at(teacherPid)}`), 200);
      conforms(route, await anonymous().get('/api/personne/export'), 401);
      conforms(route, await other.get(`/api/personne/export?pid=${at(teacherPid)}`), 403);
      conforms(route, await token().get('/api/personne/export?pid=docs/inconnu'), 404);
      conforms(route, await token().get('/api/personne/export?pid=%20'), 400);
    });

    it('POST /api/personne/erase', async () => {
      const pid = `docs/erase-${unique()}`;
      await token()
        .post('/api/personne/add')
        .send({ origine: 'docs', idOrigine: pid.slice(5), nom: 'Effacée', prenom: 'Eve' });
      const erase = (caller: ReturnType<typeof token> | Browser, body: object) =>
        caller.post('/api/personne/erase').send(body);
      conforms('post /api/personne/erase', await erase(token(), { pid, dryRun: true }), 200);
      conforms('post /api/personne/erase', await erase(token(), { pid }), 200);
      conforms('post /api/personne/erase', await erase(token(), { pid }), 404);
      conforms('post /api/personne/erase', await erase(token(), {}), 400);
      conforms('post /api/personne/erase', await erase(anonymous(), { pid }), 401);
      conforms('post /api/personne/erase', await erase(teacher, { pid }), 403);
    });
  });

  describe('groups', () => {
    it('POST /api/groupe, GET by oid and by name', async () => {
      const nom = groupName('Docs');
      conforms('post /api/groupe', await teacher.post('/api/groupe').send({ nom, ouvert: true }), 200);
      conforms('post /api/groupe', await teacher.post('/api/groupe').send({ nom }), 409);
      conforms('post /api/groupe', await anonymous().post('/api/groupe').send({ nom: groupName() }), 401);
      const { oid } = await group();
      for (const path of ['/api/groupe/byId/:oid', '/api/groupe/:oid']) {
        conforms(`get ${path}`, await anonymous().get(path.replace(':oid', String(oid))), 200);
        conforms(`get ${path}`, await teacher.get(`${path.replace(':oid', String(oid))}?format=full`), 200);
        conforms(`get ${path}`, await anonymous().get(path.replace(':oid', '999999')), 404);
      }
      conforms(
        'get /api/groupe/byNom/:nom',
        await anonymous().get(`/api/groupe/byNom/${at(nom)}?format=full`),
        200,
      );
      conforms('get /api/groupe/byNom/:nom', await anonymous().get('/api/groupe/byNom/Inconnu'), 404);
    });

    it('ajouter, ignorer, quitter, suivre, rejoindre, DELETE', async () => {
      const nom = groupName('Ajout');
      conforms('get /api/groupe/ajouter/:nom', await teacher.get(`/api/groupe/ajouter/${at(nom)}`), 200);
      conforms('get /api/groupe/ajouter/:nom', await teacher.get(`/api/groupe/ajouter/${at(nom)}`), 409);
      conforms('get /api/groupe/ajouter/:nom', await anonymous().get(`/api/groupe/ajouter/${at(nom)}x`), 401);
      conforms('get /api/groupe/ignorer/:nom', await teacher.get(`/api/groupe/ignorer/${at(nom)}`), 200);
      conforms('get /api/groupe/ignorer/:nom', await teacher.get(`/api/groupe/ignorer/${at(nom)}`), 409);
      conforms('get /api/groupe/ignorer/:nom', await anonymous().get(`/api/groupe/ignorer/${at(nom)}`), 401);
      for (const prefix of ['/groupe', '/api/groupe']) {
        const { nom: open } = await group({ ouvert: true, public: true });
        conforms(`get ${prefix}/rejoindre/:nom`, await other.get(`${prefix}/rejoindre/${at(open)}`), 200);
        conforms(
          `get ${prefix}/rejoindre/:nom`,
          await other.get(`${prefix}/rejoindre/Inconnu${unique()}`),
          404,
        );
        conforms(`get ${prefix}/suivre/:nom`, await other.get(`${prefix}/suivre/${at(open)}`), 200);
        conforms(`get ${prefix}/suivre/:nom`, await anonymous().get(`${prefix}/suivre/${at(open)}`), 401);
        conforms(`get ${prefix}/quitter/:nom`, await other.get(`${prefix}/quitter/${at(open)}`), 200);
        conforms(`get ${prefix}/quitter/:nom`, await anonymous().get(`${prefix}/quitter/${at(open)}`), 401);
      }
      const { nom: doomed } = await group();
      conforms('delete /api/groupe/:nom', await other.delete(`/api/groupe/${at(doomed)}`), 403);
      conforms('delete /api/groupe/:nom', await anonymous().delete(`/api/groupe/${at(doomed)}`), 401);
      conforms('delete /api/groupe/:nom', await teacher.delete(`/api/groupe/${at(doomed)}`), 200);
      conforms('delete /api/groupe/:nom', await teacher.delete(`/api/groupe/${at(doomed)}`), 404);
    });

    it.each(['admin', 'membre', 'suivis', 'perso', 'ouverts', 'publics'])(
      'GET /api/groupes/%s',
      async (list) => {
        await group({ ouvert: true, public: true });
        conforms(`get /api/groupes/${list}`, await teacher.get(`/api/groupes/${list}`), 200);
        conforms(`get /api/groupes/${list}`, await anonymous().get(`/api/groupes/${list}`), 401);
      },
    );
  });

  describe('resources', () => {
    it('POST /api/ressource and /api/ressource/addRelations', async () => {
      const fields = { titre: 'Écrite', type: 'url', categories: [7], origine: 'docs', idOrigine: unique() };
      conforms('post /api/ressource', await token().post('/api/ressource').send(fields), 200);
      conforms('post /api/ressource', await token().post('/api/ressource?format=ref').send(fields), 200);
      conforms('post /api/ressource', await anonymous().post('/api/ressource').send(fields), 401);
      conforms('post /api/ressource', await token().post('/api/ressource').send({ titre: 'Sans type' }), 400);
      const oid = await createResource(app, {});
      const target = await createResource(app, {});
      const relations = { oid, relations: [[1, `repo/${target}`]] };
      conforms(
        'post /api/ressource/addRelations',
        await token().post('/api/ressource/addRelations').send(relations),
        200,
      );
      conforms(
        'post /api/ressource/addRelations',
        await anonymous().post('/api/ressource/addRelations').send(relations),
        401,
      );
      conforms(
        'post /api/ressource/addRelations',
        await token()
          .post('/api/ressource/addRelations')
          .send({ ...relations, oid: 999999 }),
        404,
      );
    });

    it('GET and DELETE /api/ressource/…, the /public/ routes', async () => {
      const idOrigine = unique();
      const oid = await createResource(app, { origine: 'docs', idOrigine, auteurs: [teacherPid] });
      const hidden = await createResource(app, { restriction: 2, titre: 'Réservée à des groupes' });
      for (const query of ['', '?format=ref', '?format=full&droits=1']) {
        conforms('get /api/ressource/:oid', await token().get(`/api/ressource/${oid}${query}`), 200);
        conforms(
          'get /api/ressource/:origine/:idOrigine',
          await teacher.get(`/api/ressource/docs/${idOrigine}${query}`),
          200,
        );
        conforms('get /api/public/:oid', await anonymous().get(`/api/public/${oid}${query}`), 200);
        conforms(
          'get /api/public/:origine/:idOrigine',
          await anonymous().get(`/api/public/docs/${idOrigine}${query}`),
          200,
        );
      }
      conforms('get /api/ressource/:oid', await anonymous().get('/api/ressource/999999'), 404);
      conforms('get /api/ressource/:oid', await anonymous().get(`/api/ressource/${hidden}`), 404);
      conforms('get /api/ressource/:oid', await other.get(`/api/ressource/${hidden}`), 403);
      conforms(
        'get /api/ressource/:origine/:idOrigine',
        await token().get('/api/ressource/docs/inconnue'),
        404,
      );
      conforms('get /api/public/:oid', await anonymous().get(`/api/public/${hidden}`), 404);
      conforms(
        'get /api/public/:origine/:idOrigine',
        await anonymous().get('/api/public/docs/inconnue'),
        404,
      );
      const first = await anonymous().get(`/api/public/${oid}`);
      const again = await anonymous().get(`/api/public/${oid}`).set('If-None-Match', first.headers.etag!);
      conforms('get /api/public/:oid', again, 304);

      conforms('get /api/public/getRid', await anonymous().get(`/api/public/getRid?id=${hidden}`), 200);
      conforms('get /api/public/getRid', await anonymous().get('/api/public/getRid?id=999999'), 404);

      conforms('delete /api/public/:oid', await token().delete(`/api/public/${oid}`), 401);
      conforms(
        'delete /api/public/:origine/:idOrigine',
        await token().delete(`/api/public/docs/${idOrigine}`),
        401,
      );
      conforms('delete /api/ressource/:oid', await other.delete(`/api/ressource/${oid}`), 403);
      conforms('delete /api/ressource/:oid', await anonymous().delete(`/api/ressource/${oid}`), 401);
      conforms(
        'delete /api/ressource/:origine/:idOrigine',
        await token().delete(`/api/ressource/docs/${idOrigine}`),
        200,
      );
      conforms(
        'delete /api/ressource/:origine/:idOrigine',
        await token().delete(`/api/ressource/docs/${idOrigine}`),
        404,
      );
      conforms('delete /api/ressource/:oid', await token().delete(`/api/ressource/${hidden}`), 200);
      conforms('delete /api/ressource/:oid', await token().delete(`/api/ressource/${hidden}`), 404);
    });

    it('GET /api/clone, /api/createAlias, /api/forkAlias', async () => {
      const source = await createResource(app, { titre: 'Source', type: 'em', parametres: { p: 1 } });
      conforms('get /api/clone/:oid', await teacher.get(`/api/clone/${source}`), 200);
      conforms('get /api/clone/:oid', await anonymous().get(`/api/clone/${source}`), 401);
      conforms('get /api/clone/:oid', await teacher.get('/api/clone/999999'), 404);
      conforms(
        'get /api/createAlias/:baseId/:oid',
        await teacher.get(`/api/createAlias/repo/${source}`),
        200,
      );
      conforms(
        'get /api/createAlias/:baseId/:oid',
        await teacher.get(`/api/createAlias/inconnue/${source}`),
        400,
      );
      const alias = (await db.resource.findFirstOrThrow({ where: { aliasOf: `repo/${source}` } })).oid;
      conforms('get /api/forkAlias/:oid', await teacher.get(`/api/forkAlias/${alias}`), 200);
      conforms('get /api/forkAlias/:oid', await teacher.get(`/api/forkAlias/${alias}`), 400);
    });
  });

  describe('lists and trees', () => {
    it('GET /api/liste, /api/liste/perso, /api/liste/auteurs, /api/autocomplete', async () => {
      await createResource(app, { titre: 'Listée', type: 'em', auteurs: [teacherPid] });
      for (const format of ['ref', 'light', 'full']) {
        conforms('get /api/liste', await anonymous().get(`/api/liste?type=em&nb=2&format=${format}`), 200);
        conforms('get /api/liste/perso', await teacher.get(`/api/liste/perso?format=${format}`), 200);
      }
      conforms('get /api/liste', await anonymous().get('/api/liste?filters=pas-du-json'), 400);
      conforms('get /api/liste/perso', await anonymous().get('/api/liste/perso'), 401);
      conforms(
        'get /api/liste/auteurs',
        await anonymous().get(`/api/liste/auteurs?pids=${at(teacherPid)},x/y`),
        200,
      );
      conforms('get /api/liste/auteurs', await anonymous().get('/api/liste/auteurs'), 400);
      conforms('get /api/autocomplete/:pattern', await anonymous().get('/api/autocomplete/Li'), 200);
      conforms('get /api/autocomplete/:pattern', await anonymous().get('/api/autocomplete/%00'), 400);
    });

    it('GET /api/jstree', async () => {
      const leaf = await createResource(app, { titre: 'Feuille' });
      const tree = await createResource(app, {
        titre: 'Arbre',
        type: 'arbre',
        enfants: [{ titre: 'Feuille', type: 'url', aliasOf: `repo/${leaf}` }],
      });
      conforms('get /api/jstree', await anonymous().get(`/api/jstree?ref=${tree}`), 200);
      conforms('get /api/jstree', await anonymous().get(`/api/jstree?ref=${tree}&children=1`), 200);
      // A failure is a node of its own, with 200 (jstree shows nothing on another status).
      conforms('get /api/jstree', await anonymous().get('/api/jstree?ref=999999'), 200);
      conforms('get /api/jstree', await anonymous().get('/api/jstree?ref=%00'), 400);
    });
  });

  describe('peers and labs', () => {
    it('registerListener, externalUpdate', async () => {
      const oid = await createResource(app, { titre: 'Écoutée' });
      const listen = { action: 'add', baseId: 'voisine', rids: [`repo/${oid}`, 'repo/999999'] };
      conforms(
        'post /api/ressource/registerListener',
        await token().post('/api/ressource/registerListener').send(listen),
        200,
      );
      conforms(
        'post /api/ressource/registerListener',
        await anonymous().post('/api/ressource/registerListener').send(listen),
        401,
      );
      conforms(
        'post /api/ressource/registerListener',
        await token().post('/api/ressource/registerListener').send({ action: 'nothing' }),
        400,
      );
      const ref = {
        ref: { aliasOf: `ailleurs/${unique()}`, titre: 'Changée', type: 'url' },
        eventId: unique(),
      };
      conforms(
        'post /api/ressource/externalUpdate',
        await token().post('/api/ressource/externalUpdate').send(ref),
        200,
      );
      conforms(
        'post /api/ressource/externalUpdate',
        await anonymous().post('/api/ressource/externalUpdate').send(ref),
        401,
      );
    });

    it('checkLab, checkRepo, baseId', async () => {
      const self = { baseId: 'repo', baseUrl: 'http://repo.test/' };
      conforms(
        'post /api/checkLab',
        await anonymous()
          .post('/api/checkLab')
          .send({ baseUrl: lab.baseUrl, sesatheques: [self] }),
        200,
      );
      conforms(
        'post /api/checkLab',
        await anonymous()
          .post('/api/checkLab')
          .send({ baseUrl: 'http://inconnu.test/', sesatheques: [self] }),
        400,
      );
      conforms(
        'post /api/checkRepo',
        await anonymous()
          .post('/api/checkRepo')
          .send({ sesatheques: [self] }),
        200,
      );
      conforms(
        'post /api/checkRepo',
        await anonymous()
          .post('/api/checkRepo')
          .send({ sesatheques: [{ baseId: 'repo', baseUrl: 'http://autre.test/' }] }),
        400,
      );
      conforms('get /api/baseId', await anonymous().get(`/api/baseId?baseUrl=${at(lab.baseUrl)}`), 200);
      conforms(
        'get /api/baseId',
        await anonymous().get(`/api/baseId?baseUrl=${at('http://inconnu.test/')}`),
        404,
      );
      conforms('get /api/baseId/:id', await anonymous().get('/api/baseId/repo'), 200);
      conforms('get /api/baseId/:id', await anonymous().get('/api/baseId/inconnue'), 404);
    });

    it('deferPost, notifyError', async () => {
      conforms(
        'post /api/deferPost',
        await anonymous()
          .post('/api/deferPost')
          .send({ deferUrl: `${postLab.baseUrl}api/retour`, note: 1 }),
        200,
      );
      conforms(
        'post /api/deferPost',
        await anonymous().post('/api/deferPost').send({ deferUrl: 'http://ailleurs.test/x' }),
        403,
      );
      conforms('post /api/deferPost', await anonymous().post('/api/deferPost').send({}), 400);
      conforms(
        'post /api/notifyError',
        await anonymous().post('/api/notifyError').send({ message: 'panne' }),
        200,
      );
      conforms(
        'post /api/notifyError',
        await anonymous()
          .post('/api/notifyError')
          .set('Content-Type', 'application/json')
          .send('{"a":"\\u0000"}'),
        400,
      );
    });
  });

  describe('coverage', () => {
    /** Routes that never succeed by design: `/public/` runs as an anonymous caller, who may not delete. */
    const NEVER_SUCCEED = new Set(['delete /api/public/{oid}', 'delete /api/public/{origine}/{idOrigine}']);

    it('every route of the table was checked, with a success and a failure', () => {
      const missing: string[] = [];
      for (const route of legacyRoutes) {
        if (route.method === 'options') continue;
        for (const path of route.paths) {
          const key = `${route.method} ${documentedPath(path)}`;
          const statuses = checked.get(key) ?? [];
          const succeeded = statuses.some((status) => status < 400);
          const failed = statuses.some((status) => status >= 400);
          if ((!succeeded && !NEVER_SUCCEED.has(key)) || !failed)
            missing.push(`${key}: ${statuses.join(', ') || 'none'}`);
        }
      }
      expect(missing).toEqual([]);
    });
  });
});
