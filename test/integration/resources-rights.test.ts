/**
 * Rights on resources: for every kind of caller and every restriction, REST and GraphQL agree on
 * the outcome, the status and the rights string (compatibility notes §4).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { db } from '../../src/db/client.ts';
import { type RightsSubject, readableWhere } from '../../src/modules/resources/resources.policy.ts';
import { startApp, type TestApp } from '../support/app.ts';
import { type FakeLab, startFakeLab } from '../support/fake-lab.ts';
import { errorCode, graphql } from '../support/graphql.ts';
import { ACTORS, type Actor, type Cast, castFor, createResource } from '../support/resources.ts';

let lab: FakeLab;
let app: TestApp;
let cast: Cast;
const oids: Record<string, number> = {};

/** Outcome as a status, or the rights string when readable. */
type Outcome = number | string;

const expectedReads: Record<string, Record<Actor, Outcome>> = {
  // Public and published; two authors and a contributor: nobody is sole author.
  public: {
    anonymous: 'R',
    author: 'RW',
    coauthor: 'RW',
    contributor: 'RW',
    member: 'R',
    outsider: 'R',
    pupil: 'R',
    corrector: 'R',
    token: 'RWD',
  },
  // Restriction 1 (correction): teachers holding `correction` read it.
  correction: {
    anonymous: 404,
    author: 'RWD',
    coauthor: 403,
    contributor: 403,
    member: 403,
    outsider: 403,
    pupil: 403,
    corrector: 'R',
    token: 'RWD',
  },
  // Restriction 2: members of its groups read it.
  group: {
    anonymous: 404,
    author: 'RWD',
    coauthor: 403,
    contributor: 403,
    member: 'R',
    outsider: 403,
    pupil: 403,
    corrector: 403,
    token: 'RWD',
  },
  // Restriction 3 with a contributor: the author is not sole, so cannot delete.
  private: {
    anonymous: 404,
    author: 'RW',
    coauthor: 403,
    contributor: 'RW',
    member: 403,
    outsider: 403,
    pupil: 403,
    corrector: 403,
    token: 'RWD',
  },
  // Unpublished: only those who may update it.
  draft: {
    anonymous: 404,
    author: 'RWD',
    coauthor: 403,
    contributor: 403,
    member: 403,
    outsider: 403,
    pupil: 403,
    corrector: 403,
    token: 'RWD',
  },
  // An author group: its members read and update.
  authorGroup: {
    anonymous: 404,
    author: 'RWD',
    coauthor: 403,
    contributor: 403,
    member: 'RW',
    outsider: 403,
    pupil: 403,
    corrector: 403,
    token: 'RWD',
  },
};

beforeAll(async () => {
  lab = await startFakeLab('labRR');
  app = await startApp({ labs: [lab.config()] });
  cast = await castFor(app, lab);
  const { pids, group } = cast;
  oids.public = await createResource(app, {
    auteurs: [pids.author, pids.coauthor],
    contributeurs: [pids.contributor],
  });
  oids.correction = await createResource(app, { auteurs: [pids.author], restriction: 1 });
  oids.group = await createResource(app, { auteurs: [pids.author], restriction: 2, groupes: [group] });
  oids.private = await createResource(app, {
    auteurs: [pids.author],
    contributeurs: [pids.contributor],
    restriction: 3,
  });
  oids.draft = await createResource(app, { auteurs: [pids.author], publie: false });
  oids.authorGroup = await createResource(app, {
    auteurs: [pids.author],
    restriction: 3,
    groupesAuteurs: [group],
  });
});

afterAll(async () => {
  await app.close();
  await lab.close();
});

const statusOf: Record<string, number> = {
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  INVALID_INPUT: 400,
};

describe('reading: REST GET /api/ressource/:oid?droits=1 and GraphQL resource(oid) agree', () => {
  for (const [name, expectations] of Object.entries(expectedReads)) {
    it.each(ACTORS)(`${name} resource, as %s`, async (actor) => {
      const { caller, headers } = cast.as(actor);
      const rest = await caller.get(`/api/ressource/${oids[name]}`).set(headers).query({ droits: 1 });
      const restOutcome: Outcome = rest.status === 200 ? rest.body._droits : rest.status;
      const gql = await graphql(
        caller,
        'query ($oid: Int!) { resource(oid: $oid) { ... on Error { code } ... on Resource { droits } } }',
        { oid: oids[name] },
        headers,
      );
      const code = errorCode(gql, 'resource');
      const gqlOutcome: Outcome = code ? statusOf[code]! : gql.data?.resource?.droits;
      expect({ rest: restOutcome, graphql: gqlOutcome }).toEqual({
        rest: expectations[actor],
        graphql: expectations[actor],
      });
    });
  }
});

describe('reading by rid: REST GET /api/ressource/:baseId/:oid and GraphQL resourceByOrigin agree', () => {
  for (const [name, expectations] of Object.entries(expectedReads)) {
    it.each(ACTORS)(`${name} resource, as %s`, async (actor) => {
      const { caller, headers } = cast.as(actor);
      const rest = await caller
        .get(`/api/ressource/repo/${oids[name]}`)
        .set(headers)
        .query({ format: 'ref' });
      const restOutcome: Outcome = rest.status === 200 ? rest.body._droits : rest.status;
      const gql = await graphql(
        caller,
        'query ($o: String!, $i: String!) { resourceByOrigin(origine: $o, idOrigine: $i) { ... on Error { code } ... on Resource { ref { droits } } } }',
        { o: 'repo', i: String(oids[name]) },
        headers,
      );
      const code = errorCode(gql, 'resourceByOrigin');
      const gqlOutcome: Outcome = code ? statusOf[code]! : gql.data?.resourceByOrigin?.ref?.droits;
      expect({ rest: restOutcome, graphql: gqlOutcome }).toEqual({
        rest: expectations[actor],
        graphql: expectations[actor],
      });
    });
  }
});

describe('the read filter used by lists', () => {
  it.each(ACTORS)('selects exactly the resources %s may read', async (actor) => {
    // The same request context the REST route would build, through GraphQL's viewer.
    const { caller, headers } = cast.as(actor);
    const readable = Object.entries(expectedReads)
      .filter(([, expectations]) => typeof expectations[actor] === 'string')
      .map(([name]) => oids[name])
      .sort();
    const viewer = await graphql(caller, '{ viewer { person { oid } allRights permissions } }', {}, headers);
    const v = viewer.data?.viewer;
    const personOid = v?.person?.oid as number | undefined;
    const groupOids = new Set(
      personOid === undefined
        ? []
        : [
            ...(await db.groupMember.findMany({ where: { personOid } })).map((m) => m.groupOid),
            ...(await db.groupManager.findMany({ where: { personOid } })).map((m) => m.groupOid),
          ],
    );
    const subject = {
      viewer: {
        kind: personOid === undefined ? (v?.allRights ? 'token' : 'anonymous') : 'person',
        person: personOid === undefined ? null : { oid: personOid, pid: '', nom: '', prenom: '', roles: [] },
        allRights: v?.allRights,
        permissions: new Set(v?.permissions),
        labBaseId: null,
      },
      groupOids,
    } as RightsSubject;
    const rows = await db.resource.findMany({
      where: { AND: [{ oid: { in: Object.values(oids) } }, readableWhere(subject)] },
      select: { oid: true },
    });
    expect(rows.map((row) => row.oid).sort()).toEqual(readable);
  });
});

describe('updating: POST /api/ressource (merge) and GraphQL saveResource agree', () => {
  const expected: Record<Actor, number> = {
    anonymous: 401,
    author: 200,
    coauthor: 403,
    contributor: 200,
    member: 403,
    outsider: 403,
    pupil: 403,
    corrector: 403,
    token: 200,
  };
  it.each(ACTORS)('private resource, as %s', async (actor) => {
    const { caller, headers } = cast.as(actor);
    const rest = await caller
      .post('/api/ressource')
      .set(headers)
      .send({ oid: oids.private, description: `par ${actor}` });
    const gql = await graphql(
      caller,
      'mutation ($input: ResourceInput!) { saveResource(input: $input) { ... on Error { code } ... on SaveResourceResult { oid } } }',
      { input: { oid: oids.private, description: `par ${actor} (GraphQL)` } },
      headers,
    );
    const code = errorCode(gql, 'saveResource');
    expect({ rest: rest.status, graphql: code ? statusOf[code] : 200 }).toEqual({
      rest: expected[actor],
      graphql: expected[actor],
    });
  });
});

describe('deleting: DELETE /api/ressource/:oid and GraphQL deleteResource agree', () => {
  // A sole author and no contributor: the author may delete.
  const expected: Record<Actor, number> = {
    anonymous: 401,
    author: 200,
    coauthor: 403,
    contributor: 403,
    member: 403,
    outsider: 403,
    pupil: 403,
    corrector: 403,
    token: 200,
  };
  it.each(ACTORS)('as %s', async (actor) => {
    const { caller, headers } = cast.as(actor);
    const [forRest, forGraphql] = [
      await createResource(app, { auteurs: [cast.pids.author] }),
      await createResource(app, { auteurs: [cast.pids.author] }),
    ];
    const rest = await caller.delete(`/api/ressource/${forRest}`).set(headers);
    const gql = await graphql(
      caller,
      'mutation ($id: String!) { deleteResource(id: $id) { ... on Error { code } ... on DeletedResource { oid } } }',
      { id: String(forGraphql) },
      headers,
    );
    const code = errorCode(gql, 'deleteResource');
    expect({ rest: rest.status, graphql: code ? statusOf[code] : 200 }).toEqual({
      rest: expected[actor],
      graphql: expected[actor],
    });
    if (expected[actor] === 200) expect(rest.body).toEqual({ success: true, deleted: String(forRest) });
    const stillThere = await app.client().get(`/api/public/${forRest}`);
    expect(stillThere.status).toBe(expected[actor] === 200 ? 404 : 200);
  });
});

describe('relations and copies: REST and GraphQL agree', () => {
  const updaters: Record<Actor, number> = {
    anonymous: 401,
    author: 200,
    coauthor: 403,
    contributor: 200,
    member: 403,
    outsider: 403,
    pupil: 403,
    corrector: 403,
    token: 200,
  };
  it.each(ACTORS)('addRelations on the private resource, as %s', async (actor) => {
    const { caller, headers } = cast.as(actor);
    const rest = await caller
      .post('/api/ressource/addRelations')
      .set(headers)
      .send({ oid: oids.private, relations: [[1, 'ailleurs/1']] });
    const gql = await graphql(
      caller,
      'mutation ($input: ResourceRelationsInput!) { addResourceRelations(input: $input) { ... on Error { code } ... on SaveResourceResult { oid } } }',
      { input: { oid: oids.private, relations: [{ predicate: 1, rid: 'ailleurs/2' }] } },
      headers,
    );
    const code = errorCode(gql, 'addResourceRelations');
    expect({ rest: rest.status, graphql: code ? statusOf[code] : 200 }).toEqual({
      rest: updaters[actor],
      graphql: updaters[actor],
    });
  });

  // Cloning needs a person with `create` who can read the source: here the group resource.
  const cloners: Record<Actor, number> = {
    anonymous: 401,
    author: 200,
    coauthor: 403,
    contributor: 403,
    member: 200,
    outsider: 403,
    pupil: 403,
    corrector: 403,
    token: 403,
  };
  it.each(ACTORS)('clone of the group resource, as %s', async (actor) => {
    const { caller, headers } = cast.as(actor);
    const rest = await caller.get(`/api/clone/${oids.group}`).set(headers);
    const gql = await graphql(
      caller,
      'mutation ($oid: Int!) { cloneResource(oid: $oid) { ... on Error { code } ... on SaveResourceResult { oid } } }',
      { oid: oids.group },
      headers,
    );
    const code = errorCode(gql, 'cloneResource');
    expect({ rest: rest.status, graphql: code ? statusOf[code] : 200 }).toEqual({
      rest: cloners[actor],
      graphql: cloners[actor],
    });
  });
});

describe('creating', () => {
  it.each([
    ['anonymous', 401],
    ['pupil', 403],
    ['author', 200],
    ['corrector', 200],
    ['token', 200],
  ] as const)('as %s: %i', async (actor, status) => {
    const { caller, headers } = cast.as(actor);
    const rest = await caller.post('/api/ressource').set(headers).send({ titre: 'Nouvelle', type: 'url' });
    expect(rest.status).toBe(status);
    const gql = await graphql(
      caller,
      'mutation { saveResource(input: { titre: "Nouvelle", type: "url" }) { ... on Error { code } ... on SaveResourceResult { created } } }',
      {},
      headers,
    );
    const code = errorCode(gql, 'saveResource');
    expect(code ? statusOf[code] : 200).toBe(status);
  });
});
