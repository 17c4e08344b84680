/**
 * Person routes (`personne/add`, `checkPid`, `current`, `me`) and their GraphQL operations, for
 * anonymous, pupil, teacher, administrator and API-token callers.
 */
import { describe, expect, it } from 'vitest';
import { db } from '../../src/db/client.ts';
import { ERROR_STATUS, type ErrorCode } from '../../src/errors.ts';
import { addPerson, type Browser, logIn, logInWithRoles, tokenHeaders } from '../support/actors.ts';
import { API_TOKEN, type TestApp } from '../support/app.ts';
import { type FakeLab, labUser } from '../support/fake-lab.ts';
import { appTest } from '../support/fixtures.ts';
import { errorCode, type GraphQLResponse, graphql } from '../support/graphql.ts';
import { createResource } from '../support/resources.ts';

const test = appTest.override({ labId: 'labP' });

let lab: FakeLab;
let app: TestApp;
let pupil: Browser;
let teacher: Browser;
let admin: Browser;
const teacherUser = labUser({ type: 1, nom: 'Dupré', prenom: 'Élise' });

test.beforeAll(async ({ lab: startedLab, app: startedApp }) => {
  lab = startedLab;
  app = startedApp;
  pupil = await logIn(app, lab, labUser({ type: 0 }));
  teacher = await logIn(app, lab, teacherUser);
  admin = (await logInWithRoles(app, lab, ['admin'])).browser;
});

type Actor = 'anonymous' | 'pupil' | 'teacher' | 'admin' | 'token';
const actors: Actor[] = ['anonymous', 'pupil', 'teacher', 'admin', 'token'];

/** A caller and the headers it sends. */
function as(actor: Actor) {
  switch (actor) {
    case 'anonymous':
      return { caller: app.client(), headers: {} };
    case 'token':
      return { caller: app.client(), headers: tokenHeaders };
    case 'pupil':
      return { caller: pupil, headers: {} };
    case 'teacher':
      return { caller: teacher, headers: {} };
    case 'admin':
      return { caller: admin, headers: {} };
  }
}

const uniqueId = () => `id${Date.now().toString(36)}${Math.random().toString(36).slice(2, 7)}`;

describe('POST /api/personne/add', () => {
  it('creates a person with pid origine/idOrigine and answers {success, oid, pid}', async () => {
    const idOrigine = uniqueId();
    const response = await app
      .client()
      .post('/api/personne/add')
      .set(tokenHeaders)
      .send({
        origine: 'ext',
        idOrigine,
        nom: 'Martin',
        prenom: 'Zoé',
        email: 'zoe@example.test',
        roles: ['editeur'],
      });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ success: true, oid: expect.any(Number), pid: `ext/${idOrigine}` });
    const stored = await db.person.findUniqueOrThrow({
      where: { oid: response.body.oid },
      include: { roles: true },
    });
    expect(stored).toMatchObject({
      pid: `ext/${idOrigine}`,
      nom: 'Martin',
      prenom: 'Zoé',
      email: 'zoe@example.test',
    });
    expect(stored.roles.map((r) => [r.role, r.source])).toEqual([['editeur', 'admin']]);
  });

  it('updates the same pid instead of duplicating it, and replaces administrator roles', async () => {
    const idOrigine = uniqueId();
    const first = await addPerson(app, {
      origine: 'ext',
      idOrigine,
      nom: 'A',
      prenom: 'B',
      roles: ['editeur'],
    });
    const second = await addPerson(app, {
      origine: 'ext',
      idOrigine,
      nom: 'C',
      prenom: 'D',
      roles: ['indexateur'],
    });
    expect(second.oid).toBe(first.oid);
    const stored = await db.person.findUniqueOrThrow({ where: { oid: first.oid }, include: { roles: true } });
    expect(stored.nom).toBe('C');
    expect(stored.roles.map((r) => r.role)).toEqual(['indexateur']);
  });

  it('a renamed author is served under the new name on the resources they wrote (REST and GraphQL)', async () => {
    const idOrigine = uniqueId();
    const author = await addPerson(app, { origine: 'ext', idOrigine, nom: 'Avant', prenom: 'Anne' });
    const oid = await createResource(app, { titre: 'Œuvre', auteurs: [author.pid], restriction: 3 });
    const served = async () => {
      const rest = await app
        .client()
        .get(`/api/ressource/${oid}`)
        .set(tokenHeaders)
        .query({ format: 'full' });
      expect(rest.status, JSON.stringify(rest.body)).toBe(200);
      const gql = await graphql(
        app.client(),
        'query ($oid: Int!) { resource(oid: $oid) { ... on Resource { authors { person { nom prenom } } } } }',
        { oid },
        tokenHeaders,
      );
      return { rest: rest.body._auteurs, graphql: gql.data?.resource.authors };
    };
    // Served once before the rename, so that nothing kept from this answer may pass for current.
    expect(await served()).toEqual({
      rest: ['Anne Avant'],
      graphql: [{ person: { nom: 'Avant', prenom: 'Anne' } }],
    });
    await addPerson(app, { origine: 'ext', idOrigine, nom: 'Après', prenom: 'Anne' });
    expect(await served()).toEqual({
      rest: ['Anne Après'],
      graphql: [{ person: { nom: 'Après', prenom: 'Anne' } }],
    });
  });

  it('accepts a numeric idOrigine', async () => {
    const id = Math.floor(Math.random() * 1e9);
    const response = await app
      .client()
      .post('/api/personne/add')
      .set(tokenHeaders)
      .send({ origine: 'ext', idOrigine: id, nom: 'N', prenom: 'P' });
    expect(response.body.pid).toBe(`ext/${id}`);
  });

  it('lists every missing field (400) and writes nothing', async () => {
    const count = await db.person.count();
    const response = await app.client().post('/api/personne/add').set(tokenHeaders).send({ origine: 'ext' });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      success: false,
      error: 'idOrigine manquant ; nom manquant ; prenom manquant',
    });
    expect(await db.person.count()).toBe(count);
  });

  it.each([
    [{ nom: 123 }, 'a number as nom'],
    [{ roles: { admin: 'yes' } }, 'a roles map whose values are not booleans'],
    [{ roles: { sorcier: true } }, 'a roles map granting an unknown role'],
    [{ email: 'not-an-address' }, 'an invalid email'],
    [{ roles: ['sorcier'] }, 'an unknown role'],
    [{ origine: 'a/b' }, 'a slash in origine'],
  ])('rejects %j (%s) with 400 and writes nothing', async (patch, _label) => {
    const count = await db.person.count();
    const body = { origine: 'ext', idOrigine: uniqueId(), nom: 'N', prenom: 'P', ...patch };
    const response = await app.client().post('/api/personne/add').set(tokenHeaders).send(body);
    expect(response.status).toBe(400);
    expect(response.body.success).toBe(false);
    expect(typeof response.body.error).toBe('string');
    expect(await db.person.count()).toBe(count);
  });

  it('accepts roles in the previous service’s form, a map whose true entries count', async () => {
    const idOrigine = uniqueId();
    const person = { origine: 'ext', idOrigine, nom: 'Carte', prenom: 'Rôles' };
    const rolesOf = async () =>
      (await db.personRole.findMany({ where: { person: { pid: `ext/${idOrigine}` } } }))
        .map((r) => r.role)
        .sort();
    const granted = await addPerson(app, { ...person, roles: { admin: true, editeur: true, eleve: false } });
    expect(granted.pid).toBe(`ext/${idOrigine}`);
    expect(await rolesOf()).toEqual(['admin', 'editeur']);
    await addPerson(app, { ...person, roles: { admin: false, editeur: true } });
    expect(await rolesOf()).toEqual(['editeur']);
    await addPerson(app, { ...person, roles: ['formateur'] });
    expect(await rolesOf()).toEqual(['formateur']);
  });

  it('ignores identity posted by the client: a session person without all rights is denied', async () => {
    const response = await teacher.post('/api/personne/add').send({
      origine: 'ext',
      idOrigine: uniqueId(),
      nom: 'N',
      prenom: 'P',
      roles: ['admin'],
      permissions: ['allRights'],
    });
    expect(response.status).toBe(403);
    expect(response.body).toEqual({ success: false, error: 'Droits insuffisants' });
  });

  it('refuses a wrong or URL-encoded-wrong token as anonymous (401)', async () => {
    const response = await app
      .client()
      .post('/api/personne/add')
      .set('X-ApiToken', `${API_TOKEN}x`)
      .send({ origine: 'ext', idOrigine: uniqueId(), nom: 'N', prenom: 'P' });
    expect(response.status).toBe(401);
    expect(response.body).toEqual({ success: false, error: 'Authentification requise' });
  });

  it('accepts a URL-encoded token', async () => {
    const response = await app
      .client()
      .post('/api/personne/add')
      .set('X-ApiToken', encodeURIComponent(API_TOKEN))
      .send({ origine: 'ext', idOrigine: uniqueId(), nom: 'N', prenom: 'P' });
    expect(response.status).toBe(200);
  });
});

describe('GET /api/personne/checkPid', () => {
  it('answers {oid, pid, nom, prenom} when pid and family name match (case and accents ignored)', async () => {
    const pid = `labP/${teacherUser.oid}`;
    const response = await pupil.get('/api/personne/checkPid').query({ pid, nom: 'dupre' });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      success: true,
      oid: expect.any(Number),
      pid,
      nom: 'Dupré',
      prenom: 'Élise',
    });
  });

  it('answers the same 404 for an unknown pid and for a wrong name', async () => {
    const wrongName = await pupil
      .get('/api/personne/checkPid')
      .query({ pid: `labP/${teacherUser.oid}`, nom: 'Autre' });
    const unknown = await pupil.get('/api/personne/checkPid').query({ pid: 'labP/nobody', nom: 'Autre' });
    expect(wrongName.status).toBe(404);
    expect(unknown.status).toBe(404);
    expect(wrongName.body.error).toMatch(/^Aucune personne avec le pid/);
    expect(unknown.body.error).toMatch(/^Aucune personne avec le pid/);
  });

  it('answers 400 when pid or nom is missing', async () => {
    const response = await pupil.get('/api/personne/checkPid');
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ success: false, error: 'pid manquant ; nom manquant' });
  });
});

describe('GET /api/personne/current and /me', () => {
  it('shows login links to the configured labs to an anonymous caller', async () => {
    const response = await app.client().get('/api/personne/current');
    expect(response.body).toEqual({
      success: true,
      sso: { name: '', links: [] },
      loginLinks: [{ href: lab.baseUrl, icon: 'login', value: lab.name }],
    });
  });

  it('describes each kind of caller in /me', async () => {
    const anonymous = await app.client().get('/api/personne/me');
    expect(anonymous.body).toEqual({
      success: true,
      kind: 'anonymous',
      authenticated: false,
      allRights: false,
      permissions: [],
      person: null,
    });
    const token = await app.client().get('/api/personne/me').set(tokenHeaders);
    expect(token.body).toMatchObject({ kind: 'token', authenticated: false, allRights: true, person: null });
    const me = await teacher.get('/api/personne/me');
    expect(me.body).toMatchObject({
      kind: 'person',
      authenticated: true,
      allRights: false,
      permissions: ['create', 'createGroupe', 'read'],
      person: {
        pid: `labP/${teacherUser.oid}`,
        roles: ['formateur'],
        email: teacherUser.mail,
        groupesMembre: [],
      },
    });
  });

  it('hides private fields of other persons in GraphQL', async () => {
    const pid = `labP/${teacherUser.oid}`;
    const query = 'query ($pid: String!) { person(pid: $pid) { ... on Person { pid nom email roles } } }';
    const seenByPupil = await graphql(pupil, query, { pid });
    expect(seenByPupil.data?.person).toEqual({ pid, nom: 'Dupré', email: null, roles: null });
    const seenByToken = await graphql(app.client(), query, { pid }, tokenHeaders);
    expect(seenByToken.data?.person).toEqual({
      pid,
      nom: 'Dupré',
      email: teacherUser.mail,
      roles: ['formateur'],
    });
  });
});

/** What a REST status says about the outcome, in the GraphQL error vocabulary. */
function restOutcome(status: number): string {
  if (status === 200) return 'ok';
  const code = (Object.keys(ERROR_STATUS) as ErrorCode[]).find(
    (c) => ERROR_STATUS[c] === status && !c.startsWith('LAB_'),
  );
  return code ?? `HTTP ${status}`;
}

function graphqlOutcome(response: GraphQLResponse<Record<string, unknown>>, field: string): string {
  return errorCode(response, field) ?? (response.data?.[field] ? 'ok' : 'null');
}

describe('REST and GraphQL agree for every caller', () => {
  const cases = {
    checkPid: {
      rest: (actor: Actor) => {
        const { caller, headers } = as(actor);
        return caller
          .get('/api/personne/checkPid')
          .set(headers)
          .query({ pid: `labP/${teacherUser.oid}`, nom: 'Dupré' });
      },
      graphql: (actor: Actor) => {
        const { caller, headers } = as(actor);
        return graphql(
          caller,
          'query ($pid: String, $nom: String) { personByPidAndName(pid: $pid, nom: $nom) { ... on Error { code } ... on Person { oid } } }',
          { pid: `labP/${teacherUser.oid}`, nom: 'Dupré' },
          headers,
        );
      },
      field: 'personByPidAndName',
      expected: { anonymous: 'UNAUTHENTICATED', pupil: 'ok', teacher: 'ok', admin: 'ok', token: 'ok' },
    },
    addPerson: {
      rest: (actor: Actor) => {
        const { caller, headers } = as(actor);
        return caller
          .post('/api/personne/add')
          .set(headers)
          .send({ origine: 'par', idOrigine: uniqueId(), nom: 'N', prenom: 'P' });
      },
      graphql: (actor: Actor) => {
        const { caller, headers } = as(actor);
        return graphql(
          caller,
          'mutation ($input: AddPersonInput!) { addPerson(input: $input) { ... on Error { code } ... on Person { oid } } }',
          { input: { origine: 'par', idOrigine: uniqueId(), nom: 'N', prenom: 'P' } },
          headers,
        );
      },
      field: 'addPerson',
      expected: {
        anonymous: 'UNAUTHENTICATED',
        pupil: 'FORBIDDEN',
        teacher: 'FORBIDDEN',
        admin: 'ok',
        token: 'ok',
      },
    },
  } as const;

  for (const [name, spec] of Object.entries(cases)) {
    it.each(actors)(`${name} as %s`, async (actor) => {
      const rest = await spec.rest(actor);
      const viaGraphql = await spec.graphql(actor);
      expect(restOutcome(rest.status)).toBe(spec.expected[actor]);
      expect(graphqlOutcome(viaGraphql, spec.field)).toBe(spec.expected[actor]);
      expect(rest.body.success).toBe(spec.expected[actor] === 'ok');
    });
  }
});

describe('GET /api/personne/me is the GraphQL viewer', () => {
  const VIEWER = /* GraphQL */ `{
    viewer {
      kind authenticated allRights permissions
      person { oid pid nom prenom email roles groupesMembre groupesSuivis groupesAdmin }
    }
  }`;

  it.each(actors)('for %s', async (actor) => {
    const { caller, headers } = as(actor);
    const rest = await caller.get('/api/personne/me').set(headers);
    const viaGraphql = await graphql(caller, VIEWER, {}, headers);
    const { success, ...payload } = rest.body;
    expect(success).toBe(true);
    expect(payload).toEqual(viaGraphql.data?.viewer);
  });
});
