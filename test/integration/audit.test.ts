/**
 * The audit log: every creation, change and deletion of a resource or a group, through REST and
 * GraphQL (and a peer's externalUpdate), records who did it and what changed, in the transaction
 * of the change; a refused or failed write records nothing; only `readAudit` holders read it.
 */
import { describe, expect, it } from 'vitest';
import { db } from '../../src/db/client.ts';
import { type Browser, logIn, logInWithRoles, tokenHeaders } from '../support/actors.ts';
import type { TestApp } from '../support/app.ts';
import { type FakeLab, type LabUser, labUser } from '../support/fake-lab.ts';
import { appTest } from '../support/fixtures.ts';
import { errorCode, graphql } from '../support/graphql.ts';
import { createGroup, groupName } from '../support/groups.ts';
import { createResource } from '../support/resources.ts';

const test = appTest.override({
  labId: 'labAudit',
  appOptions: { peers: [{ baseId: 'voisine', baseUrl: 'http://voisine.test/' }] },
});

let lab: FakeLab;
let app: TestApp;
let teacher: Browser;
let teacherUser: LabUser;
let other: Browser;
let admin: Browser;

test.beforeAll(async ({ lab: startedLab, app: startedApp }) => {
  lab = startedLab;
  app = startedApp;
  teacherUser = labUser({ type: 1 });
  teacher = await logIn(app, lab, teacherUser);
  other = await logIn(app, lab, labUser({ type: 1 }));
  admin = (await logInWithRoles(app, lab, ['admin'])).browser;
});

const teacherPid = () => `${lab.baseId}/${teacherUser.oid}`;

const entriesOf = (entityKind: 'resource' | 'group', entityId: number) =>
  db.auditEntry.findMany({ where: { entityKind, entityId }, orderBy: { id: 'asc' } });

const auditCount = () => db.auditEntry.count();

describe('resources', () => {
  it('REST: creation, update and deletion by a token caller', async () => {
    const oid = await createResource(app, { titre: 'Audit REST', niveaux: ['6e'] });
    const update = await app
      .client()
      .post('/api/ressource?merge=1')
      .set(tokenHeaders)
      .set('X-Request-Id', 'audit-update')
      .send({ oid, titre: 'Audit REST modifiée' });
    expect(update.status, JSON.stringify(update.body)).toBe(200);
    expect((await app.client().delete(`/api/ressource/${oid}`).set(tokenHeaders)).status).toBe(200);

    const [created, updated, deleted] = await entriesOf('resource', oid);
    expect(created).toMatchObject({ action: 'created', actorKind: 'token', actorPid: null });
    expect(created!.changes).toMatchObject({ titre: { after: 'Audit REST' }, niveaux: { after: ['6e'] } });
    expect(updated).toMatchObject({ action: 'updated', actorKind: 'token', requestId: 'audit-update' });
    expect(updated!.changes).toEqual({ titre: { before: 'Audit REST', after: 'Audit REST modifiée' } });
    expect(deleted).toMatchObject({ action: 'deleted', actorKind: 'token' });
    expect(deleted!.changes).toMatchObject({ titre: { before: 'Audit REST modifiée' } });
    // The read key opens the resource: it is never copied into the log.
    expect(JSON.stringify([created, updated, deleted])).not.toMatch(/"cle"/);
  });

  it('GraphQL: creation, update and deletion by a session person', async () => {
    const save = (input: object, merge = false) =>
      graphql(
        teacher,
        'mutation($input: ResourceInput!, $merge: Boolean) { saveResource(input: $input, merge: $merge) { ... on SaveResourceResult { oid } } }',
        {
          input,
          merge,
        },
      );
    const created = await save({ titre: 'Audit GraphQL', type: 'url', categories: [7] });
    const oid = created.data!.saveResource.oid as number;
    await save({ oid, restriction: 3 }, true);
    const deleted = await graphql(
      teacher,
      'mutation($id: String!) { deleteResource(id: $id) { __typename } }',
      {
        id: String(oid),
      },
    );
    expect(deleted.data?.deleteResource.__typename).toBe('DeletedResource');

    const entries = await entriesOf('resource', oid);
    expect(entries.map((entry) => entry.action)).toEqual(['created', 'updated', 'deleted']);
    for (const entry of entries) {
      expect(entry).toMatchObject({
        actorKind: 'person',
        actorPid: teacherPid(),
        actorOid: expect.any(Number),
      });
    }
    // The creator became the author.
    expect(entries[0]!.changes).toMatchObject({ authors: { after: [teacherPid()] } });
    expect(entries[1]!.changes).toEqual({ restriction: { before: 0, after: 3 } });
  });

  it('a copy and a peer’s externalUpdate are recorded as the changes they make', async () => {
    const source = await createResource(app, { titre: 'Source', type: 'ato' });
    const clone = await graphql(
      teacher,
      'mutation($oid: Int!) { cloneResource(oid: $oid) { ... on SaveResourceResult { oid } } }',
      {
        oid: source,
      },
    );
    const copy = clone.data!.cloneResource.oid as number;
    expect((await entriesOf('resource', copy)).map((entry) => entry.action)).toEqual(['created']);

    const rid = `voisine/${Date.now()}`;
    const tree = await createResource(app, {
      titre: 'Arbre',
      type: 'arbre',
      enfants: [{ titre: 'Ancien', type: 'j3p', aliasOf: rid }],
    });
    const response = await app
      .client()
      .post('/api/ressource/externalUpdate')
      .set(tokenHeaders)
      .send({ ref: { aliasOf: rid, titre: 'Nouveau', type: 'j3p' } });
    expect(response.body).toEqual({ success: true });
    const [, updated] = await entriesOf('resource', tree);
    expect(updated).toMatchObject({ action: 'updated', actorKind: 'token' });
    expect(updated!.changes).toEqual({
      enfants: {
        before: [{ titre: 'Ancien', type: 'j3p', aliasOf: rid }],
        after: [{ titre: 'Nouveau', type: 'j3p', aliasOf: rid }],
      },
    });
  });

  it('a refused or failed write records nothing', async () => {
    const oid = await createResource(app, { titre: 'Protégée', restriction: 3, auteurs: [teacherPid()] });
    const first = await createResource(app, { origine: 'ext', idOrigine: `a-${oid}` });
    const before = await auditCount();
    // Anonymous: refused.
    expect((await app.client().post('/api/ressource').send({ titre: 'x', type: 'url' })).status).toBe(401);
    // Another teacher may not change it, nor delete it.
    expect((await other.post('/api/ressource?merge=1').send({ oid, titre: 'Volée' })).status).toBe(403);
    expect((await other.delete(`/api/ressource/${oid}`)).status).toBe(403);
    // Invalid input, and a conflict that fails inside the transaction.
    expect(
      (await app.client().post('/api/ressource').set(tokenHeaders).send({ titre: 'Sans type' })).status,
    ).toBe(400);
    const conflict = await app
      .client()
      .post('/api/ressource?merge=1')
      .set(tokenHeaders)
      .send({ oid, origine: 'ext', idOrigine: `a-${oid}` });
    expect(conflict.status).toBe(409);
    // A save that changes nothing.
    expect(
      (await app.client().post('/api/ressource?merge=1').set(tokenHeaders).send({ oid: first })).status,
    ).toBe(200);
    expect(await auditCount()).toBe(before);
  });
});

describe('groups', () => {
  it('REST: creation, update and deletion by their manager', async () => {
    const group = await createGroup(teacher, { description: 'avant' });
    const renamed = groupName('Renommé');
    const update = await teacher.post('/api/groupe').send({ oid: group.oid, nom: renamed, ouvert: true });
    expect(update.status, JSON.stringify(update.body)).toBe(200);
    expect((await teacher.delete(`/api/groupe/${encodeURIComponent(renamed)}`)).status).toBe(200);

    const [created, updated, deleted] = await entriesOf('group', group.oid);
    expect(created).toMatchObject({ action: 'created', actorKind: 'person', actorPid: teacherPid() });
    expect(created!.changes).toMatchObject({ nom: { after: group.nom }, description: { after: 'avant' } });
    expect(updated!.changes).toEqual({
      nom: { before: group.nom, after: renamed },
      ouvert: { before: false, after: true },
    });
    expect(deleted).toMatchObject({ action: 'deleted', actorPid: teacherPid() });
    expect(deleted!.changes).toMatchObject({ nom: { before: renamed } });
  });

  it('GraphQL: creation, update and deletion', async () => {
    const nom = groupName('GraphQL');
    const created = await graphql(
      teacher,
      'mutation($nom: String!) { createGroupFromName(nom: $nom) { ... on Group { oid } } }',
      {
        nom,
      },
    );
    const oid = created.data!.createGroupFromName.oid as number;
    await graphql(
      teacher,
      'mutation($oid: Int!) { updateGroup(oid: $oid, input: { description: "après" }) { __typename } }',
      {
        oid,
      },
    );
    await graphql(teacher, 'mutation($nom: String!) { deleteGroup(nom: $nom) { __typename } }', { nom });
    const entries = await entriesOf('group', oid);
    expect(entries.map((entry) => entry.action)).toEqual(['created', 'updated', 'deleted']);
    expect(entries[1]!.changes).toEqual({ description: { before: '', after: 'après' } });
  });

  it('a refused or failed write records nothing', async () => {
    const group = await createGroup(teacher);
    const before = await auditCount();
    expect((await other.post('/api/groupe').send({ oid: group.oid, description: 'non' })).status).toBe(403);
    expect((await other.delete(`/api/groupe/${encodeURIComponent(group.nom)}`)).status).toBe(403);
    expect((await other.post('/api/groupe').send({ nom: group.nom })).status).not.toBe(200);
    expect(await auditCount()).toBe(before);
  });
});

describe('reading the log', () => {
  const query = `query($entityKind: AuditEntityKind, $entityId: Int, $actorPid: String, $from: DateTime, $to: DateTime, $first: Int, $after: Int) {
    auditLog(entityKind: $entityKind, entityId: $entityId, actorPid: $actorPid, from: $from, to: $to, first: $first, after: $after) {
      entries { id action entityKind entityId actorKind actorPid changes at }
      nextCursor
    }
  }`;

  it('is refused to anonymous callers, teachers and editors', async () => {
    expect(errorCode(await graphql(app.client(), query), 'auditLog')).toBe('UNAUTHENTICATED');
    expect(errorCode(await graphql(teacher, query), 'auditLog')).toBe('FORBIDDEN');
    const { browser: editor } = await logInWithRoles(app, lab, ['editeur']);
    expect(errorCode(await graphql(editor, query), 'auditLog')).toBe('FORBIDDEN');
  });

  it('filters administrators’ reads by entity, actor and time, newest first, page by page', async () => {
    const start = new Date(Date.now() - 1000);
    const oid = await createResource(app, { titre: 'Lue' });
    for (const titre of ['Un', 'Deux', 'Trois']) {
      await app.client().post('/api/ressource?merge=1').set(tokenHeaders).send({ oid, titre });
    }
    const byEntity = await graphql(admin, query, { entityKind: 'resource', entityId: oid, first: 3 });
    expect(byEntity.errors).toBeUndefined();
    const page = byEntity.data!.auditLog;
    expect(page.entries.map((e: { action: string }) => e.action)).toEqual(['updated', 'updated', 'updated']);
    expect(page.entries[0].changes).toEqual({ titre: { before: 'Deux', after: 'Trois' } });
    const next = await graphql(admin, query, {
      entityKind: 'resource',
      entityId: oid,
      first: 3,
      after: page.nextCursor,
    });
    expect(next.data!.auditLog.entries.map((e: { action: string }) => e.action)).toEqual(['created']);
    expect(next.data!.auditLog.nextCursor).toBeNull();

    const future = await graphql(admin, query, {
      entityKind: 'resource',
      entityId: oid,
      from: new Date(Date.now() + 60_000),
    });
    expect(future.data!.auditLog.entries).toEqual([]);
    const window = await graphql(admin, query, {
      entityKind: 'resource',
      entityId: oid,
      from: start,
      to: new Date(Date.now() + 1000),
    });
    expect(window.data!.auditLog.entries).toHaveLength(4);

    const group = await createGroup(teacher);
    const byActor = await graphql(admin, query, { actorPid: teacherPid(), first: 500 });
    const mine = byActor.data!.auditLog.entries as {
      actorPid: string;
      entityKind: string;
      entityId: number;
    }[];
    expect(mine.every((entry) => entry.actorPid === teacherPid())).toBe(true);
    expect(mine.some((entry) => entry.entityKind === 'group' && entry.entityId === group.oid)).toBe(true);

    // API-token callers hold every permission.
    const asToken = await graphql(
      app.client(),
      query,
      { entityKind: 'group', entityId: group.oid },
      tokenHeaders,
    );
    expect(asToken.data!.auditLog.entries).toHaveLength(1);
    expect(errorCode(await graphql(admin, query, { first: 501 }), 'auditLog')).toBe('INVALID_INPUT');
  });
});
