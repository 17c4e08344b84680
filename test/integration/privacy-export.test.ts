/**
 * The export of one person's data (GDPR access and portability; docs/privacy.md "Export"), through
 * GraphQL, REST and the command-line tool. Complete by construction: a person is given a row in
 * every place that can name them, then every table of the database, listed from its catalogue,
 * is scanned for rows naming them, and each such row must be represented in the export.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect } from 'vitest';
import { db, onStatement, provider } from '../../src/db/client.ts';
import { addPerson, type Browser, logIn, logInWithRoles, tokenHeaders } from '../support/actors.ts';
import type { TestApp } from '../support/app.ts';
import { rrsInProcess } from '../support/cli.ts';
import { type FakeLab, type LabUser, labUser } from '../support/fake-lab.ts';
import { appTest } from '../support/fixtures.ts';
import { errorCode, graphql } from '../support/graphql.ts';
import { createGroup, groupAction } from '../support/groups.ts';
import { createResource } from '../support/resources.ts';

const test = appTest.override({
  labId: 'labExport',
  appOptions: { peers: [{ baseId: 'voisine', baseUrl: 'http://voisine.test/' }] },
});

let lab: FakeLab;
let app: TestApp;
let subject: Browser;
let subjectUser: LabUser;
let otherTeacher: Browser;
let otherTeacherUser: LabUser;
let admin: Browser;
const folder = mkdtempSync(join(tmpdir(), 'rrs-privacy-export-'));

afterAll(() => rmSync(folder, { recursive: true, force: true }));

const unique = Math.random().toString(36).slice(2, 8);
const pidOf = (user: LabUser) => `${lab.baseId}/${user.oid}`;
const subjectPid = () => pidOf(subjectUser);

const EXPORT = `query($pid: String) { personalDataExport(pid: $pid) {
  __typename ... on Error { code message }
  ... on PersonalDataExport {
    format generatedAt
    person { oid pid nom prenom email createdAt updatedAt lastLoginAt }
    roles { role source grantedAt active }
    groups { managed { ...G } member { ...G } followed { ...G } }
    resources { authored { ...R } contributed { ...R } parentAuthored { ...R } mentioned { ...R } }
    resourceArchives { oid resourceOid rid version archivedAt }
    sessions { digest expiresAt labBaseId }
    auditEntries { id at asActor asSubject actorKind actorPid action entityKind entityId changes }
    peerNotifications { id kind peerBaseId status createdAt payload }
  } } }
fragment G on ExportedGroup { oid nom since position }
fragment R on ExportedResource { oid rid titre type position }`;

// biome-ignore lint/suspicious/noExplicitAny: the document is read field by field.
type Document = Record<string, any>;

const withoutTime = ({ generatedAt: _g, success: _s, __typename: _t, ...rest }: Document) => rest;

/** The subject: a teacher with a row in every place that can name a person. */
async function buildSubject() {
  subjectUser = labUser({ type: 1, nom: `Exportnom${unique}`, prenom: `Zélie${unique}` });
  // Roles from two sources: an administrator's grant, then the lab's at login.
  await addPerson(app, {
    origine: lab.baseId,
    idOrigine: String(subjectUser.oid),
    nom: subjectUser.nom,
    prenom: subjectUser.prenom,
    roles: ['editeur'],
  });
  subject = await logIn(app, lab, subjectUser);
  const pid = subjectPid();
  const ownGroup = await createGroup(subject, { ouvert: true, public: true });
  const joined = await createGroup(otherTeacher, { ouvert: true, public: false });
  const followed = await createGroup(otherTeacher, { ouvert: false, public: true });
  await groupAction(subject, 'rejoindre', joined.nom);
  await groupAction(subject, 'suivre', followed.nom);
  const otherPid = (
    await addPerson(app, { origine: lab.baseId, idOrigine: `autre${unique}`, nom: 'A', prenom: 'B' })
  ).pid;
  const authored = await createResource(app, { titre: 'Écrite', auteurs: [pid] });
  const contributed = await createResource(app, {
    titre: 'Aidée',
    auteurs: [otherPid],
    contributeurs: [pid],
  });
  const copied = await createResource(app, { titre: 'Copiée', auteurs: [otherPid], auteursParents: [pid] });
  // A sequence whose parameters list its pupils: the subject is named in a resource's JSON.
  const sequence = await createResource(app, {
    titre: 'Séquence',
    type: 'sequenceModele',
    auteurs: [otherPid],
    parametres: { eleves: [pid] },
  });
  // The subject's own change as a session person: an audit entry where they act.
  const ownResponse = await subject
    .post('/api/ressource')
    .send({ titre: 'Par moi', type: 'url', categories: [7], publie: true, restriction: 0 });
  expect(ownResponse.status, JSON.stringify(ownResponse.body)).toBe(200);
  const own = ownResponse.body.oid as number;
  // A version change archives the state naming them; a peer listening to it gets a notification.
  const listened = await app
    .client()
    .post('/api/ressource/registerListener')
    .set(tokenHeaders)
    .send({ action: 'add', baseId: 'voisine', rids: [`repo/${sequence}`] });
  expect(listened.body.success, JSON.stringify(listened.body)).toBe(true);
  const changed = await app
    .client()
    .post('/api/ressource?merge=1')
    .set(tokenHeaders)
    .send({ oid: sequence, parametres: { eleves: [pid], consigne: 'v2' } });
  expect(changed.status, JSON.stringify(changed.body)).toBe(200);
  return { ownGroup, joined, followed, authored, own, contributed, copied, sequence };
}

let built: Awaited<ReturnType<typeof buildSubject>>;

test.beforeAll(async ({ lab: startedLab, app: startedApp }) => {
  lab = startedLab;
  app = startedApp;
  otherTeacherUser = labUser({ type: 1 });
  otherTeacher = await logIn(app, lab, otherTeacherUser);
  admin = (await logInWithRoles(app, lab, ['admin'])).browser;
  built = await buildSubject();
});

const restExport = (caller: { get(url: string): import('supertest').Test }, pid?: string) =>
  caller.get(`/api/personne/export${pid === undefined ? '' : `?pid=${encodeURIComponent(pid)}`}`);

const asToken = {
  get: (url: string) => app.client().get(url).set(tokenHeaders),
  post: (url: string) => app.client().post(url).set(tokenHeaders),
};

// ---------------------------------------------------------------------------------------------
// The scan of every table.

interface Column {
  name: string;
  integer: boolean;
}

/** Every table of the database and its columns, from the database's own catalogue. */
async function catalogue(): Promise<Map<string, Column[]>> {
  const tables = new Map<string, Column[]>();
  if (provider === 'sqlite') {
    const names = await db.$queryRawUnsafe<{ name: string }[]>(
      `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`,
    );
    for (const { name } of names) {
      const columns = await db.$queryRawUnsafe<{ name: string; type: string }[]>(
        `SELECT name, type FROM pragma_table_info('${name}')`,
      );
      tables.set(
        name,
        columns.map((column) => ({ name: column.name, integer: /INT/i.test(column.type) })),
      );
    }
    return tables;
  }
  const columns = await db.$queryRawUnsafe<{ table_name: string; column_name: string; data_type: string }[]>(
    `SELECT table_name::text AS table_name, column_name::text AS column_name, data_type::text AS data_type
     FROM information_schema.columns
     WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position`,
  );
  for (const column of columns) {
    const list = tables.get(column.table_name) ?? [];
    list.push({ name: column.column_name, integer: /int/i.test(column.data_type) });
    tables.set(column.table_name, list);
  }
  return tables;
}

/** Whether a row names the person: their oid in a person or actor column, or their pid, e-mail or names in text. */
function namesPerson(row: Record<string, unknown>, columns: Column[], person: Document): boolean {
  const texts = [person.pid, person.email, person.nom, person.prenom].filter(Boolean) as string[];
  // A JSON key naming a person's oid (express-session's data holds `"personOid":12`).
  const oidInJson = new RegExp(`"(personOid|actorOid)"\\s*:\\s*${person.oid}(?![0-9])`);
  return columns.some(({ name, integer }) => {
    const value = row[name];
    if (value === null || value === undefined) return false;
    if (integer && /person|actor/i.test(name)) return Number(value) === person.oid;
    const text =
      typeof value === 'string'
        ? value
        : JSON.stringify(value, (_key, item) => (typeof item === 'bigint' ? Number(item) : item));
    return texts.some((fragment) => text.includes(fragment)) || oidInJson.test(text);
  });
}

const oids = (list: { oid: number }[]) => list.map((item) => item.oid);
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** For each table, whether a row is represented in the export (by the section that covers it). */
const COVERED_BY: Record<string, (row: Document, document: Document) => boolean> = {
  Person: (row, d) => row.oid === d.person.oid,
  PersonRole: (row, d) =>
    d.roles.some((role: Document) => role.role === row.role && role.source === row.source),
  GroupManager: (row, d) => oids(d.groups.managed).includes(Number(row.groupOid)),
  GroupMember: (row, d) => oids(d.groups.member).includes(Number(row.groupOid)),
  GroupFollower: (row, d) => oids(d.groups.followed).includes(Number(row.groupOid)),
  ResourceAuthor: (row, d) => oids(d.resources.authored).includes(Number(row.resourceOid)),
  ResourceContributor: (row, d) => oids(d.resources.contributed).includes(Number(row.resourceOid)),
  ResourceParentAuthor: (row, d) => oids(d.resources.parentAuthored).includes(Number(row.resourceOid)),
  Resource: (row, d) =>
    Object.values(d.resources).some((list) => oids(list as { oid: number }[]).includes(Number(row.oid))),
  ResourceArchive: (row, d) => oids(d.resourceArchives).includes(Number(row.oid)),
  AuditEntry: (row, d) => d.auditEntries.some((entry: Document) => entry.id === Number(row.id)),
  OutboxMessage: (row, d) => d.peerNotifications.some((message: Document) => message.id === row.id),
  Session: (row, d) => d.sessions.some((session: Document) => session.digest === sha256(String(row.id))),
};

describe('completeness', () => {
  test('every row of every table that names the person is in the export', async () => {
    const response = await restExport(asToken, subjectPid());
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    const document = response.body as Document;
    const uncovered: string[] = [];
    const tablesNaming = new Set<string>();
    for (const [table, columns] of await catalogue()) {
      const rows = await db.$queryRawUnsafe<Document[]>(`SELECT * FROM "${table}"`);
      for (const row of rows.filter((candidate) => namesPerson(candidate, columns, document.person))) {
        tablesNaming.add(table);
        const covered = COVERED_BY[table];
        const shown = JSON.stringify(row, (_key, item) => (typeof item === 'bigint' ? Number(item) : item));
        if (!covered) uncovered.push(`${table}: no export section covers it (${shown})`);
        else if (!covered(row, document)) uncovered.push(`${table}: row not exported (${shown})`);
      }
    }
    expect(uncovered).toEqual([]);
    // The set-up reached every place: a table that no longer names them would make the scan vacuous.
    expect([...tablesNaming].sort()).toEqual(Object.keys(COVERED_BY).sort());
  });

  test('the document holds what the set-up made, in each section', async () => {
    const { body } = await restExport(subject);
    expect(body.success).toBe(true);
    expect(body.format).toBe('rrs-personal-data/1');
    expect(body.person).toMatchObject({
      pid: subjectPid(),
      nom: subjectUser.nom,
      prenom: subjectUser.prenom,
      // They logged in through the lab.
      lastLoginAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    expect(body.roles.map((role: Document) => [role.role, role.source, role.active])).toEqual([
      ['editeur', 'admin', true],
      ['formateur', 'lab', true],
    ]);
    expect(oids(body.groups.managed)).toEqual([built.ownGroup.oid]);
    expect(body.groups.managed[0]).toMatchObject({ nom: built.ownGroup.nom, position: 0, since: null });
    expect(oids(body.groups.member).sort()).toEqual([built.ownGroup.oid, built.joined.oid].sort());
    expect(oids(body.groups.followed).sort()).toEqual([built.ownGroup.oid, built.followed.oid].sort());
    expect(body.resources.authored).toEqual([
      { oid: built.authored, rid: `repo/${built.authored}`, titre: 'Écrite', type: 'url', position: 0 },
      { oid: built.own, rid: `repo/${built.own}`, titre: 'Par moi', type: 'url', position: 0 },
    ]);
    expect(oids(body.resources.contributed)).toEqual([built.contributed]);
    expect(oids(body.resources.parentAuthored)).toEqual([built.copied]);
    expect(oids(body.resources.mentioned)).toEqual([built.sequence]);
    expect(body.resourceArchives.map((archive: Document) => archive.resourceOid)).toEqual([built.sequence]);
    expect(body.sessions.length).toBeGreaterThanOrEqual(1);
    expect(body.sessions[0]).toMatchObject({ labBaseId: lab.baseId });
    expect(body.sessions[0].digest).toMatch(/^[0-9a-f]{64}$/);
    const asActor = body.auditEntries.filter((entry: Document) => entry.asActor);
    expect(asActor.map((entry: Document) => entry.entityKind).sort()).toEqual(['group', 'resource']);
    // The token's creations and change naming them as author, contributor, parent author or pupil.
    expect(body.auditEntries.filter((entry: Document) => entry.asSubject && !entry.asActor)).toHaveLength(5);
    expect(body.peerNotifications).toHaveLength(1);
    expect(body.peerNotifications[0]).toMatchObject({ kind: 'externalUpdate', peerBaseId: 'voisine' });
  });

  test('never the session id, nor the cookie', async () => {
    const { body } = await restExport(subject);
    const sessions = await db.session.findMany({ select: { id: true, sid: true, data: true } });
    const text = JSON.stringify(body);
    for (const session of sessions) {
      expect(text).not.toContain(session.id);
      expect(text).not.toContain(session.sid);
    }
    expect(text).not.toContain('originalMaxAge');
  });

  test('a constant number of statements, whatever the number of resources', async () => {
    const { pid } = await addPerson(app, {
      origine: lab.baseId,
      idOrigine: `compte${unique}`,
      nom: 'C',
      prenom: 'D',
    });
    const count = async () => {
      let statements = 0;
      const stop = onStatement(() => {
        statements += 1;
      });
      try {
        expect((await restExport(asToken, pid)).status).toBe(200);
      } finally {
        stop();
      }
      return statements;
    };
    const write = (titre: string) => createResource(app, { titre, auteurs: [pid], contributeurs: [pid] });
    await write('Compte 1');
    const before = await count();
    for (const titre of ['Compte 2', 'Compte 3', 'Compte 4']) await write(titre);
    expect(await count()).toBe(before);
  });
});

describe('who may export', () => {
  test('the person themself, through REST and GraphQL, with or without their pid: the same document', async () => {
    const rest = await restExport(subject);
    expect(rest.status).toBe(200);
    const own = await restExport(subject, subjectPid());
    expect(own.status).toBe(200);
    const viaGraphQL = await graphql(subject, EXPORT);
    expect(viaGraphQL.errors).toBeUndefined();
    const document = viaGraphQL.data?.personalDataExport;
    expect(document.__typename).toBe('PersonalDataExport');
    expect(withoutTime(document)).toEqual(withoutTime(rest.body));
    expect(withoutTime(own.body)).toEqual(withoutTime(rest.body));
    expect(Date.parse(rest.body.generatedAt)).not.toBeNaN();
  });

  test('an administrator and an API token, for another person', async () => {
    for (const caller of [admin, asToken]) {
      const rest = await restExport(caller, subjectPid());
      expect(rest.status, JSON.stringify(rest.body)).toBe(200);
      expect(rest.body.person.pid).toBe(subjectPid());
      const viaGraphQL = await graphql(caller, EXPORT, { pid: subjectPid() });
      expect(viaGraphQL.data?.personalDataExport.person.pid).toBe(subjectPid());
    }
  });

  test('a teacher, or an editor, for another person: denied, whether the pid exists or not', async () => {
    // The subject holds `editeur` besides `formateur`: neither grants managePersonalData.
    const cases: [Browser, string][] = [
      [otherTeacher, subjectPid()],
      [otherTeacher, `${lab.baseId}/inconnu${unique}`],
      [subject, pidOf(otherTeacherUser)],
    ];
    for (const [caller, pid] of cases) {
      const rest = await restExport(caller, pid);
      expect(rest.status).toBe(403);
      expect(rest.body).toEqual({ success: false, error: 'Droits insuffisants' });
      expect(errorCode(await graphql(caller, EXPORT, { pid }), 'personalDataExport')).toBe('FORBIDDEN');
    }
  });

  test('anonymous: denied', async () => {
    for (const pid of [undefined, subjectPid()]) {
      const rest = await restExport(app.client(), pid);
      expect(rest.status).toBe(401);
      expect(rest.body).toEqual({ success: false, error: 'Authentification requise' });
      const viaGraphQL = await graphql(app.client(), EXPORT, pid ? { pid } : {});
      expect(errorCode(viaGraphQL, 'personalDataExport')).toBe('UNAUTHENTICATED');
    }
  });

  test('an unknown pid: not found; an empty one: invalid; a token without pid: denied', async () => {
    const unknown = `${lab.baseId}/inconnu${unique}`;
    const rest = await restExport(admin, unknown);
    expect(rest.status).toBe(404);
    expect(rest.body).toEqual({ success: false, error: `Aucune personne avec le pid ${unknown}` });
    const viaGraphQL = await graphql(asToken, EXPORT, { pid: unknown });
    expect(viaGraphQL.data?.personalDataExport).toMatchObject({
      __typename: 'NotFoundError',
      code: 'NOT_FOUND',
    });
    // A token is nobody: it has no data of its own to export.
    expect(await restExport(asToken)).toMatchObject({
      status: 403,
      body: { success: false, error: 'Un appel par jeton n’a pas de données personnelles : précisez le pid' },
    });
    expect((await restExport(asToken, ' ')).body).toEqual({ success: false, error: 'pid vide' });
  });
});

describe('rrs person export', () => {
  test('writes the same document to a file only its owner may read', async () => {
    const file = join(folder, 'export.json');
    // A file already there with wider rights is replaced, not reused.
    writeFileSync(file, 'old', { mode: 0o644 });
    const run = await rrsInProcess(['person', 'export', subjectPid(), '--output', file], { BASE_ID: 'repo' });
    expect(run, run.stderr).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toContain(file);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const written = JSON.parse(readFileSync(file, 'utf8')) as Document;
    const rest = await restExport(asToken, subjectPid());
    expect(withoutTime(written)).toEqual(withoutTime(rest.body));
  });

  test('prints it on stdout; an unknown pid fails with exit code 1', async () => {
    const run = await rrsInProcess(['person', 'export', subjectPid()]);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout).person.pid).toBe(subjectPid());
    const unknown = await rrsInProcess(['person', 'export', `${lab.baseId}/inconnu${unique}`]);
    expect(unknown).toMatchObject({ code: 1, stdout: '' });
    expect(unknown.stderr).toBe(`rrs: No person with pid ${lab.baseId}/inconnu${unique}\n`);
  });
});
