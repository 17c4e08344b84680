/**
 * Import and export (src/transfer/, docs/import-export.md): a generated export of the
 * previous service with 10,000 resources imported twice (the second run changes nothing), read back
 * through the API, exported and imported again into an empty database (same file), and the
 * commands as an operator runs them.
 */
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeDatabase, db, openDatabase } from '../../src/db/client.ts';
import { exportFile } from '../../src/transfer/export.service.ts';
import { type ImportReport, importFile, TransferFormatError } from '../../src/transfer/import.service.ts';
import { createTestDatabase, dropTestDatabase } from '../setup/test-databases.ts';
import { tokenHeaders } from '../support/actors.ts';
import { startApp, type TestApp } from '../support/app.ts';
import { rrsInProcess } from '../support/cli.ts';
import { graphql } from '../support/graphql.ts';
import { tagsOutOfStep } from '../support/list-tags.ts';
import { scratchDir } from '../support/scratch.ts';
import {
  type GeneratedExport,
  groupNameOf,
  personOidOf,
  pidOf,
  writeGeneratedExport,
} from '../support/transfer-file.ts';

const run = promisify(execFile);
const BASE_ID = 'repo';
const options = {
  baseId: BASE_ID,
  roleNames: ['admin', 'editeur', 'indexateur', 'formateur', 'acces_correction', 'eleve'],
};

let app: TestApp;
let folder: string;
let file: string;
let generated: GeneratedExport;
let first: ImportReport;
let second: ImportReport;
let firstMs: number;

beforeAll(async () => {
  app = await startApp();
  folder = scratchDir('transfer');
  file = join(folder, 'previous.jsonl');
  generated = await writeGeneratedExport(file, { baseId: BASE_ID });
  let started = performance.now();
  first = await importFile(file, options);
  firstMs = performance.now() - started;
  started = performance.now();
  second = await importFile(file, options);
  if (process.env.TRANSFER_TIMINGS) {
    const rate = (ms: number) => Math.round(generated.resources / (ms / 1000));
    console.log(
      `import of ${generated.resources} resources: first run ${Math.round(firstMs)} ms (${rate(firstMs)}/s), ` +
        `second run ${Math.round(performance.now() - started)} ms (${rate(performance.now() - started)}/s)`,
    );
  }
}, 180_000);

afterAll(async () => {
  await app?.close();
});

describe('importing a 10,000-resource export', () => {
  it('creates every valid record and skips the invalid ones, saying why', () => {
    const { invalid } = generated;
    expect(first.persons).toEqual({
      created: generated.persons,
      updated: 0,
      unchanged: 0,
      skipped: invalid.persons,
    });
    expect(first.groups).toEqual({
      created: generated.groups,
      updated: 0,
      unchanged: 0,
      skipped: invalid.groups,
    });
    expect(first.resources).toEqual({
      created: generated.resources,
      updated: 0,
      unchanged: 0,
      skipped: invalid.resources,
    });
    expect(first.skipped).toHaveLength(invalid.persons + invalid.groups + invalid.resources + invalid.lines);
    const messages = first.skipped.map((problem) => `${problem.kind} ${problem.id ?? ''} ${problem.message}`);
    expect(messages).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^person .*pid: required/),
        expect.stringMatching(/^group .*Nom de groupe invalide/),
        expect.stringMatching(/^resource \d+ type : le type « error » est réservé/),
        expect.stringMatching(/^resource \d+ restriction : doit valoir 0, 1, 2 ou 3/),
        expect.stringMatching(/^resource \d+ titre: required/),
        expect.stringMatching(/^resource 20001 .*already earlier in the file/),
        expect.stringMatching(/^line +invalid JSON/),
        expect.stringMatching(/^line +a line must have a single key/),
      ]),
    );
    const warnings = first.warnings.map((problem) => `${problem.kind} ${problem.id} ${problem.message}`);
    expect(warnings).toEqual(
      expect.arrayContaining([
        'resource 20005 author old/disparu unknown, ignored',
        `person ${pidOf(1)} roles unknown here, ignored: sorcier`,
        `person ${pidOf(2)} group Groupe fantôme unknown, ignored`,
        `group ${groupNameOf(1)} manager 424242 unknown, ignored`,
      ]),
    );
    expect(first.warnings).toHaveLength(generated.warnings);
  });

  it('changes nothing the second time, and reports the same records skipped', async () => {
    const { invalid } = generated;
    expect(second.persons).toEqual({
      created: 0,
      updated: 0,
      unchanged: generated.persons,
      skipped: invalid.persons,
    });
    expect(second.groups).toEqual({
      created: 0,
      updated: 0,
      unchanged: generated.groups,
      skipped: invalid.groups,
    });
    expect(second.resources).toEqual({
      created: 0,
      updated: 0,
      unchanged: generated.resources,
      skipped: invalid.resources,
    });
    expect(second.skipped).toEqual(first.skipped);
    expect(second.warnings).toEqual(first.warnings);
  });

  it('gives the imported resources the tags of their levels and categories (written in bulk)', async () => {
    expect(await db.resource.count({ where: { levelTags: { not: '' } } })).toBeGreaterThan(0);
    expect(await tagsOutOfStep()).toEqual([]);
  });

  it('keeps identifiers: oids of resources, persons and groups, read keys', async () => {
    const resource = await db.resource.findUnique({
      where: { oid: 20_007 },
      select: { cle: true, idOrigine: true },
    });
    expect(resource).toEqual({ cle: 'cle-importee-20007', idOrigine: 'ed-20007' });
    expect(await db.person.findUnique({ where: { pid: pidOf(3) }, select: { oid: true } })).toEqual({
      oid: personOidOf(3),
    });
    expect(await db.group.findUnique({ where: { oid: 503 }, select: { nom: true } })).toEqual({
      nom: groupNameOf(3),
    });
    const roles = await db.personRole.findMany({
      where: { personOid: personOidOf(0) },
      select: { role: true },
    });
    expect(roles).toEqual([{ role: 'admin' }]);
  });

  it('serves imported resources through REST and GraphQL, with their rights and in search', async () => {
    // i = 10: an editor's origin pair, restriction 2 (group), published, a relation to the previous one.
    const rest = await app.client().get('/api/ressource/20010').set(tokenHeaders);
    expect(rest.body).toMatchObject({
      success: true,
      oid: 20_010,
      rid: 'repo/20010',
      origine: 'editeur',
      idOrigine: 'ed-20010',
      titre: 'Ressource importée numéro 10',
      type: 'j3p',
      categories: [1, 2],
      niveaux: ['n0'],
      auteurs: [pidOf(10)],
      groupes: [groupNameOf(10)],
      relations: [[1, 'repo/20009']],
      restriction: 2,
      publie: true,
      version: 2,
      inc: 0,
      dateCreation: new Date(Date.UTC(2018, 0, 1) + 10 * 3_600_000).toISOString(),
      dateMiseAJour: new Date(Date.UTC(2019, 0, 1) + 10 * 3_600_000).toISOString(),
    });
    const withParameters = await app.client().get('/api/ressource/20006').set(tokenHeaders);
    expect(withParameters.body.parametres).toEqual({ consigne: 'Consigne 6', niveau: 2 });
    const tree = await graphql(
      app.client(),
      '{ resourceById(id: "repo/20099") { ... on Resource { titre type enfants relations { predicate rid } } } }',
      {},
      tokenHeaders,
    );
    expect(tree.data?.resourceById).toMatchObject({
      titre: 'Ressource importée numéro 99',
      type: 'arbre',
      enfants: [{ aliasOf: 'repo/20098' }, { titre: 'Dossier', enfants: [{ aliasOf: 'repo/20097' }] }],
      relations: [],
    });
    // Private (restriction 3): not for anonymous callers; public and published: yes.
    expect((await app.client().get('/api/ressource/20003')).status).toBe(404);
    const publicRead = await app.client().get('/api/public/20004');
    expect(publicRead.body, JSON.stringify(publicRead.body)).toMatchObject({ success: true, oid: 20_004 });
    const search = await app
      .client()
      .get('/api/liste')
      .set(tokenHeaders)
      .query({ fulltext: 'zephyrin', format: 'light' });
    expect(search.body).toMatchObject({ success: true, total: 1, liste: [{ oid: 24_242 }] });
  });

  it('gives a resource created afterwards a fresh oid, past every imported one', async () => {
    const created = await app
      .client()
      .post('/api/ressource')
      .set(tokenHeaders)
      .send({ titre: 'Créée après import', type: 'url' });
    expect(created.body).toMatchObject({ success: true });
    expect(created.body.oid).toBeGreaterThan(generated.firstOid + generated.resources - 1);
    const group = await db.group.create({ data: { nom: 'Après import', nomKey: 'apres import' } });
    expect(group.oid).toBeGreaterThan(500 + generated.groups - 1);
    const person = await db.person.create({ data: { pid: 'labX/after' } });
    expect(person.oid).toBeGreaterThan(personOidOf(generated.persons - 1));
  });
});

describe('export', () => {
  it('round trips: export, import into an empty database, export again gives the same file', async () => {
    const exported = join(folder, 'first.jsonl');
    const again = join(folder, 'second.jsonl');
    const report = await exportFile(exported, { baseId: BASE_ID });
    expect(report.resources).toBeGreaterThanOrEqual(generated.resources);
    const mainUrl = process.env.DATABASE_URL!;
    const copyUrl = await createTestDatabase('transfercopy');
    await closeDatabase();
    await openDatabase(copyUrl);
    try {
      const imported = await importFile(exported, options);
      expect(imported.skipped).toEqual([]);
      expect(imported.resources.created).toBe(report.resources);
      await exportFile(again, { baseId: BASE_ID });
    } finally {
      await closeDatabase();
      await openDatabase(mainUrl, { announceStatements: true });
      await dropTestDatabase(copyUrl);
    }
    const a = readFileSync(exported, 'utf8');
    expect(readFileSync(again, 'utf8') === a).toBe(true);
    const lines = a.trimEnd().split('\n');
    expect(JSON.parse(lines[0]!)).toEqual({
      format: 'resource-repository-transfer',
      version: 1,
      baseId: BASE_ID,
    });
    const person = lines.map((line) => JSON.parse(line)).find((record) => record.personne?.pid === pidOf(0));
    expect(person.personne.roles).toEqual({ admin: true });
  }, 120_000);
});

describe("the development login's roles", () => {
  it('are left out of an export, and an import of that file neither counts nor removes them', async () => {
    const person = await db.person.findUniqueOrThrow({ where: { pid: pidOf(3) }, include: { roles: true } });
    const role = options.roleNames.find((name) => !person.roles.some((held) => held.role === name))!;
    await db.personRole.create({ data: { personOid: person.oid, role, source: 'devLogin' } });
    try {
      const exported = join(folder, 'development-roles.jsonl');
      await exportFile(exported, { baseId: BASE_ID });
      const record = readFileSync(exported, 'utf8')
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line))
        .find((line) => line.personne?.pid === person.pid);
      expect(record.personne.roles?.[role]).toBeUndefined();
      const report = await importFile(exported, options);
      expect(report.persons.updated).toBe(0);
      const roles = await db.personRole.findMany({
        where: { personOid: person.oid },
        select: { role: true, source: true },
      });
      expect(roles).toContainEqual({ role, source: 'devLogin' });
    } finally {
      await db.personRole.deleteMany({ where: { personOid: person.oid, source: 'devLogin' } });
    }
  }, 120_000);
});

describe('a file that changed', () => {
  it('updates exactly the records that changed, derived rows included, and skips identifier conflicts', async () => {
    const small = join(folder, 'changing.jsonl');
    await writeGeneratedExport(small, {
      baseId: BASE_ID,
      resources: 12,
      persons: 3,
      groups: 2,
      firstOid: 93_000,
      prefix: 'change',
      firstPersonOid: 8000,
      firstGroupOid: 950,
    });
    expect((await importFile(small, options)).resources.created).toBe(12);
    const taken = await app
      .client()
      .post('/api/ressource')
      .set(tokenHeaders)
      .send({ titre: 'Déjà là', type: 'url' });
    const lines = readFileSync(small, 'utf8').trimEnd().split('\n');
    const edited = lines.map((line) => {
      if (!line.endsWith('}')) return line; // the cut line stays cut
      const record = JSON.parse(line);
      if (record.ressource?.oid === 93_003) {
        record.ressource.titre = 'Trigonométrie sphérique';
        record.ressource.auteurs = [pidOf(0, 'change'), pidOf(2, 'change')];
        record.ressource.niveaux = ['n9'];
      }
      if (record.personne?.pid === pidOf(1, 'change')) record.personne.roles = { editeur: true };
      return JSON.stringify(record);
    });
    // A record whose oid is another resource here: skipped, never renumbered.
    const intruder = JSON.parse(lines.find((line) => line.includes('"oid":93004'))!);
    intruder.ressource = {
      ...intruder.ressource,
      oid: taken.body.oid,
      rid: `repo/${taken.body.oid}`,
      idOrigine: 'autre',
    };
    writeFileSync(small, `${[...edited, JSON.stringify(intruder)].join('\n')}\n`);

    const report = await importFile(small, options);
    expect(report.resources).toEqual({ created: 0, updated: 1, unchanged: 11, skipped: 5 });
    expect(report.persons).toEqual({ created: 0, updated: 1, unchanged: 2, skipped: 1 });
    expect(report.skipped.at(-1)).toMatchObject({
      kind: 'resource',
      id: String(taken.body.oid),
      message: `oid ${taken.body.oid} is another resource here (repo/${taken.body.oid})`,
    });
    const updated = await app.client().get('/api/ressource/93003').set(tokenHeaders);
    expect(updated.body).toMatchObject({
      titre: 'Trigonométrie sphérique',
      auteurs: [pidOf(0, 'change'), pidOf(2, 'change')],
      niveaux: ['n9'],
    });
    const search = await app
      .client()
      .get('/api/liste')
      .set(tokenHeaders)
      .query({ fulltext: 'spherique', format: 'light' });
    expect(search.body).toMatchObject({ total: 1, liste: [{ oid: 93_003 }] });
    expect(await db.resource.findUnique({ where: { oid: taken.body.oid }, select: { titre: true } })).toEqual(
      {
        titre: 'Déjà là',
      },
    );
    expect((await importFile(small, options)).resources).toEqual({
      created: 0,
      updated: 0,
      unchanged: 12,
      skipped: 5,
    });
  });
});

describe('refusals and the dry run', () => {
  it('refuses a file of another baseId, writing nothing', async () => {
    const other = join(folder, 'other-base.jsonl');
    writeFileSync(
      other,
      `${JSON.stringify({ format: 'resource-repository-transfer', version: 1, baseId: 'ailleurs' })}\n` +
        `${JSON.stringify({ personne: { oid: 77_001, pid: 'x/1', nom: 'N', prenom: 'P' } })}\n`,
    );
    await expect(importFile(other, options)).rejects.toThrow(TransferFormatError);
    expect(await db.person.findUnique({ where: { pid: 'x/1' } })).toBeNull();
  });

  it('skips records whose text no database can store exactly (NUL, lone surrogate), naming the field, and stores any other text as it is', async () => {
    const flawed = join(folder, 'flawed-text.jsonl');
    const header = { format: 'resource-repository-transfer', version: 1, baseId: BASE_ID };
    const resource = (oid: number, fields: Record<string, unknown>) => ({
      ressource: { oid, rid: `repo/${oid}`, type: 'url', titre: `Texte ${oid}`, ...fields },
    });
    const exact = `Sonde \uFFFE\uFFFF 😀 \u0001 e\u0301`;
    // JSON.stringify writes a lone surrogate as its escape, the way such a file holds one.
    const records = [
      { personne: { oid: 77_101, pid: 'texte/1', nom: 'a\ud800b', prenom: 'P' } },
      { personne: { oid: 77_102, pid: 'texte/2', nom: 'N', prenom: 'a\u0000b' } },
      { groupe: { oid: 7_701, nom: 'Groupe \udc00' } },
      resource(96_501, { titre: 'a\ud800b' }),
      resource(96_502, { parametres: { 'cl\udfff': 1 } }),
      resource(96_503, {
        type: 'arbre',
        enfants: [{ titre: 'x\u0000', type: 'url', aliasOf: 'repo/96504' }],
      }),
      resource(96_504, { titre: exact, resume: exact }),
    ];
    writeFileSync(flawed, `${[header, ...records].map((record) => JSON.stringify(record)).join('\n')}\n`);
    const report = await importFile(flawed, options);
    expect(report.persons.skipped).toBe(2);
    expect(report.groups.skipped).toBe(1);
    expect(report.resources).toMatchObject({ created: 1, skipped: 3 });
    const problems = report.skipped.map(({ id, message }) => `${id}: ${message}`);
    expect(problems).toEqual([
      expect.stringMatching(/^texte\/1: nom: .*lone surrogate/),
      expect.stringMatching(/^texte\/2: prenom: .*NUL/),
      expect.stringMatching(/^Groupe .*: nom: .*lone surrogate/),
      expect.stringMatching(/^96501: titre: .*lone surrogate/),
      expect.stringMatching(/^96502: parametres\.cl.*: .*lone surrogate/),
      expect.stringMatching(/^96503: enfants\[0\]\.titre: .*NUL/),
    ]);
    expect(await db.person.count({ where: { pid: { startsWith: 'texte/' } } })).toBe(0);
    const stored = await app.client().get('/api/ressource/96504').set(tokenHeaders);
    expect(stored.body).toMatchObject({ titre: exact, resume: exact });
  });

  it('counts what a dry run would do and writes nothing', async () => {
    const small = join(folder, 'small.jsonl');
    await writeGeneratedExport(small, {
      baseId: BASE_ID,
      resources: 20,
      persons: 4,
      groups: 2,
      firstOid: 90_000,
      prefix: 'essai',
      firstPersonOid: 5000,
      firstGroupOid: 700,
    });
    const before = await db.resource.count();
    const report = await importFile(small, { ...options, dryRun: true });
    expect(report.resources.created).toBe(20);
    expect(report.dryRun).toBe(true);
    expect(await db.resource.count()).toBe(before);
    expect(await db.resource.findUnique({ where: { oid: 90_000 } })).toBeNull();
  });
});

/** Runs a transfer command in this process as `rrs` would; its output lines, and its exit code. */
async function command(...args: string[]) {
  const { code, stdout, stderr } = await rrsInProcess(args, { BASE_ID, BASE_URL: 'http://repo.test/' });
  const printed = `${stdout}${stderr}`.split('\n').filter(Boolean);
  return { printed, exitCode: code };
}

describe('the import and export commands', () => {
  it('import prints progress lines, problems and a summary, writes the report, and says when nothing changes', async () => {
    const small = join(folder, 'cli.jsonl');
    await writeGeneratedExport(small, {
      baseId: BASE_ID,
      resources: 30,
      persons: 5,
      groups: 3,
      firstOid: 95_000,
      prefix: 'cli',
      firstPersonOid: 6000,
      firstGroupOid: 800,
    });
    const reportFile = join(folder, 'report.json');
    const first = await command('import', small, '--report', reportFile);
    expect(first.exitCode).toBe(0);
    expect(JSON.parse(first.printed.at(-1)!)).toMatchObject({
      persons: { created: 5, skipped: 1 },
      groups: { created: 3, skipped: 1 },
      resources: { created: 30, skipped: 4 },
      skipped: 8,
    });
    expect(first.printed).toContain('Import done.');
    // Not a terminal: plain progress lines (resource lines of the file, the invalid ones included).
    expect(first.printed.some((line) => /^resources: 34\/34 \(\d+\/s\)$/.test(line))).toBe(true);
    expect(first.printed).toContain('skipped line 44 (resource 95032): titre: required');
    expect(JSON.parse(readFileSync(reportFile, 'utf8')).skipped).toHaveLength(8);
    const again = await command('import', small);
    expect(again.printed).toContain('Nothing to change: the database holds everything the file describes.');
    const absent = await command('import', join(folder, 'absent.jsonl'));
    expect(absent.exitCode).toBe(1);
  });

  it('npm run import runs the command-line tool’s import (here a dry run)', async () => {
    const small = join(folder, 'runner.jsonl');
    await writeGeneratedExport(small, {
      baseId: BASE_ID,
      resources: 5,
      persons: 2,
      groups: 2,
      firstOid: 97_000,
      prefix: 'runner',
      firstPersonOid: 7000,
      firstGroupOid: 900,
    });
    const { stdout } = await run('npm', ['run', '--silent', 'import', '--', small, '--dry-run'], {
      env: { ...process.env, BASE_ID, BASE_URL: 'http://repo.test/', LOG_LEVEL: 'warn' },
    });
    expect(stdout).toContain('Dry run: nothing was written.');
    const summary = JSON.parse(stdout.trim().split('\n').at(-1)!);
    expect(summary).toMatchObject({ dryRun: true, resources: { created: 5, skipped: 4 } });
    expect(await db.resource.findUnique({ where: { oid: 97_000 } })).toBeNull();
  }, 60_000);
});
