/**
 * What OAI-PMH harvesters read (issue 26), through the service's HarvestSource
 * (src/oai/graphql-source.ts: named operations run through the Yoga pipeline as REST runs its own):
 * only public, published, indexable resources that are not aliases, each as a record; everything
 * that was exposed and is not any more as a deleted record stamped with the change, whichever path
 * wrote it (the harvest entries' triggers); pages of one statement in an exact oid keyset.
 */

import { readFileSync, writeFileSync } from 'node:fs';
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { db, onStatement, provider } from '../../src/db/client.ts';
import { metadataFormats } from '../../src/oai/formats/index.ts';
import { createGraphQLHarvestSource, HarvestSourceError } from '../../src/oai/graphql-source.ts';
import type { HarvestRecord, HarvestSelection, HarvestSource } from '../../src/oai/harvest-source.ts';
import { readHarvestPage, readHarvestRecord } from '../../src/read-model/harvest.ts';
import { importFile } from '../../src/transfer/import.service.ts';
import { API_TOKEN, startApp, type TestApp } from '../support/app.ts';
import { createResource } from '../support/resources.ts';
import { scratchDir } from '../support/scratch.ts';
import { writeGeneratedExport } from '../support/transfer-file.ts';

let app: TestApp;
let source: HarvestSource;

beforeAll(async () => {
  // What a harvest costs the database, not what the response cache saves.
  app = await startApp({ responseCache: { enabled: false } });
  source = createGraphQLHarvestSource((name, variables) => {
    // An anonymous request, as a harvester's.
    const req = new IncomingMessage(new Socket());
    return app.runHarvestOperation(name, variables, { req, res: new ServerResponse(req) });
  });
});

afterAll(async () => {
  await app.close();
});

/** A save merged into the resource (a posted title would otherwise overwrite the rest with defaults). */
const post = async (body: Record<string, unknown>) => {
  const answer = await app
    .client()
    .post('/api/ressource')
    .query({ merge: '1' })
    .set('X-ApiToken', API_TOKEN)
    .send(body);
  expect(answer.body.success, JSON.stringify(answer.body)).toBe(true);
  return answer.body;
};

/** Every record of the selection, page after page, in the order given. */
async function harvest(
  selection: HarvestSelection = {},
  withMetadata = true,
  limit = 50,
): Promise<HarvestRecord[]> {
  const records: HarvestRecord[] = [];
  let afterOid: number | undefined;
  for (;;) {
    const page = await source.page({ ...selection, afterOid, limit, withMetadata });
    records.push(...page.records);
    if (!page.hasMore) return records;
    afterOid = page.records.at(-1)!.header.oid;
  }
}

const within = (records: HarvestRecord[], oids: readonly number[]) =>
  records.filter((record) => oids.includes(record.header.oid));

/** The current second, as datestamps hold it. */
const second = (at = Date.now()) => new Date(Math.floor(at / 1000) * 1000);

/** Moves an entry's datestamp far back, so that a later change is seen to move it. */
const stampLongAgo = (oid: number) =>
  db.harvestEntry.update({ where: { oid }, data: { datestamp: new Date('2001-01-01T00:00:00Z') } });

const entryOf = (oid: number) => db.harvestEntry.findUnique({ where: { oid } });

describe('what is harvested', () => {
  it('exposes public, published, indexable resources, never a restricted, unpublished, unlisted one or an alias', async () => {
    const exposed = await createResource(app, {
      titre: 'Moisson publique',
      niveaux: ['6e'],
      categories: [7, 3],
    });
    const hidden = [
      await createResource(app, { titre: 'Moisson correction', restriction: 1 }),
      await createResource(app, { titre: 'Moisson groupe', restriction: 2 }),
      await createResource(app, { titre: 'Moisson privée', restriction: 3 }),
      await createResource(app, { titre: 'Moisson brouillon', publie: false }),
      await createResource(app, { titre: 'Moisson non indexable', indexable: false }),
      await createResource(app, { titre: 'Moisson alias', aliasOf: 'ailleurs/12' }),
    ];
    const all = [exposed, ...hidden];
    for (const withMetadata of [true, false]) {
      const records = within(await harvest({}, withMetadata), all);
      expect(records.map((record) => record.header.oid)).toEqual([exposed]);
      expect(records[0]!.header.deleted).toBe(false);
      expect(records[0]!.resource === null).toBe(!withMetadata);
    }
    for (const oid of hidden) {
      expect(await source.record(oid)).toBeNull();
      expect(await entryOf(oid)).toBeNull();
    }
    const record = (await source.record(exposed))!;
    expect(record.header.setSpecs).toEqual(['type:url', 'niveau:6e', 'categorie:7', 'categorie:3']);
    expect(record.resource).toMatchObject({
      oid: exposed,
      rid: `repo/${exposed}`,
      titre: 'Moisson publique',
      type: 'url',
      niveaux: ['6e'],
      categories: [7, 3],
      publicUrl: `http://repo.test/api/public/${exposed}`,
      adresse: null,
    });
  });

  it('gives an url resource’s http(s) address, never another kind of address', async () => {
    const web = await createResource(app, {
      titre: 'Adresse',
      parametres: { adresse: 'https://example.org/a' },
    });
    const other = await createResource(app, {
      titre: 'Adresse js',
      parametres: { adresse: 'javascript:alert(1)' },
    });
    expect((await source.record(web))!.resource!.adresse).toBe('https://example.org/a');
    expect((await source.record(other))!.resource!.adresse).toBeNull();
  });

  it('gives authors and contributors with their names', async () => {
    const oid = await createResource(app, { titre: 'Auteurs' });
    const person = await db.person.create({
      data: { pid: `repo/moisson-${oid}`, nom: 'Noé', prenom: 'Zoé', email: 'z@example.org' },
    });
    await db.resourceContributor.create({ data: { resourceOid: oid, personOid: person.oid, position: 0 } });
    const { resource } = (await source.record(oid))!;
    expect(resource!.contributors).toEqual([{ pid: person.pid, nom: 'Noé', prenom: 'Zoé' }]);
    expect(JSON.stringify(resource)).not.toContain('z@example.org');
  });
});

describe('deleted records', () => {
  /** The record of `oid` after `change`, which must be stamped within the change. */
  async function withdrawnBy(oid: number, change: () => Promise<unknown>) {
    expect((await source.record(oid))!.header.deleted).toBe(false);
    await stampLongAgo(oid);
    const before = second();
    await change();
    const after = new Date();
    const record = (await source.record(oid))!;
    expect(record.header.deleted).toBe(true);
    expect(record.resource).toBeNull();
    const datestamp = new Date(record.header.datestamp);
    expect(datestamp.getTime()).toBeGreaterThanOrEqual(before.getTime());
    expect(datestamp.getTime()).toBeLessThanOrEqual(after.getTime());
    expect(datestamp.getMilliseconds()).toBe(0);
    // An incremental harvest from the change's second meets it, as a header only.
    const met = within(await harvest({ from: datestamp }), [oid]);
    expect(met.map((r) => [r.header.deleted, r.resource])).toEqual([[true, null]]);
    return record;
  }

  it('are left by a deletion', async () => {
    const oid = await createResource(app, { titre: 'À supprimer' });
    await withdrawnBy(oid, async () => {
      const answer = await app.client().delete(`/api/ressource/${oid}`).set('X-ApiToken', API_TOKEN);
      expect(answer.body.success, JSON.stringify(answer.body)).toBe(true);
    });
  });

  it('are left by an unpublication, a change of restriction, of indexable, and by becoming an alias', async () => {
    for (const change of [
      { publie: false },
      { restriction: 1 },
      { restriction: 2 },
      { restriction: 3 },
      { indexable: false },
    ]) {
      const oid = await createResource(app, { titre: `Retrait ${JSON.stringify(change)}` });
      await withdrawnBy(oid, () => post({ oid, ...change }));
    }
    const alias = await createResource(app, { titre: 'Devient alias' });
    await withdrawnBy(alias, () =>
      db.resource.update({ where: { oid: alias }, data: { aliasOf: 'ailleurs/1' } }),
    );
  });

  it('keep the sets they were last in, and come back live when exposed again', async () => {
    const oid = await createResource(app, {
      titre: 'Ensembles',
      type: 'em',
      niveaux: ['4e'],
      categories: [5],
    });
    await withdrawnBy(oid, () => post({ oid, publie: false }));
    // Changed while withdrawn: a harvest of the set it was in is still told of its deletion.
    await post({ oid, niveaux: ['3e'] });
    const deleted = (await source.record(oid))!;
    expect(deleted.header.setSpecs).toEqual(['type:em', 'niveau:4e', 'categorie:5']);
    expect(within(await harvest({ set: 'niveau:4e' }), [oid]).map((r) => r.header.deleted)).toEqual([true]);
    expect(within(await harvest({ set: 'niveau:3e' }), [oid])).toEqual([]);

    await post({ oid, publie: true });
    const live = (await source.record(oid))!;
    expect(live.header.deleted).toBe(false);
    expect(live.header.setSpecs).toEqual(['type:em', 'niveau:3e', 'categorie:5']);
    expect(live.resource!.niveaux).toEqual(['3e']);
  });

  it('are never written by a transaction rolled back', async () => {
    const kept = await createResource(app, { titre: 'Gardée' });
    let created = 0;
    await expect(
      db.$transaction(async (tx) => {
        created = (
          await tx.resource.create({
            data: { origine: 'repo', idOrigine: `annulee-${kept}`, type: 'url', publie: true },
          })
        ).oid;
        await tx.resource.delete({ where: { oid: kept } });
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(created).toBeGreaterThan(0);
    expect(await entryOf(created)).toBeNull();
    expect((await source.record(kept))!.header.deleted).toBe(false);
  });
});

describe('datestamps', () => {
  it('move with what a record shows, not with what it does not', async () => {
    const oid = await createResource(app, { titre: 'Horodatage', niveaux: ['cp'] });
    const moved = async (change: () => Promise<unknown>) => {
      await stampLongAgo(oid);
      const before = second();
      await change();
      const { datestamp } = (await entryOf(oid))!;
      return datestamp.getTime() >= before.getTime();
    };
    // A save through the service of something the records show.
    expect(await moved(() => post({ oid, titre: 'Horodatage 2' }))).toBe(true);
    // Join tables written by something else than the service.
    expect(
      await moved(() => db.resourceLevel.create({ data: { resourceOid: oid, level: 'ce1', position: 1 } })),
    ).toBe(true);
    expect(await moved(() => db.resourceCategory.deleteMany({ where: { resourceOid: oid } }))).toBe(true);
    expect(
      await moved(() =>
        db.resourcePedagogicType.create({ data: { resourceOid: oid, typeId: 3, position: 0 } }),
      ),
    ).toBe(true);
    const person = await db.person.create({ data: { pid: `repo/horodatage-${oid}`, nom: 'H', prenom: 'H' } });
    expect(
      await moved(() =>
        db.resourceAuthor.create({ data: { resourceOid: oid, personOid: person.oid, position: 5 } }),
      ),
    ).toBe(true);
    expect(await moved(() => db.resource.update({ where: { oid }, data: { description: 'Changée' } }))).toBe(
      true,
    );
    // An author's new name, which the records show.
    expect(
      await moved(() => db.person.update({ where: { oid: person.oid }, data: { nom: 'Renommé' } })),
    ).toBe(true);
    // What no record shows: comments, the read key, the version counters, an author's e-mail.
    expect(await moved(() => db.resource.update({ where: { oid }, data: { commentaires: 'note' } }))).toBe(
      false,
    );
    expect(await moved(() => db.resource.update({ where: { oid }, data: { inc: { increment: 1 } } }))).toBe(
      false,
    );
    expect(
      await moved(() => db.person.update({ where: { oid: person.oid }, data: { email: 'h@example.org' } })),
    ).toBe(false);
  });

  it('stay when a save through the service changes nothing a record shows, though it moves dateMiseAJour', async () => {
    const author = await db.person.create({ data: { pid: 'repo/commentee', nom: 'Note', prenom: 'Anne' } });
    // Every list a record shows, each of which a save could rewrite.
    const oid = await createResource(app, {
      titre: 'Commentée',
      niveaux: ['5e'],
      categories: [7, 3],
      typePedagogiques: [9],
      typeDocumentaires: [12],
      auteurs: [author.pid],
      contributeurs: [author.pid],
    });
    const formats = metadataFormats({ repositoryIdentifier: 'repo.test' });
    const disseminated = async () => {
      const { resource } = (await source.record(oid))!;
      return formats.map((format) => format.render(resource!));
    };
    const before = await disseminated();
    expect(before[0]).toContain('<dc:creator>Anne Note</dc:creator>');
    const longAgo = new Date('2001-01-01T00:00:00Z');
    await db.resource.update({ where: { oid }, data: { dateMiseAJour: longAgo } });
    await stampLongAgo(oid);
    await post({ oid, commentaires: 'Note pour les collègues' });
    const saved = await db.resource.findUniqueOrThrow({ where: { oid } });
    expect(saved.commentaires).toBe('Note pour les collègues');
    // The save did move dateMiseAJour, which no format shows: the records are the same.
    expect(saved.dateMiseAJour.getTime()).toBeGreaterThan(longAgo.getTime());
    expect(await disseminated()).toEqual(before);
    expect((await entryOf(oid))!.datestamp).toEqual(longAgo);
  });

  it('select from and until inclusively, to the second', async () => {
    const oid = await createResource(app, { titre: 'Bornes' });
    const stamp = new Date('2011-06-15T10:20:30Z');
    await db.harvestEntry.update({ where: { oid }, data: { datestamp: stamp } });
    const at = (ms: number) => new Date(stamp.getTime() + ms);
    const found = async (selection: HarvestSelection) =>
      within(await harvest(selection, false), [oid]).length;
    expect(await found({ from: stamp, until: stamp })).toBe(1);
    expect(await found({ from: stamp })).toBe(1);
    expect(await found({ until: stamp })).toBe(1);
    expect(await found({ until: at(999) })).toBe(1);
    expect(await found({ from: at(1000) })).toBe(0);
    expect(await found({ until: at(-1) })).toBe(0);
    expect(await found({ from: at(-1000), until: at(-1) })).toBe(0);
    expect((await source.record(oid))!.header.datestamp).toBe(stamp.toISOString());
    expect(await source.count({ from: stamp, until: stamp })).toBeGreaterThanOrEqual(1);
  });

  it('are UTC and read by Prisma as the time they are', async () => {
    const before = second();
    const oid = await createResource(app, { titre: 'UTC' });
    const { datestamp } = (await entryOf(oid))!;
    expect(datestamp.getTime()).toBeGreaterThanOrEqual(before.getTime());
    expect(datestamp.getTime()).toBeLessThanOrEqual(Date.now());
    expect((await source.record(oid))!.header.datestamp).toBe(datestamp.toISOString());
  });

  it('give the earliest datestamp of every record', async () => {
    const oid = await createResource(app, { titre: 'Le plus ancien' });
    const oldest = new Date('1999-12-31T23:59:59Z');
    await db.harvestEntry.update({ where: { oid }, data: { datestamp: oldest } });
    expect(await source.earliestDatestamp()).toBe(oldest.toISOString());
  });
});

describe('operation results', () => {
  it('hold only what JSON has (DateTime as ISO text, no Date object for JSON.stringify to convert)', async () => {
    // A Date anywhere in an answer sends JSON.stringify off V8's fast path for all of it (6 times
    // slower on a full resource): every answer, REST and /graphql, is a result of these operations.
    const oid = await createResource(app, { titre: 'Texte JSON' });
    const answer = await app.runHarvestOperation(
      'OaiRecord',
      { oid },
      { req: new IncomingMessage(new Socket()), res: new ServerResponse(new IncomingMessage(new Socket())) },
    );
    const record = (answer.data as { result: { datestamp: unknown; resource: { dateCreation: unknown } } })
      .result;
    expect(typeof record.datestamp).toBe('string');
    expect(typeof record.resource.dateCreation).toBe('string');
    expect(answer.data).toStrictEqual(JSON.parse(JSON.stringify(answer.data)));
  });
});

describe('pages', () => {
  it('are one statement each, with or without metadata, and a count is one more', async () => {
    for (let i = 0; i < 3; i++)
      await createResource(app, { titre: `Coût ${i}`, niveaux: ['5e'], categories: [2] });
    const statements: string[] = [];
    const stop = onStatement((sql) => statements.push(sql));
    try {
      for (const withMetadata of [true, false]) {
        for (const selection of [
          {},
          { set: 'niveau:5e', from: new Date('2000-01-01') },
          { set: 'type:url' },
        ]) {
          statements.length = 0;
          const page = await source.page({ ...selection, limit: 2, withMetadata });
          expect(page.records).toHaveLength(2);
          expect(statements, statements.join('\n')).toHaveLength(1);
          // Headers are read from the entries alone.
          expect(statements[0]!.includes('"Resource"')).toBe(withMetadata);
        }
      }
      statements.length = 0;
      expect(await source.count({ set: 'categorie:2' })).toBeGreaterThanOrEqual(3);
      expect(statements).toHaveLength(1);
      statements.length = 0;
      await source.earliestDatestamp();
      expect(statements).toHaveLength(1);
    } finally {
      stop();
    }
  });

  it('give every record that exists throughout a harvest exactly once, whatever changes meanwhile', async () => {
    const type = 'mental';
    const oids: number[] = [];
    for (let i = 0; i < 8; i++) oids.push(await createResource(app, { titre: `Clé ${i}`, type }));
    const seen: number[] = [];
    let afterOid: number | undefined;
    let round = 0;
    for (;;) {
      const page = await source.page({ set: `type:${type}`, afterOid, limit: 3, withMetadata: true });
      seen.push(...page.records.map((record) => record.header.oid));
      if (!page.hasMore) break;
      afterOid = page.records.at(-1)!.header.oid;
      if (round++ === 0) {
        // Updates before and after the cursor, a creation and a deletion ahead of it.
        await post({ oid: oids[0], titre: 'Clé 0 changée' });
        await post({ oid: oids[6], titre: 'Clé 6 changée' });
        const removed = await app.client().delete(`/api/ressource/${oids[5]}`).set('X-ApiToken', API_TOKEN);
        expect(removed.body.success).toBe(true);
        oids.push(await createResource(app, { titre: 'Clé nouvelle', type }));
      }
    }
    const ours = seen.filter((oid) => oids.includes(oid));
    expect(new Set(ours).size).toBe(ours.length);
    // The deleted one is met as a deleted record; the new one at the end.
    expect(ours).toEqual(oids);
  });

  it('follow sets', async () => {
    const em = await createResource(app, {
      titre: 'Ensemble em',
      type: 'em',
      niveaux: ['2nde'],
      categories: [9],
    });
    const url = await createResource(app, { titre: 'Ensemble url', niveaux: ['tle'], categories: [9] });
    const oids = [em, url];
    const of = async (set: string) => within(await harvest({ set }), oids).map((r) => r.header.oid);
    expect(await of('type:em')).toEqual([em]);
    expect(await of('niveau:tle')).toEqual([url]);
    expect(await of('categorie:9')).toEqual([em, url]);
    expect(await of('categorie:1')).toEqual([]);
    expect((await source.sets()).map((set) => set.spec)).toEqual(
      expect.arrayContaining(['type:em', 'niveau:6e', 'categorie:7']),
    );
  });

  it('take bounds at the ends of the dates GraphQL and the databases hold', async () => {
    const oid = await createResource(app, { titre: 'Bornes extrêmes' });
    const first = new Date('0001-01-01T00:00:00Z');
    const last = new Date('9999-12-31T23:59:59Z');
    expect(within(await harvest({ from: first, until: last }, false), [oid])).toHaveLength(1);
    expect(within(await harvest({ from: last }, false), [oid])).toHaveLength(0);
    expect(within(await harvest({ until: first }, false), [oid])).toHaveLength(0);
    expect(await source.count({ from: last })).toBe(0);
    const page = await source.page({ afterOid: 2_147_483_647, limit: 1000, withMetadata: true });
    expect(page).toEqual({ records: [], hasMore: false });
  });

  it('refuse bad arguments with typed errors', async () => {
    const refused = async (run: () => Promise<unknown>) => {
      const error = await run().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(HarvestSourceError);
      return (error as HarvestSourceError).code;
    };
    const page = (request: Partial<Parameters<HarvestSource['page']>[0]>) => () =>
      source.page({ limit: 10, withMetadata: false, ...request });
    expect(await refused(page({ limit: 0 }))).toBe('INVALID_INPUT');
    expect(await refused(page({ limit: 100_000 }))).toBe('INVALID_INPUT');
    expect(await refused(page({ afterOid: -1 }))).toBe('INVALID_INPUT');
    expect(await refused(page({ set: 'niveau:a|b' }))).toBe('INVALID_INPUT');
    expect(await refused(page({ set: 'type:a:' }))).toBe('INVALID_INPUT');
    expect(await refused(page({ from: new Date('2020-01-02'), until: new Date('2020-01-01') }))).toBe(
      'INVALID_INPUT',
    );
    expect(await refused(() => source.count({ set: 'type:' }))).toBe('INVALID_INPUT');
  });

  it('select nothing with a well-formed set that is not one of ours (a set that may exist later)', async () => {
    await createResource(app, { titre: 'Moisson ensemble', categories: [7] });
    for (const set of ['couleur:bleu', 'couleur', 'categorie:x', 'type:url:deep']) {
      expect(await source.page({ set, limit: 10, withMetadata: false }), set).toEqual({
        records: [],
        hasMore: false,
      });
      expect(await source.count({ set }), set).toBe(0);
    }
    expect(await source.count({ set: 'categorie' })).toBeGreaterThan(0);
  });
});

describe('other write paths', () => {
  it('an import writes entries for what it exposes and deleted records for what it withdraws', async () => {
    const folder = scratchDir('harvest-import');
    const file = join(folder, 'export.jsonl');
    const firstOid = 70_000;
    await writeGeneratedExport(file, {
      baseId: 'repo',
      resources: 60,
      persons: 4,
      groups: 2,
      firstOid,
      prefix: 'hv',
    });
    const options = { baseId: 'repo', roleNames: ['admin', 'formateur', 'eleve'] };
    await importFile(file, options);
    const imported = await db.resource.findMany({
      where: { oid: { gte: firstOid, lt: firstOid + 60 } },
      select: { oid: true, publie: true, restriction: true, indexable: true, aliasOf: true },
    });
    const exposed = imported
      .filter((r) => r.publie && r.restriction === 0 && r.indexable && r.aliasOf === null)
      .map((r) => r.oid);
    expect(exposed.length).toBeGreaterThan(5);
    const records = within(
      await harvest({}, false),
      imported.map((r) => r.oid),
    );
    expect(records.map((r) => r.header.oid)).toEqual(exposed);

    // The same export with one resource made private: the import withdraws it.
    const withdrawn = exposed[0]!;
    const lines = (await import('node:fs')).readFileSync(file, 'utf8').split('\n');
    const changed = lines.map((line) => {
      if (!line.includes(`"oid":${withdrawn},`)) return line;
      const record = JSON.parse(line);
      const resource = record.ressource ?? record;
      Object.assign(resource, { restriction: 3, cle: `cle-moisson-${withdrawn}` });
      return JSON.stringify(record);
    });
    (await import('node:fs')).writeFileSync(file, changed.join('\n'));
    const before = second();
    await importFile(file, options);
    const record = (await source.record(withdrawn))!;
    expect(record.header.deleted).toBe(true);
    expect(Date.parse(record.header.datestamp)).toBeGreaterThanOrEqual(before.getTime());
  });

  it('an import restamps what it changes in a record, not a resource whose comments alone it changes', async () => {
    const folder = scratchDir('harvest-import-comments');
    const file = join(folder, 'export.jsonl');
    const firstOid = 71_000;
    await writeGeneratedExport(file, {
      baseId: 'repo',
      resources: 30,
      persons: 4,
      groups: 2,
      firstOid,
      prefix: 'hc',
    });
    const options = { baseId: 'repo', roleNames: ['admin', 'formateur', 'eleve'] };
    await importFile(file, options);
    const live = (
      await db.harvestEntry.findMany({
        where: { oid: { gte: firstOid, lt: firstOid + 30 }, deleted: false },
        orderBy: { oid: 'asc' },
      })
    ).map((entry) => entry.oid);
    expect(live.length).toBeGreaterThan(2);
    const [commented, retitled] = live as [number, number];
    const lines = readFileSync(file, 'utf8').split('\n');
    const changed = lines.map((line) => {
      const change = line.includes(`"oid":${commented},`)
        ? { commentaires: 'Commentaire importé' }
        : line.includes(`"oid":${retitled},`)
          ? { titre: 'Titre importé' }
          : null;
      if (!change) return line;
      const record = JSON.parse(line);
      Object.assign(record.ressource ?? record, change);
      return JSON.stringify(record);
    });
    writeFileSync(file, changed.join('\n'));
    for (const oid of live) await stampLongAgo(oid);
    const before = second();
    const report = await importFile(file, options);
    expect(report.resources.updated).toBe(2);
    expect((await db.resource.findUniqueOrThrow({ where: { oid: commented } })).commentaires).toBe(
      'Commentaire importé',
    );
    expect((await entryOf(commented))!.datestamp).toEqual(new Date('2001-01-01T00:00:00Z'));
    expect((await entryOf(retitled))!.datestamp.getTime()).toBeGreaterThanOrEqual(before.getTime());
  });

  it('an alias is not harvested until forked into a resource of its own', async () => {
    const original = await createResource(app, { titre: 'Original', type: 'em' });
    const alias = await createResource(app, { titre: 'Alias', type: 'em', aliasOf: `repo/${original}` });
    expect(await source.record(alias)).toBeNull();
    const fork = await app.client().get(`/api/forkAlias/${alias}`).set('X-ApiToken', API_TOKEN);
    expect(fork.body.success, JSON.stringify(fork.body)).toBe(true);
    const forked = await db.resource.findUniqueOrThrow({ where: { oid: alias } });
    expect(forked).toMatchObject({ aliasOf: null, publie: true, restriction: 0 });
    expect((await source.record(alias))!.header.deleted).toBe(false);
  });
});

describe('the rule of what is harvested, in each layer on its own', () => {
  // The triggers keep an entry live only while its resource is exposed; the read model's statements
  // check the resource again, and the harvest module checks each record against isHarvestable
  // (test/unit/harvest-records.test.ts). An entry left live by anything else (a restored backup, a
  // trigger a migration dropped, an operator's SQL) is what the statements alone must withhold.
  it('the read model gives no metadata of a resource not exposed, whatever its entry says', async () => {
    const exposed = await createResource(app, { titre: 'Exposée, entrée vivante' });
    const hidden: [string, string][] = [
      ['unpublished', `"publie" = false`],
      ['restriction 1', `"restriction" = 1`],
      ['restriction 2', `"restriction" = 2`],
      ['restriction 3', `"restriction" = 3`],
      ['not indexable', `"indexable" = false`],
      ['an alias', `"aliasOf" = 'ailleurs/3'`],
    ];
    for (const [what, assignment] of hidden) {
      const oid = await createResource(app, { titre: `Entrée vivante, ${what}` });
      await db.$executeRawUnsafe(`UPDATE "Resource" SET ${assignment} WHERE "oid" = ${oid}`);
      expect((await entryOf(oid))!.deleted, what).toBe(true);
      await db.$executeRawUnsafe(`UPDATE "HarvestEntry" SET "deleted" = false WHERE "oid" = ${oid}`);
      const [row] = await readHarvestPage({}, { after: oid - 1, limit: 1, withMetadata: true });
      expect(row, `page, ${what}`).toMatchObject({ oid, deleted: true, metadata: null });
      expect(await readHarvestRecord(oid), `record, ${what}`).toMatchObject({
        oid,
        deleted: true,
        metadata: null,
      });
    }
    const [row] = await readHarvestPage({}, { after: exposed - 1, limit: 1, withMetadata: true });
    expect(row).toMatchObject({
      oid: exposed,
      deleted: false,
      metadata: { titre: 'Exposée, entrée vivante' },
    });
    expect(await readHarvestRecord(exposed)).toMatchObject({ deleted: false, metadata: { restriction: 0 } });
  });
});

describe('the triggers, on writes by SQL alone (no service save: dateMiseAJour untouched)', () => {
  const LONG_AGO = new Date('2001-01-01T00:00:00Z');
  /** A date as Prisma stores a DateTime on each database (UTC), for SQL written by hand. */
  const SQL_DATE = provider === 'sqlite' ? `'2015-03-04T05:06:07.000+00:00'` : `'2015-03-04 05:06:07'`;
  let author: { oid: number; pid: string };
  let other: { oid: number; pid: string };

  beforeAll(async () => {
    author = await db.person.create({ data: { pid: 'repo/sql-auteur', nom: 'Auteur', prenom: 'Sql' } });
    other = await db.person.create({ data: { pid: 'repo/sql-autre', nom: 'Autre', prenom: 'Sql' } });
  });

  /** A public url resource with every list a record shows, made through the API. */
  const resourceWithLists = (fields: Record<string, unknown> = {}) =>
    createResource(app, {
      titre: 'Par SQL',
      parametres: { adresse: 'https://example.org/a' },
      niveaux: ['6e'],
      categories: [7],
      typePedagogiques: [9],
      typeDocumentaires: [12],
      auteurs: [author.pid],
      contributeurs: [author.pid],
      ...fields,
    });

  /**
   * The entry of `oid` after `statements`, run by SQL on an entry stamped long ago: whether its
   * datestamp moved to the change's second, stayed long ago, and whether it is deleted. Checks that
   * the statements left dateMiseAJour alone, unless they are meant to change it.
   */
  async function afterSql(oid: number, statements: string[], { changesDateMiseAJour = false } = {}) {
    await stampLongAgo(oid);
    const before = await db.resource.findUnique({ where: { oid }, select: { dateMiseAJour: true } });
    const second0 = second();
    for (const statement of statements) await db.$executeRawUnsafe(statement);
    const after = await db.resource.findUnique({ where: { oid }, select: { dateMiseAJour: true } });
    if (before && after && !changesDateMiseAJour) expect(after.dateMiseAJour).toEqual(before.dateMiseAJour);
    const entry = (await entryOf(oid))!;
    const stamp = entry.datestamp.getTime();
    return {
      stamped: stamp === LONG_AGO.getTime() ? 'long ago' : stamp >= second0.getTime() ? 'now' : 'elsewhen',
      deleted: entry.deleted,
    };
  }

  const update = (oid: number, assignment: string) =>
    `UPDATE "Resource" SET ${assignment} WHERE "oid" = ${oid}`;

  it('restamp a live record on a change of each Resource column a record shows', async () => {
    const url = await resourceWithLists();
    // A type change of an url resource also changes whether its address is shown: not this one's.
    const exercise = await resourceWithLists({ type: 'em', parametres: {} });
    const changes: [string, number, string][] = [
      ['titre', url, `"titre" = 'Titre par SQL'`],
      ['resume', url, `"resume" = 'Résumé par SQL'`],
      ['description', url, `"description" = 'Description par SQL'`],
      ['langue', url, `"langue" = 'eng'`],
      ['parametres (an url resource’s address)', url, `"parametres" = '{"adresse":"https://example.org/b"}'`],
      ['dateCreation', url, `"dateCreation" = ${SQL_DATE}`],
      ['levelTags', url, `"levelTags" = '|5e|'`],
      ['categoryTags', url, `"categoryTags" = '|3|'`],
      ['type', exercise, `"type" = 'j3p'`],
    ];
    for (const [column, oid, assignment] of changes) {
      expect(await afterSql(oid, [update(oid, assignment)]), column).toEqual({
        stamped: 'now',
        deleted: false,
      });
    }
  });

  it('restamp a live record on rows of each of its lists inserted, updated or deleted', async () => {
    const oid = await resourceWithLists();
    // Each table: the columns and values of a row to add, a change to its one row there.
    const lists: [string, string, string][] = [
      ['ResourceLevel', `"level", "position") VALUES (${oid}, '5e', 1)`, `"level" = '4e'`],
      ['ResourceCategory', `"categoryId", "position") VALUES (${oid}, 3, 1)`, `"categoryId" = 5`],
      ['ResourceAuthor', `"personOid", "position") VALUES (${oid}, ${other.oid}, 1)`, `"position" = 5`],
      ['ResourceContributor', `"personOid", "position") VALUES (${oid}, ${other.oid}, 1)`, `"position" = 5`],
      ['ResourcePedagogicType', `"typeId", "position") VALUES (${oid}, 3, 1)`, `"typeId" = 2`],
      ['ResourceDocumentaryType', `"typeId", "position") VALUES (${oid}, 5, 1)`, `"typeId" = 6`],
    ];
    for (const [table, inserted, changed] of lists) {
      const cases: [string, string][] = [
        ['update', `UPDATE "${table}" SET ${changed} WHERE "resourceOid" = ${oid}`],
        ['insert', `INSERT INTO "${table}" ("resourceOid", ${inserted}`],
        ['delete', `DELETE FROM "${table}" WHERE "resourceOid" = ${oid}`],
      ];
      for (const [event, statement] of cases) {
        expect(await afterSql(oid, [statement]), `${table} ${event}`).toEqual({
          stamped: 'now',
          deleted: false,
        });
      }
    }
    // A row moved from another resource: both records change.
    const giver = await resourceWithLists();
    const moved = `UPDATE "ResourceAuthor" SET "resourceOid" = ${oid} WHERE "resourceOid" = ${giver}`;
    await stampLongAgo(giver);
    expect(await afterSql(oid, [moved])).toEqual({ stamped: 'now', deleted: false });
    expect((await entryOf(giver))!.datestamp.getTime()).toBeGreaterThan(LONG_AGO.getTime());
  });

  it('leave the datestamp on a change of what no record shows', async () => {
    const url = await resourceWithLists();
    const exercise = await resourceWithLists({ type: 'em', parametres: { x: 1 } });
    const changes: [string, number, string[], { changesDateMiseAJour?: boolean }?][] = [
      ['commentaires', url, [update(url, `"commentaires" = 'Note par SQL'`)]],
      ['dateMiseAJour', url, [update(url, `"dateMiseAJour" = ${SQL_DATE}`)], { changesDateMiseAJour: true }],
      [
        'parametres other than the address',
        url,
        [update(url, `"parametres" = '{"adresse":"https://example.org/a","largeur":3}'`)],
      ],
      [
        'parametres of a resource that is not an url',
        exercise,
        [update(exercise, `"parametres" = '{"x":2,"adresse":"https://example.org/c"}'`)],
      ],
      ['enfants', url, [update(url, `"enfants" = '[{"titre":"Enfant"}]'`)]],
      ['version, inc', url, [update(url, `"version" = 7, "inc" = 9`)]],
      ['origine, idOrigine', url, [update(url, `"origine" = 'ailleurs', "idOrigine" = 'sql-${url}'`)]],
      [
        'a relation',
        url,
        [
          `INSERT INTO "ResourceRelation" ("resourceOid", "predicate", "targetRid", "position") VALUES (${url}, 1, 'ailleurs/9', 0)`,
        ],
      ],
      [
        'a person’s e-mail',
        url,
        [`UPDATE "Person" SET "email" = 'sql@example.org' WHERE "oid" = ${author.oid}`],
      ],
      [
        'a person’s names saved as they were',
        url,
        [`UPDATE "Person" SET "nom" = "nom", "prenom" = "prenom" WHERE "oid" = ${author.oid}`],
      ],
    ];
    for (const [what, oid, statements, options] of changes) {
      expect(await afterSql(oid, statements, options), what).toEqual({ stamped: 'long ago', deleted: false });
    }
  });

  it('restamp the records of a person’s resources when their names change (records show them)', async () => {
    const authored = await resourceWithLists({ contributeurs: [] });
    const contributed = await resourceWithLists({ auteurs: [other.pid], contributeurs: [author.pid] });
    const unrelated = await resourceWithLists({ auteurs: [other.pid], contributeurs: [] });
    for (const [column, value] of [
      ['nom', 'Renommée'],
      ['prenom', 'Renommée'],
    ] as const) {
      await stampLongAgo(unrelated);
      await stampLongAgo(contributed);
      const rename = `UPDATE "Person" SET "${column}" = '${value} ${column}' WHERE "oid" = ${author.oid}`;
      expect(await afterSql(authored, [rename]), `${column}, author`).toEqual({
        stamped: 'now',
        deleted: false,
      });
      expect((await entryOf(contributed))!.datestamp.getTime(), `${column}, contributor`).toBeGreaterThan(
        LONG_AGO.getTime(),
      );
      expect((await entryOf(unrelated))!.datestamp, `${column}, other author`).toEqual(LONG_AGO);
    }
    // A withdrawn record keeps the stamp of its withdrawal.
    await db.$executeRawUnsafe(update(authored, `"publie" = false`));
    expect(
      await afterSql(authored, [`UPDATE "Person" SET "nom" = 'Encore' WHERE "oid" = ${author.oid}`]),
    ).toEqual({ stamped: 'long ago', deleted: true });
  });

  it('withdraw a record on each visibility column, bring it back, and leave a withdrawn one alone', async () => {
    const oid = await resourceWithLists();
    const visibility: [string, string, string][] = [
      ['publie', `"publie" = false`, `"publie" = true`],
      ['restriction 1', `"restriction" = 1`, `"restriction" = 0`],
      ['restriction 2', `"restriction" = 2`, `"restriction" = 0`],
      ['restriction 3', `"restriction" = 3`, `"restriction" = 0`],
      ['indexable', `"indexable" = false`, `"indexable" = true`],
      ['aliasOf', `"aliasOf" = 'ailleurs/1'`, `"aliasOf" = NULL`],
    ];
    for (const [column, withdraw, expose] of visibility) {
      expect(await afterSql(oid, [update(oid, withdraw)]), `${column} withdraws`).toEqual({
        stamped: 'now',
        deleted: true,
      });
      // What changes while withdrawn is no harvester's business: the deletion keeps its stamp.
      expect(
        await afterSql(oid, [update(oid, `"titre" = 'Retirée, ${column}'`)]),
        `${column} withdrawn`,
      ).toEqual({
        stamped: 'long ago',
        deleted: true,
      });
      expect(await afterSql(oid, [update(oid, expose)]), `${column} exposes`).toEqual({
        stamped: 'now',
        deleted: false,
      });
    }
    expect(await afterSql(oid, [`DELETE FROM "Resource" WHERE "oid" = ${oid}`]), 'delete').toEqual({
      stamped: 'now',
      deleted: true,
    });
  });
});

describe('the triggers', () => {
  it('are all installed by the migrations', async () => {
    const names =
      provider === 'sqlite'
        ? (
            await db.$queryRawUnsafe<{ name: string }[]>(
              `SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE '%harvest%'`,
            )
          ).map((row) => row.name)
        : (
            await db.$queryRawUnsafe<{ name: string }[]>(
              `SELECT tgname::text AS name FROM pg_trigger WHERE tgname LIKE '%harvest%'`,
            )
          ).map((row) => row.name);
    const expected = [
      'Resource_harvest_insert',
      'Resource_harvest_update',
      'Resource_harvest_delete',
      ...(provider === 'sqlite' ? ['Resource_harvest_withdraw'] : []),
      ...[
        'ResourceAuthor',
        'ResourceContributor',
        'ResourcePedagogicType',
        'ResourceDocumentaryType',
      ].flatMap((table) => ['insert', 'update', 'delete'].map((event) => `${table}_harvest_${event}`)),
      'Person_harvest_update',
    ];
    expect(names.sort()).toEqual(expected.sort());
  });
});
