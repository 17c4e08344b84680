/**
 * Groups: every legacy route and its GraphQL operation, for anonymous, manager, member, outsider,
 * pupil and token callers; the transitions of the API document; names; propagation; concurrency.
 */
import { describe, expect, it } from 'vitest';
import { db, onStatement } from '../../src/db/client.ts';
import { type Browser, logIn, logInWithRoles, tokenHeaders } from '../support/actors.ts';
import type { TestApp } from '../support/app.ts';
import { type FakeLab, type LabUser, labUser } from '../support/fake-lab.ts';
import { appTest } from '../support/fixtures.ts';
import { errorCode, graphql } from '../support/graphql.ts';
import { createGroup, groupAction, groupName } from '../support/groups.ts';

const test = appTest.override({ labId: 'labG' });

let lab: FakeLab;
let app: TestApp;
const users: Record<'manager' | 'member' | 'outsider' | 'pupil', LabUser> = {
  manager: labUser({ type: 1, nom: 'Gérant', prenom: 'Anne' }),
  member: labUser({ type: 1, nom: 'Membre', prenom: 'Bruno' }),
  outsider: labUser({ type: 1, nom: 'Dehors', prenom: 'Chloé' }),
  pupil: labUser({ type: 0, nom: 'Élève', prenom: 'Dan' }),
};
const browsers = {} as Record<keyof typeof users, Browser>;
const oids = {} as Record<keyof typeof users, number>;

test.beforeAll(async ({ lab: startedLab, app: startedApp }) => {
  lab = startedLab;
  app = startedApp;
  for (const [role, user] of Object.entries(users) as [keyof typeof users, LabUser][]) {
    browsers[role] = await logIn(app, lab, user);
    oids[role] = (await db.person.findUniqueOrThrow({ where: { pid: `labG/${user.oid}` } })).oid;
  }
});

/** A group managed by `manager` with `member` in it; open and public unless told otherwise. */
async function populatedGroup({
  ouvert = true,
  public: isPublic = true,
  ...fields
}: Record<string, unknown> = {}) {
  const group = await createGroup(browsers.manager, { ...fields, ouvert: true, public: isPublic });
  const joined = await browsers.member.get(`/api/groupe/rejoindre/${encodeURIComponent(group.nom)}`);
  expect(joined.status).toBe(200);
  if (!ouvert) {
    const closed = await browsers.manager.post('/api/groupe').send({ oid: group.oid, ouvert: false });
    expect(closed.body).toMatchObject({ success: true, ouvert: false });
  }
  return { ...group, ouvert };
}

const path = (template: string, nom: string) => template.replace(':nom', encodeURIComponent(nom));

/**
 * The group names a resource is served with: REST (`groupes`, `groupesAuteurs`) and GraphQL
 * (`readerGroups`, `authorGroups`), to a token caller and to a member of the groups.
 */
async function groupsServed(oid: number) {
  const rest = await app.client().get(`/api/ressource/${oid}`).set(tokenHeaders);
  expect(rest.status, JSON.stringify(rest.body)).toBe(200);
  const gql = await graphql(
    browsers.member,
    'query ($oid: Int!) { resource(oid: $oid) { ... on Resource { readerGroups { group { nom } } authorGroups { group { nom } } } } }',
    { oid },
  );
  const names = (links: { group: { nom: string } }[]) => links.map((link) => link.group.nom);
  return {
    groupes: rest.body.groupes,
    groupesAuteurs: rest.body.groupesAuteurs,
    readerGroups: names(gql.data?.resource.readerGroups),
    authorGroups: names(gql.data?.resource.authorGroups),
  };
}
const namesServed = (nom: string) => ({
  groupes: [nom],
  groupesAuteurs: [nom],
  readerGroups: [nom],
  authorGroups: [nom],
});

describe('POST /api/groupe (create)', () => {
  it('creates the group: the creator is sole manager, member and follower', async () => {
    const nom = groupName('Maths');
    const response = await browsers.manager
      .post('/api/groupe')
      .send({ nom: `  ${nom}  `, description: 'Les maths', ouvert: true, public: false });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      success: true,
      oid: expect.any(Number),
      nom,
      description: 'Les maths',
      ouvert: true,
      public: false,
      gestionnaires: [oids.manager],
      gestionnairesNames: ['Anne Gérant'],
      dateCreation: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    const perso = await browsers.manager.get('/api/groupes/perso');
    expect(perso.body.groupesAdmin).toContain(nom);
    expect(perso.body.groupesMembre).toContain(nom);
    expect(perso.body.groupesSuivis).toContain(nom);
  });

  it('defaults to a closed, non-public group with an empty description', async () => {
    const group = await createGroup(browsers.manager);
    expect(group).toMatchObject({ ouvert: false, public: false, description: '' });
  });

  it.each([
    ['anonymous', 401, 'Authentification requise'],
    ['pupil', 403, 'Droits insuffisants'],
    ['token', 403, 'Droits insuffisants'],
  ])('denies %s callers (%i), whatever permissions they post', async (actor, status, error) => {
    const caller = actor === 'pupil' ? browsers.pupil : app.client();
    const count = await db.group.count();
    const response = await caller
      .post('/api/groupe')
      .set(actor === 'token' ? tokenHeaders : {})
      .send({ nom: groupName(), permissions: ['createGroupe'], roles: ['admin'] });
    expect(response.status).toBe(status);
    expect(response.body).toEqual({ success: false, error });
    expect(await db.group.count()).toBe(count);
  });

  it('refuses a name equivalent to an existing one (409)', async () => {
    const nom = groupName('Équipe Été');
    await createGroup(browsers.manager, { nom });
    const twin = nom
      .toUpperCase()
      .normalize('NFD')
      .replace(/\p{Diacritic}/gu, '')
      .replace(/ /g, '--');
    const response = await browsers.outsider.post('/api/groupe').send({ nom: twin });
    expect(response.status).toBe(409);
    expect(response.body).toEqual({ success: false, error: `Le groupe ${twin} existe déjà` });
  });

  it.each([
    [{}, 'Impossible de créer un groupe sans nom'],
    [{ nom: '   ' }, 'Impossible de créer un groupe sans nom'],
    [{ nom: '!!! ???' }, /Nom de groupe invalide/],
    [{ nom: '🎉🎉' }, /Nom de groupe invalide/],
    [{ nom: 'x'.repeat(201) }, 'Le nom d’un groupe ne peut dépasser 200 caractères'],
    [{ nom: 123 }, /Paramètres invalides/],
    [{ nom: ['a'] }, /Paramètres invalides/],
    [{ nom: 'ok', ouvert: 'peut-être' }, /Paramètres invalides/],
    [{ nom: 'ok', description: { html: true } }, /Paramètres invalides/],
  ])('rejects %j with 400 and writes nothing', async (body, error) => {
    const count = await db.group.count();
    const response = await browsers.manager.post('/api/groupe').send(body);
    expect(response.status).toBe(400);
    expect(response.body.success).toBe(false);
    if (typeof error === 'string') expect(response.body.error).toBe(error);
    else expect(response.body.error).toMatch(error);
    expect(await db.group.count()).toBe(count);
  });

  it('coerces legacy boolean spellings of ouvert and public', async () => {
    const open = await createGroup(browsers.manager, { ouvert: 'true', public: 1 });
    expect(open).toMatchObject({ ouvert: true, public: true });
    const closed = await createGroup(browsers.manager, { ouvert: '0', public: '' });
    expect(closed).toMatchObject({ ouvert: false, public: false });
  });

  it('round-trips Unicode names byte for byte through byNom', async () => {
    const nom = `Été 🌞 مرحبا\u200F עברית ${Math.random().toString(36).slice(2, 6)}`;
    await createGroup(browsers.manager, { nom });
    const response = await app.client().get(`/api/groupe/byNom/${encodeURIComponent(nom)}`);
    expect(response.status).toBe(200);
    expect(Buffer.from(response.body.nom).equals(Buffer.from(nom))).toBe(true);
  });

  it('creates exactly one group out of 10 concurrent equivalent creations', async () => {
    const base = groupName('Concurrence');
    const spellings = Array.from({ length: 10 }, (_, i) =>
      i % 2 === 0 ? base : base.toUpperCase().replace(/ /g, i % 3 === 0 ? '_' : '  '),
    );
    const responses = await Promise.all(
      spellings.map((nom) => browsers.manager.post('/api/groupe').send({ nom })),
    );
    const statuses = responses.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 409, 409, 409, 409, 409, 409, 409, 409, 409]);
    for (const r of responses.filter((r) => r.status === 409)) expect(r.body.error).toMatch(/existe déjà$/);
    expect(await db.group.count({ where: { nomKey: base.toLowerCase() } })).toBe(1);
  });
});

describe('POST /api/groupe (update)', () => {
  it('lets a manager change flags and description, and only what is posted', async () => {
    const group = await createGroup(browsers.manager, { description: 'avant', ouvert: true });
    const response = await browsers.manager.post('/api/groupe').send({ oid: group.oid, public: true });
    expect(response.body).toMatchObject({ ouvert: true, public: true, description: 'avant' });
  });

  it.each([
    ['an outsider', () => browsers.outsider, 403],
    ['a member', () => browsers.member, 403],
    ['anonymous', () => app.client(), 401],
  ])('denies %s (%i) and changes nothing', async (_label, caller, status) => {
    const group = await populatedGroup({ description: 'intact' });
    const response = await caller()
      .post('/api/groupe')
      .send({ oid: group.oid, nom: groupName(), description: 'pirate' });
    expect(response.status).toBe(status);
    const stored = await db.group.findUniqueOrThrow({ where: { oid: group.oid } });
    expect(stored).toMatchObject({ nom: group.nom, description: 'intact' });
  });

  it('answers 404 for an unknown oid', async () => {
    const response = await browsers.manager.post('/api/groupe').send({ oid: 987654321, nom: 'x' });
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ success: false, error: 'Le groupe 987654321 n’existe pas' });
  });

  it('renames: the new name shows at once in members’ lists, resources and the caller’s requests', async () => {
    const group = await populatedGroup();
    const resource = await db.resource.create({
      data: {
        origine: 'test',
        idOrigine: groupName('res'),
        type: 'url',
        readerGroups: { create: { groupOid: group.oid, position: 0 } },
        authorGroups: { create: { groupOid: group.oid, position: 0 } },
      },
    });
    // Read through the API before and after: what a client was served must not outlive the rename.
    expect(await groupsServed(resource.oid)).toEqual(namesServed(group.nom));
    const nom = groupName('Renommé');
    const response = await browsers.manager.post('/api/groupe').send({ oid: group.oid, nom });
    expect(response.body).toMatchObject({ success: true, oid: group.oid, nom });
    expect(await groupsServed(resource.oid)).toEqual(namesServed(nom));

    const member = await browsers.member.get('/api/personne/me');
    expect(member.body.person.groupesMembre).toContain(nom);
    expect(member.body.person.groupesMembre).not.toContain(group.nom);
    const manager = await browsers.manager.get('/api/groupes/admin');
    expect(manager.body.groupesAdmin).toContainEqual({ name: nom, admin: true });
    const links = await db.resource.findUniqueOrThrow({
      where: { oid: resource.oid },
      select: { readerGroups: { select: { group: true } }, authorGroups: { select: { group: true } } },
    });
    expect(links.readerGroups.map((g) => g.group.nom)).toEqual([nom]);
    expect(links.authorGroups.map((g) => g.group.nom)).toEqual([nom]);
    expect((await app.client().get(path('/api/groupe/byNom/:nom', group.nom))).status).toBe(404);
  });

  it('refuses a rename onto an equivalent existing name and keeps the old one', async () => {
    const taken = await createGroup(browsers.manager);
    const group = await createGroup(browsers.manager);
    const response = await browsers.manager
      .post('/api/groupe')
      .send({ oid: group.oid, nom: taken.nom.toUpperCase() });
    expect(response.status).toBe(409);
    expect((await db.group.findUniqueOrThrow({ where: { oid: group.oid } })).nom).toBe(group.nom);
  });

  it('adds a manager when pid and name designate a person, once', async () => {
    const group = await createGroup(browsers.manager);
    const pid = `labG/${users.member.oid}`;
    for (const nom of ['membre', 'Bruno Membre']) {
      const response = await browsers.manager
        .post('/api/groupe')
        .send({ oid: group.oid, newGestionnairePid: pid, newGestionnaireNom: nom });
      expect(response.body.gestionnaires).toEqual([oids.manager, oids.member]);
      expect(response.body.gestionnairesNames).toEqual(['Anne Gérant', 'Bruno Membre']);
    }
  });

  it.each([
    [
      { newGestionnairePid: 'labG/nobody', newGestionnaireNom: 'X' },
      /^Aucune personne avec le pid labG\/nobody/,
    ],
    [{ newGestionnaireNom: 'Membre' }, 'Il faut le pid et le nom du nouveau gestionnaire'],
    [{ newGestionnairePid: 'labG/x' }, 'Il faut le pid et le nom du nouveau gestionnaire'],
  ])('refuses a manager that designates nobody (%j): 404, nothing written', async (fields, error) => {
    const group = await createGroup(browsers.manager, { description: 'avant' });
    const response = await browsers.manager
      .post('/api/groupe')
      .send({ oid: group.oid, description: 'après', ...fields });
    expect(response.status).toBe(404);
    if (typeof error === 'string') expect(response.body.error).toBe(error);
    else expect(response.body.error).toMatch(error);
    expect((await db.group.findUniqueOrThrow({ where: { oid: group.oid } })).description).toBe('avant');
    expect(await db.groupManager.count({ where: { groupOid: group.oid } })).toBe(1);
  });

  it('with empty newGestionnaire fields changes nothing about managers', async () => {
    const group = await createGroup(browsers.manager);
    const response = await browsers.manager
      .post('/api/groupe')
      .send({ oid: group.oid, newGestionnairePid: '', newGestionnaireNom: '' });
    expect(response.body.gestionnaires).toEqual([oids.manager]);
  });
});

describe('reading a group', () => {
  it('serves byId, /:oid and byNom, with manager names only in format=full', async () => {
    const group = await createGroup(browsers.manager);
    for (const url of [
      `/api/groupe/byId/${group.oid}`,
      `/api/groupe/${group.oid}`,
      path('/api/groupe/byNom/:nom', group.nom),
    ]) {
      const plain = await app.client().get(url);
      expect(plain.status).toBe(200);
      expect(plain.body).toMatchObject({
        success: true,
        oid: group.oid,
        nom: group.nom,
        gestionnaires: [oids.manager],
      });
      expect(plain.body.gestionnairesNames).toBeUndefined();
      const full = await app.client().get(url).query({ format: 'full' });
      expect(full.body.gestionnairesNames).toEqual(['Anne Gérant']);
    }
  });

  it('finds a group by an equivalent spelling of its name', async () => {
    const group = await createGroup(browsers.manager, { nom: groupName('Sciences Physiques') });
    const response = await app
      .client()
      .get(path('/api/groupe/byNom/:nom', group.nom.toUpperCase().replace(/ /g, '-')));
    expect(response.body.nom).toBe(group.nom);
  });

  it('answers 404 for unknown groups, including ids that cannot be an oid', async () => {
    expect((await app.client().get('/api/groupe/byId/99999999')).status).toBe(404);
    expect((await app.client().get('/api/groupe/byNom/nope-nope-nope')).body).toEqual({
      success: false,
      error: 'Le groupe nope-nope-nope n’existe pas',
    });
    for (const id of ['abc', '-1', '1.5', '2147483648']) {
      expect(await app.client().get(`/api/groupe/byId/${id}`), id).toMatchObject({
        status: 404,
        body: { success: false, error: 'Ce contenu n’existe pas' },
      });
    }
  });
});

describe('GET /api/groupe/ajouter/:nom', () => {
  it('creates a closed, public group managed, joined and followed by the caller', async () => {
    const nom = groupName('Ajout');
    const response = await browsers.manager.get(path('/api/groupe/ajouter/:nom', nom));
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ success: true });
    const stored = await db.group.findFirstOrThrow({
      where: { nom },
      include: { managers: true, members: true, followers: true },
    });
    expect(stored).toMatchObject({ ouvert: false, public: true });
    for (const list of [stored.managers, stored.members, stored.followers]) {
      expect(list.map((row) => row.personOid)).toEqual([oids.manager]);
    }
  });

  it('needs createGroupe and a free name', async () => {
    const nom = groupName('Ajout');
    expect((await browsers.pupil.get(path('/api/groupe/ajouter/:nom', nom))).status).toBe(403);
    expect((await app.client().get(path('/api/groupe/ajouter/:nom', nom))).status).toBe(401);
    expect((await browsers.manager.get(path('/api/groupe/ajouter/:nom', nom))).status).toBe(200);
    expect((await browsers.outsider.get(path('/api/groupe/ajouter/:nom', nom))).status).toBe(409);
  });
});

describe('joining and following', () => {
  it('rejoindre: an open group, idempotently, under /groupe and /api/groupe', async () => {
    const group = await createGroup(browsers.manager, { ouvert: true });
    for (const prefix of ['/groupe', '/api/groupe', '/groupe']) {
      const response = await browsers.outsider.get(path(`${prefix}/rejoindre/:nom`, group.nom));
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({
        success: true,
        nom: group.nom,
        gestionnairesNames: ['Anne Gérant'],
      });
    }
    expect(await db.groupMember.count({ where: { groupOid: group.oid, personOid: oids.outsider } })).toBe(1);
  });

  it('rejoindre: a closed group only for its members and managers', async () => {
    const group = await populatedGroup({ ouvert: false });
    const outsider = await browsers.outsider.get(path('/groupe/rejoindre/:nom', group.nom));
    expect(outsider.status).toBe(403);
    expect(outsider.body.error).toBe(`Le groupe ${group.nom} n’est pas ouvert`);
    expect((await browsers.member.get(path('/groupe/rejoindre/:nom', group.nom))).status).toBe(200);
    expect((await browsers.manager.get(path('/groupe/rejoindre/:nom', group.nom))).status).toBe(200);
  });

  it('suivre: a public group, or any group for its managers', async () => {
    const hidden = await createGroup(browsers.manager, { public: false, ouvert: true });
    const refused = await browsers.outsider.get(path('/groupe/suivre/:nom', hidden.nom));
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe(`Le groupe ${hidden.nom} n’est pas public`);
    // Being a member is not enough to follow a non-public group.
    await groupAction(browsers.member, 'rejoindre', hidden.nom);
    expect((await browsers.member.get(path('/groupe/suivre/:nom', hidden.nom))).status).toBe(403);
    expect((await browsers.manager.get(path('/api/groupe/suivre/:nom', hidden.nom))).status).toBe(200);
    const open = await createGroup(browsers.manager, { public: true });
    for (let i = 0; i < 2; i++) {
      const response = await browsers.pupil.get(path('/groupe/suivre/:nom', open.nom));
      expect(response.body).toMatchObject({
        success: true,
        oid: open.oid,
        gestionnairesNames: ['Anne Gérant'],
      });
    }
    expect(await db.groupFollower.count({ where: { groupOid: open.oid, personOid: oids.pupil } })).toBe(1);
  });

  it.each([
    '/groupe/rejoindre/:nom',
    '/groupe/suivre/:nom',
    '/groupe/quitter/:nom',
    '/api/groupe/ignorer/:nom',
  ])('%s: 404 for an unknown group, 401 for anonymous, 403 for a token alone', async (template) => {
    expect((await browsers.outsider.get(path(template, 'groupe-inexistant-xyz'))).status).toBe(404);
    const group = await createGroup(browsers.manager, { ouvert: true, public: true });
    expect((await app.client().get(path(template, group.nom))).status).toBe(401);
    expect((await app.client().get(path(template, group.nom)).set(tokenHeaders)).status).toBe(403);
  });
});

describe('quitting and ignoring', () => {
  it('quitter removes membership only; a second time it says the caller was not in the group', async () => {
    const group = await populatedGroup();
    await groupAction(browsers.member, 'suivre', group.nom);
    const response = await browsers.member.get(path('/groupe/quitter/:nom', group.nom));
    expect(response.body).toEqual({ success: true });
    const perso = await browsers.member.get('/api/groupes/perso');
    expect(perso.body.groupesMembre).not.toContain(group.nom);
    expect(perso.body.groupesSuivis).toContain(group.nom);
    const again = await browsers.member.get(path('/api/groupe/quitter/:nom', group.nom));
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ success: false, error: `Vous n’étiez pas dans le groupe ${group.nom}` });
  });

  it('a manager who quits stays a manager', async () => {
    const group = await createGroup(browsers.manager);
    await groupAction(browsers.manager, 'quitter', group.nom);
    const perso = await browsers.manager.get('/api/groupes/perso');
    expect(perso.body.groupesAdmin).toContain(group.nom);
    expect(perso.body.groupesMembre).not.toContain(group.nom);
  });

  it('ignorer removes following only; not following is an error', async () => {
    const group = await populatedGroup();
    await groupAction(browsers.member, 'suivre', group.nom);
    expect((await browsers.member.get(path('/api/groupe/ignorer/:nom', group.nom))).body).toEqual({
      success: true,
    });
    const perso = await browsers.member.get('/api/groupes/perso');
    expect(perso.body.groupesSuivis).not.toContain(group.nom);
    expect(perso.body.groupesMembre).toContain(group.nom);
    const again = await browsers.member.get(path('/api/groupe/ignorer/:nom', group.nom));
    expect(again.status).toBe(409);
    expect(again.body.error).toBe(`Vous n’étiez pas dans le groupe ${group.nom}`);
  });
});

describe('DELETE /api/groupe/:nom', () => {
  it('deletes (managers only): the name leaves persons and resources, deleted echoes the name', async () => {
    const group = await populatedGroup();
    const resource = await db.resource.create({
      data: {
        origine: 'test',
        idOrigine: groupName('res'),
        type: 'url',
        readerGroups: { create: { groupOid: group.oid, position: 0 } },
      },
    });
    expect((await browsers.member.delete(path('/api/groupe/:nom', group.nom))).status).toBe(403);
    expect((await browsers.outsider.delete(path('/api/groupe/:nom', group.nom))).status).toBe(403);
    expect((await app.client().delete(path('/api/groupe/:nom', group.nom))).status).toBe(401);
    const response = await browsers.manager.delete(path('/api/groupe/:nom', group.nom));
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ success: true, deleted: group.nom });
    expect((await browsers.member.get('/api/personne/me')).body.person.groupesMembre).not.toContain(
      group.nom,
    );
    expect(await db.resourceGroup.count({ where: { resourceOid: resource.oid } })).toBe(0);
    expect(await db.resource.count({ where: { oid: resource.oid } })).toBe(1);
    expect((await browsers.manager.delete(path('/api/groupe/:nom', group.nom))).status).toBe(404);
  });

  it('lets an administrator delete a group they do not manage; a token alone is not a person', async () => {
    const group = await createGroup(browsers.manager);
    const byToken = await app.client().delete(path('/api/groupe/:nom', group.nom)).set(tokenHeaders);
    expect(byToken.status).toBe(403);
    const { browser: admin } = await logInWithRoles(app, lab, ['admin']);
    const byAdmin = await admin.delete(path('/api/groupe/:nom', group.nom));
    expect(byAdmin.body).toEqual({ success: true, deleted: group.nom });
  });

  it('announces DELETE,OPTIONS on OPTIONS /api/groupe/:nom, and answers OPTIONS /api/groupe', async () => {
    const single = await app
      .client()
      .options('/api/groupe/quelconque')
      .set('Origin', new URL(lab.baseUrl).origin);
    expect(single.status).toBe(204);
    expect(single.headers['access-control-allow-methods']).toBe('DELETE,OPTIONS');
    const root = await app.client().options('/api/groupe');
    expect(root.status).toBe(204);
    for (const list of ['admin', 'membre', 'perso', 'suivis', 'ouverts', 'publics']) {
      expect((await app.client().options(`/api/groupes/${list}`)).status).toBe(204);
    }
  });
});

describe('group lists', () => {
  it('admin, membre, suivis: managed first, then member, then followed, each once', async () => {
    const viewer = await logIn(app, lab, labUser({ type: 1 }));
    const managed = await createGroup(viewer, { nom: groupName('A géré'), public: true, ouvert: true });
    const joined = await createGroup(browsers.manager, {
      nom: groupName('B membre'),
      ouvert: true,
      public: true,
    });
    const followed = await createGroup(browsers.manager, { nom: groupName('C suivi'), public: true });
    await groupAction(viewer, 'rejoindre', joined.nom);
    await groupAction(viewer, 'suivre', followed.nom);
    await groupAction(viewer, 'suivre', joined.nom);

    expect((await viewer.get('/api/groupes/admin')).body).toEqual({
      success: true,
      groupesAdmin: [{ name: managed.nom, admin: true }],
    });
    expect((await viewer.get('/api/groupes/membre')).body).toEqual({
      success: true,
      groupesMembre: [
        { name: managed.nom, admin: true },
        { name: joined.nom, member: true },
      ],
    });
    expect((await viewer.get('/api/groupes/suivis')).body).toEqual({
      success: true,
      groupesSuivis: [
        { name: managed.nom, admin: true },
        { name: joined.nom, member: true },
        { name: followed.nom, follower: true },
      ],
    });
    const perso = await viewer.get('/api/groupes/perso');
    expect(perso.body).toEqual({
      success: true,
      groupes: {
        [managed.nom]: expect.objectContaining({
          oid: managed.oid,
          gestionnairesNames: [expect.any(String)],
        }),
        [joined.nom]: expect.objectContaining({ oid: joined.oid, gestionnairesNames: ['Anne Gérant'] }),
        [followed.nom]: expect.objectContaining({ oid: followed.oid, gestionnairesNames: ['Anne Gérant'] }),
      },
      groupesAdmin: [managed.nom],
      groupesMembre: [managed.nom, joined.nom],
      groupesSuivis: [managed.nom, joined.nom, followed.nom],
    });
  });

  it('ouverts and publics list open and public groups with manager names', async () => {
    const open = await createGroup(browsers.manager, { ouvert: true, public: false });
    const pub = await createGroup(browsers.manager, { ouvert: false, public: true });
    const ouverts = (await browsers.pupil.get('/api/groupes/ouverts')).body.groupes as { nom: string }[];
    const publics = (await browsers.pupil.get('/api/groupes/publics')).body.groupes as { nom: string }[];
    expect(ouverts.map((g) => g.nom)).toContain(open.nom);
    expect(ouverts.map((g) => g.nom)).not.toContain(pub.nom);
    expect(publics.map((g) => g.nom)).toContain(pub.nom);
    expect(publics.map((g) => g.nom)).not.toContain(open.nom);
    expect(ouverts.find((g) => g.nom === open.nom)).toMatchObject({ gestionnairesNames: ['Anne Gérant'] });
  });

  it.each(['admin', 'membre', 'suivis', 'perso', 'ouverts', 'publics'])(
    '/api/groupes/%s needs a person',
    async (list) => {
      expect((await app.client().get(`/api/groupes/${list}`)).status).toBe(401);
      expect((await app.client().get(`/api/groupes/${list}`).set(tokenHeaders)).status).toBe(403);
    },
  );

  it('issue the same number of SQL statements for 2 groups or 20 (no N+1 on manager names)', async () => {
    const viewer = await logIn(app, lab, labUser({ type: 1 }));
    /** Statements of one list, which must hold at least `groups` groups (or it measures nothing). */
    const count = async (url: string, groups: number) => {
      const statements: string[] = [];
      const stop = onStatement((sql) => statements.push(sql));
      try {
        const response = await viewer.get(url);
        expect(response.status).toBe(200);
        expect(Object.keys(response.body.groupes).length).toBeGreaterThanOrEqual(groups);
      } finally {
        stop();
      }
      return statements.length;
    };
    const managers = [browsers.manager, browsers.member, browsers.outsider];
    const addGroups = async (n: number) => {
      for (let i = 0; i < n; i++) {
        const group = await createGroup(managers[i % 3]!, { ouvert: true, public: true });
        await groupAction(viewer, 'rejoindre', group.nom);
      }
    };
    await addGroups(2);
    const small = {
      perso: await count('/api/groupes/perso', 2),
      ouverts: await count('/api/groupes/ouverts', 2),
    };
    await addGroups(18);
    const large = {
      perso: await count('/api/groupes/perso', 20),
      ouverts: await count('/api/groupes/ouverts', 20),
    };
    expect(large).toEqual(small);
    // perso: session, caller, roles; the three relation lists; groups, managers, persons.
    expect(small.perso).toBeLessThanOrEqual(9);
    // ouverts: session, caller, roles; groups, managers, persons.
    expect(small.ouverts).toBeLessThanOrEqual(6);
  });
});

describe('GraphQL gives the same outcomes as REST', () => {
  type Actor = 'anonymous' | 'manager' | 'member' | 'outsider' | 'pupil' | 'token';
  const actors: Actor[] = ['anonymous', 'manager', 'member', 'outsider', 'pupil', 'token'];
  const as = (actor: Actor) =>
    actor === 'anonymous' || actor === 'token'
      ? { caller: app.client(), headers: actor === 'token' ? tokenHeaders : {} }
      : { caller: browsers[actor], headers: {} };
  const statusOfCode: Record<string, number> = {
    UNAUTHENTICATED: 401,
    FORBIDDEN: 403,
    NOT_FOUND: 404,
    CONFLICT: 409,
    INVALID_INPUT: 400,
  };

  /** Each case: a REST call and the GraphQL mutation/query doing the same on a fresh closed, non-public group. */
  const cases: Record<
    string,
    {
      rest: (actor: Actor, nom: string, oid: number) => Promise<{ status: number }>;
      gql: string;
      vars: (nom: string, oid: number) => Record<string, unknown>;
      field: string;
    }
  > = {
    rejoindre: {
      rest: (a, nom) => as(a).caller.get(path('/groupe/rejoindre/:nom', nom)).set(as(a).headers),
      gql: 'mutation ($nom: String!) { joinGroup(nom: $nom) { ... on Error { code } ... on Group { oid } } }',
      vars: (nom) => ({ nom }),
      field: 'joinGroup',
    },
    suivre: {
      rest: (a, nom) => as(a).caller.get(path('/groupe/suivre/:nom', nom)).set(as(a).headers),
      gql: 'mutation ($nom: String!) { followGroup(nom: $nom) { ... on Error { code } ... on Group { oid } } }',
      vars: (nom) => ({ nom }),
      field: 'followGroup',
    },
    quitter: {
      rest: (a, nom) => as(a).caller.get(path('/groupe/quitter/:nom', nom)).set(as(a).headers),
      gql: 'mutation ($nom: String!) { quitGroup(nom: $nom) { ... on Error { code } ... on Group { oid } } }',
      vars: (nom) => ({ nom }),
      field: 'quitGroup',
    },
    update: {
      rest: (a, _nom, oid) =>
        as(a).caller.post('/api/groupe').set(as(a).headers).send({ oid, description: 'x' }),
      gql: 'mutation ($input: SaveGroupInput!) { saveGroup(input: $input) { ... on Error { code } ... on Group { oid } } }',
      vars: (_nom, oid) => ({ input: { oid, description: 'x' } }),
      field: 'saveGroup',
    },
    delete: {
      rest: (a, nom) => as(a).caller.delete(path('/api/groupe/:nom', nom)).set(as(a).headers),
      gql: 'mutation ($nom: String!) { deleteGroup(nom: $nom) { ... on Error { code } ... on DeletedGroup { oid } } }',
      vars: (nom) => ({ nom }),
      field: 'deleteGroup',
    },
    byNom: {
      rest: (a, nom) => as(a).caller.get(path('/api/groupe/byNom/:nom', nom)).set(as(a).headers),
      gql: 'query ($nom: String!) { groupByName(nom: $nom) { ... on Error { code } ... on Group { oid } } }',
      vars: (nom) => ({ nom }),
      field: 'groupByName',
    },
  };

  const expected: Record<string, Record<Actor, number>> = {
    rejoindre: { anonymous: 401, manager: 200, member: 200, outsider: 403, pupil: 403, token: 403 },
    suivre: { anonymous: 401, manager: 200, member: 403, outsider: 403, pupil: 403, token: 403 },
    quitter: { anonymous: 401, manager: 200, member: 200, outsider: 409, pupil: 409, token: 403 },
    update: { anonymous: 401, manager: 200, member: 403, outsider: 403, pupil: 403, token: 403 },
    delete: { anonymous: 401, manager: 200, member: 403, outsider: 403, pupil: 403, token: 403 },
    byNom: { anonymous: 200, manager: 200, member: 200, outsider: 200, pupil: 200, token: 200 },
  };

  /**
   * What the group and the caller's relations to it are, read back through the API: the group as
   * anyone reads it, the caller's own lists of groups (a person's; others have none).
   */
  async function stateOf(actor: Actor, group: { oid: number; nom: string }) {
    const read = await app.client().get(`/api/groupe/byId/${group.oid}`);
    expect([200, 404]).toContain(read.status);
    const state = {
      exists: read.status === 200,
      description: read.body.description as string | undefined,
      manager: false,
      member: false,
      follower: false,
    };
    if (actor === 'anonymous' || actor === 'token') return state;
    const mine = await browsers[actor].get('/api/groupes/perso');
    expect(mine.status, JSON.stringify(mine.body)).toBe(200);
    state.manager = mine.body.groupesAdmin.includes(group.nom);
    state.member = mine.body.groupesMembre.includes(group.nom);
    state.follower = mine.body.groupesSuivis.includes(group.nom);
    return state;
  }
  type State = Awaited<ReturnType<typeof stateOf>>;
  /** The state an allowed call leaves. */
  const effects: Record<string, (before: State) => State> = {
    rejoindre: (before) => ({ ...before, member: true }),
    suivre: (before) => ({ ...before, follower: true }),
    quitter: (before) => ({ ...before, member: false }),
    update: (before) => ({ ...before, description: 'x' }),
    delete: () => ({ exists: false, description: undefined, manager: false, member: false, follower: false }),
    byNom: (before) => before,
  };

  for (const [name, spec] of Object.entries(cases)) {
    it.each(actors)(`${name} as %s: status and stored state`, async (actor) => {
      // Two identical groups, one per transport, so that each call sees the same state.
      const outcomes: number[] = [];
      for (const transport of ['rest', 'graphql'] as const) {
        const group = await populatedGroup({ ouvert: false, public: false });
        const before = await stateOf(actor, group);
        let status: number;
        if (transport === 'rest') {
          status = (await spec.rest(actor, group.nom, group.oid)).status;
        } else {
          const { caller, headers } = as(actor);
          const response = await graphql(caller, spec.gql, spec.vars(group.nom, group.oid), headers);
          const code = errorCode(response, spec.field);
          status = code ? (statusOfCode[code] ?? 500) : 200;
        }
        const after = await stateOf(actor, group);
        // Allowed: exactly the effect of the call; refused: nothing changed.
        expect(after, `${transport}: ${status}`).toEqual(status === 200 ? effects[name]!(before) : before);
        outcomes.push(status);
      }
      expect(outcomes).toEqual([expected[name]![actor], expected[name]![actor]]);
    });
  }
});

describe('GraphQL group operations', () => {
  const GROUP = 'oid nom ouvert public managers { position person { oid label } }';

  it('createGroup, updateGroup and createGroupFromName return typed errors', async () => {
    const nom = groupName('GQL');
    const create = `mutation ($input: SaveGroupInput!) { createGroup(input: $input) { __typename ... on Error { code message } ... on Group { ${GROUP} } } }`;
    const created = await graphql(browsers.manager, create, { input: { nom, ouvert: true } });
    expect(created.data?.createGroup).toMatchObject({
      __typename: 'Group',
      nom,
      ouvert: true,
      public: false,
      managers: [{ position: 0, person: { oid: oids.manager, label: 'Anne Gérant' } }],
    });
    const taken = await graphql(browsers.outsider, create, { input: { nom: nom.toLowerCase() } });
    expect(taken.data?.createGroup).toMatchObject({ __typename: 'GroupNameTakenError', code: 'CONFLICT' });
    const invalid = await graphql(browsers.outsider, create, { input: { nom: '?!' } });
    expect(invalid.data?.createGroup).toMatchObject({
      __typename: 'InvalidGroupNameError',
      code: 'INVALID_INPUT',
    });
    const pupil = await graphql(browsers.pupil, create, { input: { nom: groupName() } });
    expect(pupil.data?.createGroup).toMatchObject({ __typename: 'ForbiddenError', code: 'FORBIDDEN' });

    const update = `mutation ($oid: Int!, $input: SaveGroupInput!) { updateGroup(oid: $oid, input: $input) { __typename ... on Error { code } ... on Group { ${GROUP} } } }`;
    const oid = (created.data?.createGroup as { oid: number } | undefined)?.oid;
    expect(oid).toEqual(expect.any(Number));
    const noManager = await graphql(browsers.manager, update, {
      oid,
      input: { newGestionnairePid: 'x/y', newGestionnaireNom: 'z' },
    });
    expect(noManager.data?.updateGroup).toMatchObject({
      __typename: 'ManagerNotFoundError',
      code: 'NOT_FOUND',
    });
    const renamed = await graphql(browsers.manager, update, {
      oid,
      input: { nom: `${nom} bis`, public: true },
    });
    expect(renamed.data?.updateGroup).toMatchObject({ nom: `${nom} bis`, public: true, ouvert: true });
    const missing = await graphql(browsers.manager, update, { oid: 99999999, input: {} });
    expect(missing.data?.updateGroup).toMatchObject({ __typename: 'GroupNotFoundError', code: 'NOT_FOUND' });

    const fromName = await graphql(
      browsers.manager,
      'mutation ($nom: String!) { createGroupFromName(nom: $nom) { ... on Group { ouvert public } } }',
      { nom: groupName('Depuis nom') },
    );
    expect(fromName.data?.createGroupFromName).toEqual({ ouvert: false, public: true });
  });

  it('myGroups, openGroups, publicGroups and group(oid) read what REST reads', async () => {
    const viewer = await logIn(app, lab, labUser({ type: 1 }));
    const own = await createGroup(viewer, { ouvert: true, public: true });
    const other = await createGroup(browsers.manager, { public: true });
    await groupAction(viewer, 'suivre', other.nom);
    const response = await graphql(
      viewer,
      `{ myGroups { manager member follower group { nom managers { person { oid } } } }
         openGroups { nom } publicGroups { nom } }`,
    );
    expect(response.data?.myGroups).toEqual(
      [
        {
          manager: true,
          member: true,
          follower: true,
          group: { nom: own.nom, managers: [{ person: { oid: expect.any(Number) } }] },
        },
        {
          manager: false,
          member: false,
          follower: true,
          group: { nom: other.nom, managers: [{ person: { oid: oids.manager } }] },
        },
      ].sort((a, b) => (a.group.nom.toLowerCase() < b.group.nom.toLowerCase() ? -1 : 1)),
    );
    expect(response.data?.openGroups).toContainEqual({ nom: own.nom });
    expect(response.data?.openGroups).not.toContainEqual({ nom: other.nom });
    expect(response.data?.publicGroups).toEqual(
      expect.arrayContaining([{ nom: own.nom }, { nom: other.nom }]),
    );
    const byOid = await graphql(
      app.client(),
      'query ($oid: Int!) { group(oid: $oid) { ... on Group { nom } } }',
      {
        oid: own.oid,
      },
    );
    expect(byOid.data?.group).toEqual({ nom: own.nom });
    const anonymous = await graphql(app.client(), '{ myGroups { manager } }');
    expect(anonymous.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });

  it('ignoreGroup and quitGroup report NotInGroupError', async () => {
    const group = await createGroup(browsers.manager, { public: true });
    const quit = await graphql(
      browsers.outsider,
      'mutation ($nom: String!) { quitGroup(nom: $nom) { __typename ... on Error { code message } } }',
      { nom: group.nom },
    );
    expect(quit.data?.quitGroup).toEqual({
      __typename: 'NotInGroupError',
      code: 'CONFLICT',
      message: `Vous n’étiez pas dans le groupe ${group.nom}`,
    });
    const ignore = await graphql(
      browsers.manager,
      'mutation ($nom: String!) { ignoreGroup(nom: $nom) { __typename ... on Group { nom } } }',
      { nom: group.nom },
    );
    expect(ignore.data?.ignoreGroup).toEqual({ __typename: 'Group', nom: group.nom });
  });
});
