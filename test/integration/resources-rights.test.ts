/**
 * Rights on resources: for every kind of caller and every restriction × published combination,
 * REST and GraphQL agree on the outcome, the status and the rights string (compatibility notes §4);
 * the policy's two forms (`canRead` and the list filter `readableWhere`) agree under the context a
 * real request gets; and every write of the matrices is read back: done when allowed, no trace when
 * refused.
 */
import { describe, expect } from 'vitest';
import { db } from '../../src/db/client.ts';
import { canRead, readableWhere } from '../../src/modules/resources/resources.policy.ts';
import { rightsSubject } from '../../src/modules/resources/resources.service.ts';
import { loadDocuments } from '../../src/read-model/documents.ts';
import { tokenHeaders } from '../support/actors.ts';
import type { TestApp } from '../support/app.ts';
import { appTest } from '../support/fixtures.ts';
import { errorCode, graphql } from '../support/graphql.ts';
import { requestContextOf } from '../support/request-context.ts';
import { ACTORS, type Actor, type Cast, createResource, readResource } from '../support/resources.ts';

const test = appTest.override({ labId: 'labRR' });
let app: TestApp;
let cast: Cast;
const oids: Record<string, number> = {};

/** Outcome as a status, or the rights string when readable. */
type Outcome = number | string;

/** Only those who may update it (and all rights) read an unpublished resource, whatever its restriction. */
const unpublished: Record<Actor, Outcome> = {
  anonymous: 404,
  author: 'RWD',
  coauthor: 403,
  contributor: 403,
  member: 403,
  manager: 403,
  outsider: 403,
  pupil: 403,
  corrector: 403,
  token: 'RWD',
};

const expectedReads: Record<string, Record<Actor, Outcome>> = {
  // Restriction 0, published; two authors and a contributor: nobody is sole author.
  public: {
    anonymous: 'R',
    author: 'RW',
    coauthor: 'RW',
    contributor: 'RW',
    member: 'R',
    manager: 'R',
    outsider: 'R',
    pupil: 'R',
    corrector: 'R',
    token: 'RWD',
  },
  publicDraft: unpublished,
  // Restriction 1 (correction): teachers holding `correction` read it once published.
  correction: {
    anonymous: 404,
    author: 'RWD',
    coauthor: 403,
    contributor: 403,
    member: 403,
    manager: 403,
    outsider: 403,
    pupil: 403,
    corrector: 'R',
    token: 'RWD',
  },
  correctionDraft: unpublished,
  // Restriction 2: members and managers of its groups read it once published.
  group: {
    anonymous: 404,
    author: 'RWD',
    coauthor: 403,
    contributor: 403,
    member: 'R',
    manager: 'R',
    outsider: 403,
    pupil: 403,
    corrector: 403,
    token: 'RWD',
  },
  groupDraft: unpublished,
  // Restriction 3 with a contributor and a reader group (which opens nothing at this restriction):
  // the author is not sole, so cannot delete.
  private: {
    anonymous: 404,
    author: 'RW',
    coauthor: 403,
    contributor: 'RW',
    member: 403,
    manager: 403,
    outsider: 403,
    pupil: 403,
    corrector: 403,
    token: 'RWD',
  },
  privateDraft: unpublished,
  // An author group: its members and managers read and update.
  authorGroup: {
    anonymous: 404,
    author: 'RWD',
    coauthor: 403,
    contributor: 403,
    member: 'RW',
    manager: 'RW',
    outsider: 403,
    pupil: 403,
    corrector: 403,
    token: 'RWD',
  },
};

test.beforeAll(async ({ app: started, cast: made }) => {
  app = started;
  cast = made;
  const { pids, group } = cast;
  for (const publie of [true, false]) {
    const suffix = publie ? '' : 'Draft';
    oids[`public${suffix}`] = await createResource(app, {
      publie,
      auteurs: publie ? [pids.author, pids.coauthor] : [pids.author],
      contributeurs: publie ? [pids.contributor] : [],
    });
    oids[`correction${suffix}`] = await createResource(app, {
      publie,
      auteurs: [pids.author],
      restriction: 1,
    });
    oids[`group${suffix}`] = await createResource(app, {
      publie,
      auteurs: [pids.author],
      restriction: 2,
      groupes: [group],
    });
    oids[`private${suffix}`] = await createResource(app, {
      publie,
      auteurs: [pids.author],
      contributeurs: publie ? [pids.contributor] : [],
      restriction: 3,
      groupes: [group],
    });
  }
  oids.authorGroup = await createResource(app, {
    auteurs: [pids.author],
    restriction: 3,
    groupesAuteurs: [group],
  });
});

const statusOf: Record<string, number> = {
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  INVALID_INPUT: 400,
};

describe('reading: REST GET /api/ressource/:oid?droits=1 and GraphQL resource(oid) agree', () => {
  for (const [name, expectations] of Object.entries(expectedReads)) {
    test.each(ACTORS)(`${name} resource, as %s`, async (actor) => {
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
    test.each(ACTORS)(`${name} resource, as %s`, async (actor) => {
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

const byNumber = (a: number, b: number) => a - b;

describe('the policy’s two forms agree under the context a real request gets', () => {
  test.each(ACTORS)('canRead and readableWhere select exactly what %s may read', async (actor) => {
    const { caller, headers } = cast.as(actor);
    const context = await requestContextOf(app, caller, headers);
    // The kind of caller the context factory saw is the one the matrix names.
    const kind = actor === 'anonymous' ? 'anonymous' : actor === 'token' ? 'token' : 'person';
    expect(context.viewer.kind).toBe(kind);
    const subject = await rightsSubject(context);
    const readable = Object.entries(expectedReads)
      .filter(([, expectations]) => typeof expectations[actor] === 'string')
      .map(([name]) => oids[name]!)
      .sort(byNumber);
    const filtered = await db.resource.findMany({
      where: { AND: [{ oid: { in: Object.values(oids) } }, readableWhere(subject)] },
      select: { oid: true },
    });
    const documents = await loadDocuments(Object.values(oids), app.config.baseId, {});
    expect(documents).toHaveLength(Object.keys(oids).length);
    const byPredicate = documents.filter((document) => canRead(subject, document.facts)).map((d) => d.oid);
    expect({
      readableWhere: filtered.map((row) => row.oid).sort(byNumber),
      canRead: byPredicate.sort(byNumber),
    }).toEqual({ readableWhere: readable, canRead: readable });
  });
});

describe('updating: POST /api/ressource (merge) and GraphQL saveResource agree, and the change is stored or not', () => {
  const expected: Record<Actor, number> = {
    anonymous: 401,
    author: 200,
    coauthor: 403,
    contributor: 200,
    member: 403,
    manager: 403,
    outsider: 403,
    pupil: 403,
    corrector: 403,
    token: 200,
  };
  const storedDescription = async () => {
    const [read, row] = await Promise.all([
      readResource(app, oids.private!),
      db.resource.findUniqueOrThrow({ where: { oid: oids.private }, select: { description: true } }),
    ]);
    expect(read!.description).toBe(row.description);
    return row.description;
  };
  test.each(ACTORS)('private resource, as %s', async (actor) => {
    const { caller, headers } = cast.as(actor);
    const allowed = expected[actor] === 200;
    const before = await storedDescription();
    const rest = await caller
      .post('/api/ressource')
      .set(headers)
      .send({ oid: oids.private, description: `par ${actor}` });
    const afterRest = await storedDescription();
    const gql = await graphql(
      caller,
      'mutation ($input: ResourceInput!) { saveResource(input: $input) { ... on Error { code } ... on SaveResourceResult { oid } } }',
      { input: { oid: oids.private, description: `par ${actor} (GraphQL)` } },
      headers,
    );
    const afterGraphql = await storedDescription();
    const code = errorCode(gql, 'saveResource');
    expect({
      rest: rest.status,
      graphql: code ? statusOf[code] : 200,
      afterRest,
      afterGraphql,
    }).toEqual({
      rest: expected[actor],
      graphql: expected[actor],
      afterRest: allowed ? `par ${actor}` : before,
      afterGraphql: allowed ? `par ${actor} (GraphQL)` : before,
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
    manager: 403,
    outsider: 403,
    pupil: 403,
    corrector: 403,
    token: 200,
  };
  test.each(ACTORS)('as %s', async (actor) => {
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

describe('relations and copies: REST and GraphQL agree, and the change is stored or not', () => {
  const updaters: Record<Actor, number> = {
    anonymous: 401,
    author: 200,
    coauthor: 403,
    contributor: 200,
    member: 403,
    manager: 403,
    outsider: 403,
    pupil: 403,
    corrector: 403,
    token: 200,
  };
  /** The targets of the private resource's relations, as REST shows them and as stored. */
  const storedTargets = async () => {
    const [read, rows] = await Promise.all([
      readResource(app, oids.private!),
      db.resourceRelation.findMany({ where: { resourceOid: oids.private }, select: { targetRid: true } }),
    ]);
    const shown = (read!.relations as [number, string][]).map(([, rid]) => rid).sort();
    expect(shown).toEqual(rows.map((row) => row.targetRid).sort());
    return shown;
  };
  test.each(ACTORS)('addRelations on the private resource, as %s', async (actor) => {
    const { caller, headers } = cast.as(actor);
    const [viaRest, viaGraphql] = [`ailleurs/${actor}-rest`, `ailleurs/${actor}-graphql`];
    const rest = await caller
      .post('/api/ressource/addRelations')
      .set(headers)
      .send({ oid: oids.private, relations: [[1, viaRest]] });
    const gql = await graphql(
      caller,
      'mutation ($input: ResourceRelationsInput!) { addResourceRelations(input: $input) { ... on Error { code } ... on SaveResourceResult { oid } } }',
      { input: { oid: oids.private, relations: [{ predicate: 1, rid: viaGraphql }] } },
      headers,
    );
    const code = errorCode(gql, 'addResourceRelations');
    const targets = await storedTargets();
    const allowed = updaters[actor] === 200;
    expect({
      rest: rest.status,
      graphql: code ? statusOf[code] : 200,
      restStored: targets.includes(viaRest),
      graphqlStored: targets.includes(viaGraphql),
    }).toEqual({
      rest: updaters[actor],
      graphql: updaters[actor],
      restStored: allowed,
      graphqlStored: allowed,
    });
  });

  // Cloning needs a person with `create` who can read the source: here the group resource.
  const cloners: Record<Actor, number> = {
    anonymous: 401,
    author: 200,
    coauthor: 403,
    contributor: 403,
    member: 200,
    manager: 200,
    outsider: 403,
    pupil: 403,
    corrector: 403,
    token: 403,
  };
  const copiesOfGroupResource = () =>
    db.resourceRelation.count({
      where: { targetRid: `repo/${oids.group}`, resource: { titre: { endsWith: '(copie)' } } },
    });
  test.each(ACTORS)('clone of the group resource, as %s', async (actor) => {
    const { caller, headers } = cast.as(actor);
    const copiesBefore = await copiesOfGroupResource();
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
    const allowed = cloners[actor] === 200;
    expect(await copiesOfGroupResource()).toBe(copiesBefore + (allowed ? 2 : 0));
    if (!allowed) return;
    const pid = cast.pids[actor as keyof Cast['pids']];
    const restClone = rest.body.oid as number;
    for (const oid of [restClone, gql.data?.cloneResource.oid as number]) {
      const copy = await readResource(app, oid);
      expect(copy).toMatchObject({ titre: 'Ressource (copie)', auteurs: [pid] });
      expect(copy!.relations).toContainEqual([expect.any(Number), `repo/${oids.group}`]);
    }
  });
});

describe('creating: REST and GraphQL agree, and the resource exists or not', () => {
  test.each([
    ['anonymous', 401],
    ['pupil', 403],
    ['author', 200],
    ['corrector', 200],
    ['token', 200],
  ] as const)('as %s: %i', async (actor, status) => {
    const { caller, headers } = cast.as(actor);
    const [restTitle, graphqlTitle] = [`Nouvelle ${actor} REST`, `Nouvelle ${actor} GraphQL`];
    const rest = await caller.post('/api/ressource').set(headers).send({ titre: restTitle, type: 'url' });
    expect(rest.status).toBe(status);
    const gql = await graphql(
      caller,
      'mutation ($titre: String!) { saveResource(input: { titre: $titre, type: "url" }) { ... on Error { code } ... on SaveResourceResult { oid created } } }',
      { titre: graphqlTitle },
      headers,
    );
    const code = errorCode(gql, 'saveResource');
    expect(code ? statusOf[code] : 200).toBe(status);
    for (const [titre, oid] of [
      [restTitle, rest.body.oid],
      [graphqlTitle, gql.data?.saveResource?.oid],
    ] as const) {
      const found = await app.client().get('/api/liste').set(tokenHeaders).query({ titre, format: 'light' });
      expect(found.body.liste, titre).toHaveLength(status === 200 ? 1 : 0);
      expect(await db.resource.count({ where: { titre } })).toBe(status === 200 ? 1 : 0);
      if (status !== 200) continue;
      const created = await readResource(app, oid);
      expect(created).toMatchObject({ titre, auteurs: actor === 'token' ? [] : [cast.pids[actor]] });
    }
  });
});
