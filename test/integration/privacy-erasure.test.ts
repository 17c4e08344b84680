/**
 * Erasure of a person's personal data (GDPR art. 17; docs/privacy.md "Erasure"): `erasePerson`
 * (GraphQL), `POST /api/personne/erase` (REST) and `rrs person erase` (CLI), one service. Who may;
 * what a dry run reports without changing anything; what an erasure leaves: no pid, name or e-mail
 * anywhere in the database, its transfer file or its OAI-PMH harvest, the resources still readable
 * by whoever could read them, the audit log naming a stable pseudonym; a failure changes nothing.
 */
import { execFile, execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { db, provider } from '../../src/db/client.ts';
import { sqlitePath } from '../../src/db/database-url.ts';
import { createLogger } from '../../src/logging/logger.ts';
import { erasePersons } from '../../src/modules/privacy/erasure.service.ts';
import { type Browser, logIn, logInWithRoles, tokenHeaders } from '../support/actors.ts';
import type { TestApp } from '../support/app.ts';
import { startApp } from '../support/app.ts';
import { databaseState } from '../support/database-state.ts';
import { type FakeLab, type LabUser, labUser } from '../support/fake-lab.ts';
import { appTest } from '../support/fixtures.ts';
import { errorCode, graphql } from '../support/graphql.ts';
import { createGroup, groupAction } from '../support/groups.ts';
import { createResource, readResource } from '../support/resources.ts';
import { scratchDir } from '../support/scratch.ts';
import { configFile } from '../support/server-process.ts';

const test = appTest.override({
  labId: 'labErase',
  appOptions: {
    peers: [{ baseId: 'voisine', baseUrl: 'http://voisine.invalid/' }],
    oai: { pageSize: 8 },
  },
});

const ERASE = `mutation($pid: String!, $dryRun: Boolean) {
  erasePerson(pid: $pid, dryRun: $dryRun) {
    __typename
    ... on ErasureReport {
      dryRun pseudonym successorPid resourcesKept resourcesHandedOver resourcesDeleted
      counts { persons roles groupMemberships groupManagements groupFollows sessions authorships contributions
        parentAuthorships auditEntriesAsActor auditEntriesRewritten archivesRewritten outboxMessagesRewritten
        peerNotifications }
      groupsWithoutManager { oid nom }
    }
    ... on Error { code message }
  }
}`;

let counter = 0;
function marker(): string {
  counter += 1;
  return `${Date.now().toString(36)}${counter}${Math.random().toString(36).slice(2, 6)}`;
}

/** A person whose every identifying string is unique, so a dump can be searched for it. */
interface Subject {
  user: LabUser;
  pid: string;
  strings: string[];
  browser: Browser;
}

async function newSubject(app: TestApp, lab: FakeLab): Promise<Subject> {
  const m = marker();
  const user = labUser({
    oid: `e${m}`,
    nom: `Zorglub${m}`,
    prenom: `Xanthe${m}`,
    mail: `xanthe.${m}@erase.test`,
  });
  const browser = await logIn(app, lab, user);
  const pid = `${lab.baseId}/${user.oid}`;
  return { user, pid, strings: [pid, user.nom, user.prenom, user.mail!], browser };
}

/**
 * The subject's world: resources they author alone (public, private, group-only), with a co-author,
 * as a contributor and as a parent author; a group they alone manage, one they manage with another
 * teacher; an archive and an audit entry of their own change; a peer listening to one resource and
 * an undelivered message naming them.
 */
async function furnish(
  app: TestApp,
  subject: Subject,
  other: { browser: Browser; pid: string; user: LabUser },
) {
  const alone = await createGroup(subject.browser);
  const shared = await createGroup(other.browser, {
    newGestionnairePid: subject.pid,
    newGestionnaireNom: subject.user.nom,
  });
  await groupAction(subject.browser, 'suivre', shared.nom);
  const resources = {
    coAuthored: await createResource(app, { titre: 'Co-écrite', auteurs: [subject.pid, other.pid] }),
    publicAlone: await createResource(app, { titre: 'Publique seule', auteurs: [subject.pid] }),
    privateAlone: await createResource(app, {
      titre: 'Privée seule',
      auteurs: [subject.pid],
      restriction: 3,
    }),
    groupOnly: await createResource(app, {
      titre: 'Pour le groupe',
      auteurs: [subject.pid],
      restriction: 2,
      groupes: [shared.nom],
    }),
    contributed: await createResource(app, {
      titre: 'Contribuée',
      auteurs: [other.pid],
      contributeurs: [subject.pid],
    }),
    derived: await createResource(app, {
      titre: 'Dérivée',
      auteurs: [other.pid],
      auteursParents: [subject.pid],
    }),
  };
  // The subject's own change bumps the version: an archive and an audit entry naming them.
  const update = await subject.browser
    .post('/api/ressource?merge=1')
    .send({ oid: resources.coAuthored, parametres: { adresse: 'https://example.org/v2' } });
  expect(update.status, JSON.stringify(update.body)).toBe(200);
  await db.peerListener.create({
    data: { rid: `${app.config.baseId}/${resources.coAuthored}`, baseId: 'voisine' },
  });
  await db.outboxMessage.create({
    data: {
      id: `pending-${marker()}`,
      kind: 'externalUpdate',
      peerBaseId: 'voisine',
      payload: { ref: { titre: 'Co-écrite', auteurs: [subject.pid], contact: subject.user.mail } },
    },
  });
  return { alone, shared, resources };
}

/** The tool's configuration: this file's app's (its baseId and peers), on the test database. */
const TOOL_SETTINGS = {
  baseId: 'repo',
  baseUrl: 'http://repo.test/',
  listeMax: 1000,
  peers: [{ baseId: 'voisine', baseUrl: 'http://voisine.invalid/' }],
};

/**
 * Runs `rrs <args>` as an operator does, in a process of its own (`node dist/cli/main.js`, built by
 * the global set-up): run in this one, the tool would close the database under the app's session
 * store, which keeps the client it was given.
 */
function rrs(
  args: string[],
  settings: object = TOOL_SETTINGS,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const key of ['BASE_URL', 'BASE_ID', 'API_TOKENS', 'SESSION_SECRET', 'PORT']) delete env[key];
  Object.assign(env, {
    CONFIG_FILE: configFile(settings),
    DATABASE_URL: process.env.DATABASE_URL,
    LOG_LEVEL: 'silent',
  });
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['dist/cli/main.js', ...args],
      { env, timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

function databaseDump(): string {
  const url = process.env.DATABASE_URL!;
  const options = { encoding: 'utf8' as const, maxBuffer: 1 << 28 };
  if (provider === 'postgresql') return execFileSync('pg_dump', ['--no-owner', url], options);
  return execFileSync('sqlite3', [sqlitePath(url), '.dump'], options);
}

/** Every page of ListRecords in `metadataPrefix`, following resumption tokens. */
async function harvest(app: TestApp, metadataPrefix: string): Promise<string> {
  const pages: string[] = [];
  let query: Record<string, string> = { verb: 'ListRecords', metadataPrefix };
  for (;;) {
    const response = await app.client().get('/oai').query(query);
    expect(response.status).toBe(200);
    pages.push(response.text);
    const token = /<resumptionToken[^>]*>([^<]+)<\/resumptionToken>/.exec(response.text)?.[1];
    if (!token) return pages.join('\n');
    query = { verb: 'ListRecords', resumptionToken: token.replaceAll('&amp;', '&') };
  }
}

function exportedFile(): string {
  const file = join(scratchDir('erasure'), `${marker()}.jsonl`);
  return file;
}

async function transferText(): Promise<string> {
  const file = exportedFile();
  const run = await rrs(['export', file]);
  expect(run.code, run.stderr).toBe(0);
  return readFileSync(file, 'utf8');
}

const expectNone = (text: string, strings: string[], where: string) => {
  for (const value of strings) expect(text.includes(value), `${value} in ${where}`).toBe(false);
};

const LONG_AGO = new Date('2020-01-01T00:00:00Z');

type Furnished = Awaited<ReturnType<typeof furnish>>;

/** Resources stay, readable by whoever could read them, without a dangling author. */
async function expectResourcesKept(
  app: TestApp,
  other: { browser: Browser; pid: string },
  resources: Furnished['resources'],
) {
  for (const oid of [resources.coAuthored, resources.publicAlone]) {
    const read = await app.client().get(`/api/ressource/${oid}?format=full`);
    expect(read.status).toBe(200);
    expect(read.body._auteurs.every((label: string) => label.trim() !== '')).toBe(true);
  }
  expect((await app.client().get(`/api/ressource/${resources.coAuthored}`)).body.auteurs).toEqual([
    other.pid,
  ]);
  expect((await app.client().get(`/api/ressource/${resources.publicAlone}`)).body.auteurs).toEqual([]);
  expect((await other.browser.get(`/api/ressource/${resources.contributed}`)).body.contributeurs).toEqual([]);
  expect((await other.browser.get(`/api/ressource/${resources.derived}`)).body.auteursParents).toEqual([]);
  expect((await other.browser.get(`/api/ressource/${resources.groupOnly}`)).status).toBe(200);
  expect(await readResource(app, resources.privateAlone)).toBeNull();
}

/** The audit log keeps what happened under the pseudonym; the erasure is audited, by pseudonym. */
async function expectAuditUnderPseudonym(
  pseudonym: string,
  coAuthored: number,
  otherPid: string,
  actorKind: string,
) {
  const asActor = await db.auditEntry.findMany({ where: { actorPid: pseudonym } });
  expect(asActor.length).toBeGreaterThanOrEqual(2);
  expect(asActor.every((entry) => entry.actorOid === null)).toBe(true);
  const coAuthoredEntries = await db.auditEntry.findMany({
    where: { entityKind: 'resource', entityId: coAuthored },
  });
  expect(coAuthoredEntries[0]!.changes).toMatchObject({ authors: { after: [pseudonym, otherPid] } });
  const erasureEntry = await db.auditEntry.findFirstOrThrow({
    where: { action: 'erased' },
    orderBy: { id: 'desc' },
  });
  expect(erasureEntry).toMatchObject({ actorKind, entityKind: 'person', entityId: 0 });
  expect(erasureEntry.changes).toMatchObject({
    person: { before: pseudonym },
    rows: { before: { persons: 1 } },
  });
}

/** Peers listening to a resource whose authors changed are told; a pending message names the pseudonym. */
async function expectPeersTold(app: TestApp, pseudonym: string, coAuthored: number) {
  const messages = await db.outboxMessage.findMany({ where: { peerBaseId: 'voisine' } });
  expect(messages.some((message) => JSON.stringify(message.payload).includes(pseudonym))).toBe(true);
  expect(
    messages.filter(
      (message) =>
        message.status === 'pending' &&
        (message.payload as { ref?: { aliasOf?: string } }).ref?.aliasOf ===
          `${app.config.baseId}/${coAuthored}`,
    ).length,
  ).toBeGreaterThanOrEqual(1);
}

/** Their session ended; logging in again through the lab makes a new person. */
async function expectNewPersonOnLogin(
  app: TestApp,
  lab: FakeLab,
  subject: Subject,
  coAuthored: number,
  otherPid: string,
) {
  expect((await subject.browser.get('/api/personne/me')).body.person).toBeNull();
  const again = await logIn(app, lab, subject.user);
  const me = (await again.get('/api/personne/me')).body.person;
  expect(me).toMatchObject({ pid: subject.pid, groupesMembre: [], groupesAdmin: [], groupesSuivis: [] });
  expect((await again.get(`/api/ressource/${coAuthored}`)).body.auteurs).toEqual([otherPid]);
  const list = await again.get('/api/liste/perso?format=light');
  expect(list.body.liste ?? []).toEqual([]);
}

describe('who may erase', () => {
  test('anonymous callers and teachers are refused, through REST and GraphQL, and nothing changes', async ({
    app,
    lab,
    teacher,
  }) => {
    const subject = await newSubject(app, lab);
    const before = await databaseState();
    const anonymous = await app.client().post('/api/personne/erase').send({ pid: subject.pid });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual({ success: false, error: expect.any(String) });
    const refused = await teacher.post('/api/personne/erase').send({ pid: subject.pid });
    expect(refused.status).toBe(403);
    expect(refused.body.success).toBe(false);
    expect(errorCode(await graphql(app.client(), ERASE, { pid: subject.pid }), 'erasePerson')).toBe(
      'UNAUTHENTICATED',
    );
    expect(errorCode(await graphql(teacher, ERASE, { pid: subject.pid }), 'erasePerson')).toBe('FORBIDDEN');
    expect(await databaseState()).toEqual(before);
  });

  test('an unknown or missing pid is a clear error, on every path', async ({ app }) => {
    const unknown = await app
      .client()
      .post('/api/personne/erase')
      .set(tokenHeaders)
      .send({ pid: 'nowhere/1' });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ success: false, error: 'Aucune personne avec le pid nowhere/1' });
    const missing = await app.client().post('/api/personne/erase').set(tokenHeaders).send({});
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ success: false, error: 'pid manquant' });
    const graph = await graphql(app.client(), ERASE, { pid: 'nowhere/1' }, tokenHeaders);
    expect(graph.data?.erasePerson).toEqual({
      __typename: 'NotFoundError',
      code: 'NOT_FOUND',
      message: 'Aucune personne avec le pid nowhere/1',
    });
    const cli = await rrs(['person', 'erase', 'nowhere/1']);
    expect(cli).toMatchObject({ code: 1, stdout: '', stderr: 'rrs: No person with pid nowhere/1\n' });
  });
});

describe('dry run', () => {
  test('reports what would change and changes nothing (REST, GraphQL, CLI)', async ({ app, lab }) => {
    const subject = await newSubject(app, lab);
    const otherUser = labUser({ type: 1 });
    const other = {
      browser: await logIn(app, lab, otherUser),
      pid: `${lab.baseId}/${otherUser.oid}`,
      user: otherUser,
    };
    const { alone, resources } = await furnish(app, subject, other);
    const before = await databaseState();
    const sessionsBefore = await db.session.count();

    const rest = await app
      .client()
      .post('/api/personne/erase')
      .set(tokenHeaders)
      .send({ pid: subject.pid, dryRun: true });
    expect(rest.status, JSON.stringify(rest.body)).toBe(200);
    expect(rest.body).toMatchObject({
      success: true,
      dryRun: true,
      resourcesKept: [
        resources.coAuthored,
        resources.publicAlone,
        resources.groupOnly,
        resources.contributed,
        resources.derived,
      ],
      resourcesHandedOver: [],
      resourcesDeleted: [resources.privateAlone],
      successorPid: null,
      groupsWithoutManager: [{ oid: alone.oid, nom: alone.nom }],
      counts: {
        persons: 1,
        groupManagements: 2,
        groupMemberships: 1,
        groupFollows: 2,
        sessions: 1,
        authorships: 4,
        contributions: 1,
        parentAuthorships: 1,
        auditEntriesAsActor: 2,
        archivesRewritten: 1,
        outboxMessagesRewritten: 1,
        peerNotifications: 1,
      },
    });
    // Six resources created naming them, two groups listing them among their managers.
    expect(rest.body.counts.auditEntriesRewritten).toBe(8);
    const graph = await graphql(app.client(), ERASE, { pid: subject.pid, dryRun: true }, tokenHeaders);
    const { success: _success, ...report } = rest.body;
    expect(graph.data?.erasePerson).toEqual({ __typename: 'ErasureReport', ...report });
    const cli = await rrs(['person', 'erase', subject.pid, '--dry-run', '--json']);
    expect(cli.code, cli.stderr).toBe(0);
    expect(JSON.parse(cli.stdout)).toEqual(report);
    const human = await rrs(['person', 'erase', subject.pid, '--dry-run']);
    expect(human.stdout).toMatch(/^dry run: erasing .+ would change \(nothing was changed\):/);
    expect(human.stdout).toContain(`groups left without a manager: ${alone.nom} (oid ${alone.oid})`);

    expect(await databaseState()).toEqual(before);
    expect(await db.session.count()).toBe(sessionsBefore);
    expect((await subject.browser.get('/api/personne/me')).body.person.pid).toBe(subject.pid);
  });
});

/** What an erasure answered, whichever way it was asked. */
interface Answered {
  pseudonym: string;
  resourcesDeleted: number[];
  groupsWithoutManager: { oid: number; nom: string }[];
}

/** The three ways to ask for an erasure, and the kind of actor each erasure's audit entry names. */
const WAYS: {
  name: string;
  actorKind: string;
  erase: (app: TestApp, lab: FakeLab, pid: string) => Promise<Answered>;
}[] = [
  {
    name: 'REST, with an API token',
    actorKind: 'token',
    async erase(app, _lab, pid) {
      const erased = await app.client().post('/api/personne/erase').set(tokenHeaders).send({ pid });
      expect(erased.status, JSON.stringify(erased.body)).toBe(200);
      expect(erased.body).toMatchObject({ success: true, dryRun: false });
      return erased.body;
    },
  },
  {
    name: 'GraphQL, as an administrator',
    actorKind: 'person',
    async erase(app, lab, pid) {
      const admin = (await logInWithRoles(app, lab, ['admin'])).browser;
      const result = await graphql(admin, ERASE, { pid });
      expect(result.data?.erasePerson, JSON.stringify(result)).toMatchObject({
        __typename: 'ErasureReport',
        dryRun: false,
      });
      return result.data!.erasePerson;
    },
  },
  {
    name: 'the CLI',
    actorKind: 'token',
    async erase(_app, _lab, pid) {
      const run = await rrs(['person', 'erase', pid, '--json']);
      expect(run.code, run.stderr).toBe(0);
      return JSON.parse(run.stdout);
    },
  },
];

describe('erasure', () => {
  test.for(WAYS)(
    'through $name: nothing names the person anywhere, resources stay readable',
    async (way, { app, lab }) => {
      const subject = await newSubject(app, lab);
      const otherUser = labUser({ type: 1 });
      const other = {
        browser: await logIn(app, lab, otherUser),
        pid: `${lab.baseId}/${otherUser.oid}`,
        user: otherUser,
      };
      const { alone, shared, resources } = await furnish(app, subject, other);
      // What the harvest and the transfer file showed before: the test can see the person there.
      expect((await harvest(app, 'oai_dc')).includes(subject.user.nom)).toBe(true);
      expect((await transferText()).includes(subject.user.mail!)).toBe(true);
      // Stamped long ago, so that a new stamp shows.
      const exposed = [resources.coAuthored, resources.publicAlone];
      await db.harvestEntry.updateMany({ where: { oid: { in: exposed } }, data: { datestamp: LONG_AGO } });

      const erased = await way.erase(app, lab, subject.pid);
      expect(erased).toMatchObject({
        pseudonym: expect.stringMatching(/^erased:[0-9a-f]{16}$/),
        resourcesDeleted: [resources.privateAlone],
        groupsWithoutManager: [{ oid: alone.oid, nom: alone.nom }],
      });
      const { pseudonym } = erased;

      // Nothing left: the database, a transfer file, a full harvest in both formats.
      expectNone(databaseDump(), subject.strings, 'the database dump');
      expectNone(await transferText(), subject.strings, 'the transfer file');
      expectNone(await harvest(app, 'oai_dc'), subject.strings, 'the oai_dc harvest');
      expectNone(await harvest(app, 'lom'), subject.strings, 'the lom harvest');

      await expectResourcesKept(app, other, resources);
      // The harvest was told: records whose creators changed carry a new datestamp.
      for (const entry of await db.harvestEntry.findMany({ where: { oid: { in: exposed } } })) {
        expect(entry).toMatchObject({ deleted: false });
        expect(entry.datestamp.getTime()).toBeGreaterThan(LONG_AGO.getTime());
      }
      // Groups stay; the one they alone managed has no manager now, and was reported.
      expect(await db.groupManager.count({ where: { groupOid: alone.oid } })).toBe(0);
      expect(await db.groupManager.count({ where: { groupOid: shared.oid } })).toBe(1);
      await expectAuditUnderPseudonym(pseudonym, resources.coAuthored, other.pid, way.actorKind);
      await expectPeersTold(app, pseudonym, resources.coAuthored);
      await expectNewPersonOnLogin(app, lab, subject, resources.coAuthored, other.pid);
    },
  );

  test('through GraphQL as an administrator; the pseudonym is the same for every entry of one person', async ({
    app,
    lab,
  }) => {
    const admin = (await logInWithRoles(app, lab, ['admin'])).browser;
    const subject = await newSubject(app, lab);
    const first = await createResource(app, { titre: 'Une', auteurs: [subject.pid] });
    const second = await createResource(app, { titre: 'Deux', auteurs: [subject.pid] });
    const result = await graphql(admin, ERASE, { pid: subject.pid });
    expect(result.data?.erasePerson).toMatchObject({
      __typename: 'ErasureReport',
      dryRun: false,
      resourcesKept: [first, second],
      counts: { persons: 1, authorships: 2, sessions: 1 },
    });
    const pseudonym = result.data!.erasePerson.pseudonym as string;
    const entries = await db.auditEntry.findMany({
      where: { entityKind: 'resource', entityId: { in: [first, second] }, action: 'created' },
    });
    expect(entries.map((entry) => entry.changes)).toEqual([
      expect.objectContaining({ authors: { after: [pseudonym] } }),
      expect.objectContaining({ authors: { after: [pseudonym] } }),
    ]);
    const erasureEntry = await db.auditEntry.findFirstOrThrow({
      where: { action: 'erased' },
      orderBy: { id: 'desc' },
    });
    expect(erasureEntry).toMatchObject({ actorKind: 'person', actorPid: expect.stringMatching(/\//) });
    expect(await db.person.count({ where: { pid: subject.pid } })).toBe(0);
  });

  test('through the CLI, which prints the report', async ({ app, lab }) => {
    const subject = await newSubject(app, lab);
    await createResource(app, { titre: 'Par la CLI', auteurs: [subject.pid] });
    const run = await rrs(['person', 'erase', subject.pid]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`^erased ${subject.pid}:\\n {2}pseudonym: erased:[0-9a-f]{16}\\n`));
    expect(run.stdout).toContain('    authorships: 1');
    expect(await db.person.count({ where: { pid: subject.pid } })).toBe(0);
    const entry = await db.auditEntry.findFirstOrThrow({
      where: { action: 'erased' },
      orderBy: { id: 'desc' },
    });
    expect(entry).toMatchObject({ actorKind: 'token', actorLabel: 'rrs person erase' });
  });

  test('a resource only the person could reach goes to the configured successor', async ({ lab }) => {
    const successorPid = `local/successor-${marker()}`;
    await db.person.create({ data: { pid: successorPid, nom: 'Reprise', prenom: 'Successeur' } });
    const withSuccessor = await startApp({
      labs: [lab.config()],
      privacy: { erasure: { successorPid } },
    });
    try {
      const subject = await newSubject(withSuccessor, lab);
      const hidden = await createResource(withSuccessor, {
        titre: 'Cachée',
        auteurs: [subject.pid],
        restriction: 3,
      });
      const draft = await createResource(withSuccessor, {
        titre: 'Brouillon',
        auteurs: [subject.pid],
        publie: false,
      });
      const erased = await withSuccessor
        .client()
        .post('/api/personne/erase')
        .set(tokenHeaders)
        .send({ pid: subject.pid });
      expect(erased.body).toMatchObject({
        success: true,
        resourcesHandedOver: [hidden, draft],
        resourcesDeleted: [],
        successorPid,
      });
      for (const oid of [hidden, draft]) {
        expect((await readResource(withSuccessor, oid))?.auteurs).toEqual([successorPid]);
      }
      const refused = await withSuccessor
        .client()
        .post('/api/personne/erase')
        .set(tokenHeaders)
        .send({ pid: successorPid });
      expect(refused.status).toBe(400);
      expect(await db.person.count({ where: { pid: successorPid } })).toBe(1);
    } finally {
      await withSuccessor.close();
    }
  });

  test('a failure midway leaves everything as it was', async ({ app, lab }) => {
    const subject = await newSubject(app, lab);
    const otherUser = labUser({ type: 1 });
    const other = {
      browser: await logIn(app, lab, otherUser),
      pid: `${lab.baseId}/${otherUser.oid}`,
      user: otherUser,
    };
    await furnish(app, subject, other);
    // The last write fails: everything before it must be rolled back with it.
    const quoted = subject.pid.replaceAll("'", "''");
    if (provider === 'postgresql') {
      await db.$executeRawUnsafe(
        `CREATE FUNCTION erasure_fails() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'simulated failure'; END $$`,
      );
      await db.$executeRawUnsafe(
        `CREATE TRIGGER erasure_fails BEFORE DELETE ON "Person" FOR EACH ROW WHEN (OLD.pid = '${quoted}') EXECUTE FUNCTION erasure_fails()`,
      );
    } else {
      await db.$executeRawUnsafe(
        `CREATE TRIGGER erasure_fails BEFORE DELETE ON "Person" WHEN old.pid = '${quoted}' BEGIN SELECT RAISE(ABORT, 'simulated failure'); END`,
      );
    }
    try {
      const before = await databaseState();
      const sessions = await db.session.count();
      const run = await rrs(['person', 'erase', subject.pid]);
      expect(run.code).toBe(1);
      // SQLite's adapter reports a trigger's abort as a constraint violation.
      expect(run.stderr).toMatch(/simulated failure|constraint violated/);
      expect(await databaseState()).toEqual(before);
      expect(await db.session.count()).toBe(sessions);
    } finally {
      await db.$executeRawUnsafe(
        `DROP TRIGGER erasure_fails${provider === 'postgresql' ? ' ON "Person"' : ''}`,
      );
      if (provider === 'postgresql') await db.$executeRawUnsafe('DROP FUNCTION erasure_fails()');
    }
  });
});

describe('what the past holds', () => {
  /** Audit entries and archives of resources the person no longer has anything to do with. */
  async function pastOf(app: TestApp, lab: FakeLab, subject: Subject) {
    const removedFrom = await createResource(app, { titre: 'Quittée', auteurs: [subject.pid] });
    const other = labUser({ type: 1 });
    await logIn(app, lab, other);
    const update = await app
      .client()
      .post('/api/ressource?merge=1')
      .set(tokenHeaders)
      .send({ oid: removedFrom, auteurs: [`${lab.baseId}/${other.oid}`], parametres: { v: 2 } });
    expect(update.status, JSON.stringify(update.body)).toBe(200);
    const deleted = await createResource(app, { titre: 'Supprimée', auteurs: [subject.pid] });
    expect((await app.client().delete(`/api/ressource/${deleted}`).set(tokenHeaders)).status).toBe(200);
  }

  test('entries of resources they were removed from, or that were deleted, name the pseudonym too', async ({
    app,
    lab,
  }) => {
    const subject = await newSubject(app, lab);
    await pastOf(app, lab, subject);
    expect(databaseDump().includes(subject.pid)).toBe(true);
    const erased = await app
      .client()
      .post('/api/personne/erase')
      .set(tokenHeaders)
      .send({ pid: subject.pid });
    expect(erased.status).toBe(200);
    expect(erased.body.counts.archivesRewritten).toBe(1);
    expectNone(databaseDump(), subject.strings, 'the database dump');
  });

  test('a batch (erasePersons) scans once and leaves nothing either, whatever each person did', async ({
    app,
    lab,
  }) => {
    const subjects = [await newSubject(app, lab), await newSubject(app, lab)];
    for (const subject of subjects) await pastOf(app, lab, subject);
    await createResource(app, { titre: 'À deux', auteurs: subjects.map((subject) => subject.pid) });
    // Erased at once on PostgreSQL: neither may see the other as the author left.
    const hidden = await createResource(app, {
      titre: 'Privée à deux',
      auteurs: subjects.map((subject) => subject.pid),
      restriction: 3,
    });
    const context = {
      config: app.config,
      viewer: { kind: 'token', allRights: true, person: null } as never,
      requestId: 'batch',
      log: createLogger('silent'),
    };
    const heard: string[] = [];
    const reports = await erasePersons(
      context,
      subjects.map((subject) => subject.pid),
      {},
      (report) => heard.push(report.pseudonym!),
    );
    expect(reports.map((report) => report.counts.authorships)).toEqual([2, 2]);
    expect(reports.flatMap((report) => report.resourcesDeleted)).toEqual([hidden]);
    expect(await readResource(app, hidden)).toBeNull();
    expect(heard.sort()).toEqual(reports.map((report) => report.pseudonym!).sort());
    for (const subject of subjects) expectNone(databaseDump(), subject.strings, 'the database dump');
  });
});

describe('rrs config check', () => {
  test('privacy.erasure.successorPid must name an existing person', async () => {
    const check = async (successorPid: string) => {
      const run = await rrs(['config', 'check', '--json'], {
        baseId: 'erasure',
        listeMax: 100,
        apiTokens: ['a-configured-token-0123456789'],
        privacy: { erasure: { successorPid } },
      });
      return (JSON.parse(run.stdout).checks as { subject: string; ok: boolean }[]).find(
        (entry) => entry.subject === 'privacy.erasure.successorPid',
      );
    };
    expect(await check('local/nobody-here')).toMatchObject({ ok: false });
    const pid = `local/heir-${marker()}`;
    await db.person.create({ data: { pid, nom: 'Héritier', prenom: 'Un' } });
    expect(await check(pid)).toMatchObject({ ok: true });
  });
});
