/**
 * A list's condition in SQL written by the service (src/read-model/conditions.ts) selects the same
 * resources, in the same order, as Prisma's translation of the same condition: every index, with
 * and without values, for every kind of caller, alone and combined, in every order.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { anonymousViewer } from '../../src/auth/viewer.ts';
import type { Context } from '../../src/context.ts';
import { db, type Prisma } from '../../src/db/client.ts';
import { filterCondition, INDEXES } from '../../src/modules/lists/filters.ts';
import { searchTerms, termCondition } from '../../src/modules/lists/fulltext.ts';
import {
  type RightsSubject,
  readableWhere,
  searchableWhere,
} from '../../src/modules/resources/resources.policy.ts';
import { wordRows } from '../../src/modules/resources/resources.repository.ts';
import type { Permission } from '../../src/permissions.ts';
import { UntranslatableCondition, whereSql } from '../../src/read-model/conditions.ts';
import { countResources } from '../../src/read-model/counts.ts';
import { loadPage, loadPageAfter } from '../../src/read-model/pages.ts';
import { rankedOids } from '../../src/read-model/ranked-search.ts';
import { sql } from '../../src/read-model/rows.ts';
import { prismaOids, rankedOidsByPrisma } from '../support/prisma-oracles.ts';

const BASE_ID = 'repo';
const context = { config: { baseId: BASE_ID } } as Context;

/** A deterministic corpus: every column and relation a filter reads takes several values, with ties. */
const TYPES = ['em', 'url', 'arbre', 'coll_doc'];
/** Texts of resume and description: plurals, derived forms, accents, shared prefixes. */
const PHRASES = [
  '',
  'Les fractions décimales',
  'la fraction',
  'fractionnement',
  'Angles droits',
  'un angle aigu',
  'vecteurs et repère vectoriel',
  'Équations du second degré',
  'équation',
  'zèbres',
];
/** Query texts: whole words, stems, prefixes, short words, upper case and accents, no match. */
const QUERIES = [
  'fraction',
  'frac',
  'fractionnement',
  'Décimale',
  'angle',
  'an',
  'vect',
  'EQUATIONS',
  'zeb',
  'zz',
  'second degre',
];
let oids: number[] = [];
let personOids: number[] = [];
let groupOids: number[] = [];

beforeAll(async () => {
  let state = 7;
  const next = (n: number) => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state % n;
  };
  await db.person.createMany({
    data: Array.from({ length: 5 }, (_, i) => ({ pid: `ws/${i}`, nom: `Nom${i}`, prenom: 'P' })),
  });
  personOids = (
    await db.person.findMany({ where: { pid: { startsWith: 'ws/' } }, orderBy: { oid: 'asc' } })
  ).map((p) => p.oid);
  await db.group.createMany({
    data: Array.from({ length: 4 }, (_, i) => ({ nom: `Groupe ${i}`, nomKey: `groupe ${i}` })),
  });
  groupOids = (await db.group.findMany({ orderBy: { oid: 'asc' } })).map((g) => g.oid);
  const day = (n: number) => new Date(Date.UTC(2024, 0, 1 + n, n % 2 === 0 ? 0 : 13, 0, 0));
  await db.resource.createMany({
    data: Array.from({ length: 80 }, (_, i) => ({
      origine: i < 40 ? 'ws' : 'other',
      idOrigine: String(i % 40),
      titre: ['', 'alpha', 'beta', 'gamma'][next(4)]!,
      type: TYPES[next(4)]!,
      langue: ['fra', 'eng'][next(2)]!,
      publie: next(3) > 0,
      restriction: next(3),
      aliasOf: next(4) === 0 ? `other/${next(5)}` : null,
      dateCreation: day(next(6)),
      dateMiseAJour: day(next(6)),
      cle: next(5) === 0 ? `key-${i}` : null,
      resume: PHRASES[next(PHRASES.length)]!,
      description: PHRASES[next(PHRASES.length)]!,
      indexable: next(5) > 0,
    })),
  });
  oids = (await db.resource.findMany({ select: { oid: true }, orderBy: { oid: 'asc' } })).map((r) => r.oid);
  const some = <T>(values: T[]) => values.filter(() => next(3) === 0);
  const rows = <T>(pick: (oid: number) => T[]) => oids.flatMap((oid) => pick(oid));
  await db.resourceAuthor.createMany({
    data: rows((resourceOid) =>
      some(personOids).map((personOid, position) => ({ resourceOid, personOid, position })),
    ),
  });
  await db.resourceContributor.createMany({
    data: rows((resourceOid) =>
      some(personOids).map((personOid, position) => ({ resourceOid, personOid, position })),
    ),
  });
  await db.resourceGroup.createMany({
    data: rows((resourceOid) =>
      some(groupOids).map((groupOid, position) => ({ resourceOid, groupOid, position })),
    ),
  });
  await db.resourceAuthorGroup.createMany({
    data: rows((resourceOid) =>
      some(groupOids).map((groupOid, position) => ({ resourceOid, groupOid, position })),
    ),
  });
  await db.resourceCategory.createMany({
    data: rows((resourceOid) =>
      some([1, 2, 3, 4]).map((categoryId, position) => ({ resourceOid, categoryId, position })),
    ),
  });
  await db.resourceLevel.createMany({
    data: rows((resourceOid) =>
      some(['6e', '5e', 'cp', 'a|b%']).map((level, position) => ({ resourceOid, level, position })),
    ),
  });
  await db.resourcePedagogicType.createMany({
    data: rows((resourceOid) =>
      some([1, 2, 3]).map((typeId, position) => ({ resourceOid, typeId, position })),
    ),
  });
  await db.resourceDocumentaryType.createMany({
    data: rows((resourceOid) =>
      some([1, 2, 3]).map((typeId, position) => ({ resourceOid, typeId, position })),
    ),
  });
  const texts = await db.resource.findMany({
    select: { oid: true, titre: true, resume: true, description: true },
  });
  await db.resourceWord.createMany({ data: texts.flatMap((resource) => wordRows(resource.oid, resource)) });
});

/** Sample values of each index, valid for its kind (some match nothing). */
const SAMPLES: Record<string, unknown[]> = {
  titre: ['alpha', 'beta', 'zeta'],
  oid: [1, 2, 3, 40, 999999],
  rid: [`${BASE_ID}/3`, `${BASE_ID}/10`, 'elsewhere/3'],
  origine: ['ws', 'other'],
  idOrigine: ['1', '2', '7'],
  type: TYPES,
  langue: ['fra', 'eng'],
  auteurs: ['ws/0', 'ws/1', 'ws/4', 'nobody/1'],
  contributeurs: ['ws/2', 'ws/3'],
  // `a|b%` holds the tags' separator and escape: neither `a` nor `b%` is that level.
  niveaux: ['6e', 'cp', 'lycée', 'a|b%', 'a', 'b%'],
  categories: [1, 2, 4, 9],
  typePedagogiques: [1, 3],
  typeDocumentaires: [2, 3],
  groupes: ['Groupe 0', 'groupe 2', 'Inconnu'],
  groupesAuteurs: ['Groupe 1', 'Groupe 3'],
  publie: [true, false],
  restriction: [0, 1, 2],
  aliasOf: ['other/1', 'other/2'],
  dateCreation: [
    new Date(Date.UTC(2024, 0, 3)),
    new Date(Date.UTC(2024, 0, 2, 13)),
    new Date(Date.UTC(2024, 0, 4)),
  ],
  dateMiseAJour: [new Date(Date.UTC(2024, 0, 1)), new Date(Date.UTC(2024, 0, 5))],
};

/** Callers of every kind: anonymous, all rights, a pupil in two groups, a corrector in one. */
function subjects(): RightsSubject[] {
  const person = (index: number, permissions: Permission[], groups: number[]): RightsSubject => {
    const groupSet = new Set(groups.map((i) => groupOids[i]!));
    return {
      viewer: {
        kind: 'person',
        person: {
          oid: personOids[index]!,
          pid: `ws/${index}`,
          nom: '',
          prenom: '',
          roles: [],
          groupOids: groupSet,
        },
        allRights: false,
        permissions: new Set(permissions),
        labBaseId: null,
      },
      groupOids: groupSet,
    };
  };
  return [
    { viewer: anonymousViewer, groupOids: new Set() },
    { viewer: { ...anonymousViewer, kind: 'token', allRights: true }, groupOids: new Set() },
    person(1, ['read'], [0, 2]),
    person(3, ['read', 'correction'], [3]),
  ];
}

async function sqlOids(where: Prisma.ResourceWhereInput, orderColumn: string, order: 'asc' | 'desc') {
  const documents = await loadPage({ where, orderColumn, order, start: 0, nb: 1000 }, BASE_ID, {});
  return documents.map((document) => document.oid);
}

/** Every page after a cursor, walked from the start as a Relay client would. */
async function cursorWalk(where: Prisma.ResourceWhereInput, orderColumn: string, order: 'asc' | 'desc') {
  const seen: number[] = [];
  for (let after: number | undefined; ; ) {
    const page = await loadPageAfter({ where, orderColumn, order, after, limit: 7 }, BASE_ID, {});
    seen.push(...page.map((document) => document.oid));
    if (page.length < 7) return seen;
    after = page.at(-1)!.oid;
  }
}

const ORDERABLE = Object.entries(INDEXES).flatMap(([, definition]) => definition.orderBy ?? []);

describe('list conditions in SQL', () => {
  it('select what Prisma selects for every index, with values and without', async () => {
    let cases = 0;
    let nonEmpty = 0;
    for (const [index, values] of Object.entries(SAMPLES)) {
      for (const chosen of [null, [], values.slice(0, 1), values]) {
        const where = await filterCondition(context, index, chosen);
        const expected = await prismaOids(where, 'oid', 'asc');
        expect(await sqlOids(where, 'oid', 'asc'), `${index} ${JSON.stringify(chosen)}`).toEqual(expected);
        cases += 1;
        if (expected.length > 0) nonEmpty += 1;
      }
    }
    // The corpus gives most filters something to select: equal empty answers prove little.
    expect(nonEmpty / cases).toBeGreaterThan(0.6);
  });

  it('select what Prisma selects for every kind of caller, reading and searching', async () => {
    for (const subject of subjects()) {
      const searchable = searchableWhere(subject.viewer);
      for (const where of [
        readableWhere(subject),
        searchable,
        { AND: [readableWhere(subject), searchable] },
      ]) {
        const expected = await prismaOids(where, 'oid', 'asc');
        expect(expected.length).toBeGreaterThan(0);
        expect(await sqlOids(where, 'oid', 'asc')).toEqual(expected);
        expect(await countResources(where)).toBe(expected.length);
      }
    }
    // The corpus holds resources that are not indexable, some of them a caller's own.
    expect(await db.resource.count({ where: { indexable: false } })).toBeGreaterThan(0);
  });

  it('agree on combinations of filters, callers, orders and full-text words (property)', async () => {
    const indexes = Object.keys(SAMPLES);
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.constantFrom(...indexes), { maxLength: 3 }),
        fc.nat(),
        fc.constantFrom(...subjects().keys()),
        fc.constantFrom(...ORDERABLE),
        fc.constantFrom<'asc' | 'desc'>('asc', 'desc'),
        fc.subarray(QUERIES, { maxLength: 2 }),
        async (chosen, seed, subjectIndex, orderColumn, order, queries) => {
          const conditions: Prisma.ResourceWhereInput[] = [];
          for (const [i, index] of chosen.entries()) {
            const samples = SAMPLES[index]!;
            const pick = (seed >> i) % 3 === 0 ? null : samples.filter((_, j) => (seed >> (i + j)) % 2 === 0);
            conditions.push(await filterCondition(context, index, pick));
          }
          const subject = subjects()[subjectIndex]!;
          conditions.push(readableWhere(subject), searchableWhere(subject.viewer));
          const terms = searchTerms(queries.join(' '));
          const filters = { AND: [...conditions] };
          conditions.push(...terms.map(termCondition));
          const where = { AND: conditions };
          expect(await sqlOids(where, orderColumn, order)).toEqual(
            await prismaOids(where, orderColumn, order),
          );
          expect(await countResources(where)).toBe(await db.resource.count({ where }));
          if (terms.length > 0) {
            // Ranked pages: the statement ranks as the reference scoring of the rows Prisma reads.
            const start = seed % 3;
            expect(await rankedOids(terms, filters, start, 7)).toEqual(
              await rankedOidsByPrisma(terms, filters, start, 7),
            );
          }
        },
      ),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 60), seed: Number(process.env.FUZZ_SEED ?? 20261123) },
    );
  });

  it('pages by start and nb like Prisma, ties broken by oid', async () => {
    const where = readableWhere(subjects()[1]!);
    const all = await prismaOids(where, 'type', 'desc');
    const documents = await loadPage(
      { where, orderColumn: 'type', order: 'desc', start: 7, nb: 9 },
      BASE_ID,
      {},
    );
    expect(documents.map((d) => d.oid)).toEqual(all.slice(7, 16));
  });

  it('walk pages after a cursor in every order, NULLs where each database puts them, each row once', async () => {
    const where = readableWhere(subjects()[1]!);
    for (const orderColumn of ORDERABLE) {
      for (const order of ['asc', 'desc'] as const) {
        expect(await cursorWalk(where, orderColumn, order), `${orderColumn} ${order}`).toEqual(
          await prismaOids(where, orderColumn, order),
        );
      }
    }
  });

  it('give an empty page after a cursor that names no resource, unless ordered by oid', async () => {
    const where = readableWhere(subjects()[1]!);
    const page = (orderColumn: string) =>
      loadPageAfter({ where, orderColumn, order: 'asc', after: 999_999, limit: 5 }, BASE_ID, {});
    expect(await page('titre')).toEqual([]);
    expect(await page('oid')).toEqual([]);
    const all = await prismaOids(where, 'oid', 'asc');
    const beforeFirst = await loadPageAfter(
      { where, orderColumn: 'oid', order: 'asc', after: all[0]! - 1, limit: 5 },
      BASE_ID,
      {},
    );
    expect(beforeFirst.map((d) => d.oid)).toEqual(all.slice(0, 5));
  });

  it('refuse a form filters and rights never write: a programming error, not an empty or wrong list', () => {
    expect(() => whereSql(sql(), { titre: { contains: 'a' } })).toThrow(UntranslatableCondition);
    expect(() => whereSql(sql(), { archives: { some: {} } } as Prisma.ResourceWhereInput)).toThrow(
      UntranslatableCondition,
    );
    expect(() => whereSql(sql(), { authors: { every: {} } })).toThrow(UntranslatableCondition);
  });

  it('refuse to order by anything but a column of Resource', async () => {
    await expect(
      loadPage(
        { where: {}, orderColumn: 'oid; DROP TABLE "Resource"', order: 'asc', start: 0, nb: 1 },
        BASE_ID,
        {},
      ),
    ).rejects.toThrow(UntranslatableCondition);
    expect(await db.resource.count()).toBe(oids.length);
  });
});
