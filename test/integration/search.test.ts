/**
 * Full-text search (src/modules/lists/fulltext.ts) on one corpus of small French resources, through
 * REST (`/api/liste?fulltext=`) and GraphQL (`searchResources`): prefixes, accents and case,
 * plurals and stems, ranking, no match. The expected orders are the same on SQLite and PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { db } from '../../src/db/client.ts';
import {
  rebuildStaleSearchIndex,
  SEARCH_INDEX_SETTING,
  SEARCH_INDEX_VERSION,
} from '../../src/modules/lists/search-index.ts';
import { wordRows } from '../../src/modules/resources/resources.repository.ts';
import { WORD_KINDS } from '../../src/read-model/ranked-search.ts';
import { tokenHeaders } from '../support/actors.ts';
import { startApp, type TestApp } from '../support/app.ts';
import { graphql } from '../support/graphql.ts';
import { createResource } from '../support/resources.ts';

/** [titre, resume, description]; named by what the tests look for. */
const CORPUS = {
  fractions: ['Les fractions', 'Introduction aux fractions', ''],
  fraction: ['Fraction irréductible', '', ''],
  fractionnement: ['Le fractionnement des nombres', '', ''],
  calcul: ['Calcul mental', '', 'Additionner des fractions simples'],
  decimaux: ['Nombres décimaux', 'Écriture décimale d’une fraction', ''],
  geometrie: ['Géométrie plane', 'Angles et triangles', ''],
  angle: ['Un angle droit', '', 'géométrie'],
  eleve: ['Élève et leçon', 'Cahier de l’élève', ''],
  francais: ['Français : la conjugaison', 'Verbes du premier groupe', ''],
  chevaux: ['Les chevaux', 'Vocabulaire', ''],
  cheval: ['Le cheval de Troie', '', ''],
  fracas: ['Fracas et tonnerre', '', ''],
  afrique: ['Afrique', 'Géographie du continent', ''],
  trigonometrie: ['Trigonométrie', '', 'Angle et cosinus'],
  probabilites: ['Probabilités', 'Lancer de dés', ''],
} as const;
type Name = keyof typeof CORPUS;

let app: TestApp;
const origine = `search${Math.random().toString(36).slice(2, 7)}`;
const oids = {} as Record<Name, number>;
const nameOf = (oid: number) => (Object.keys(oids) as Name[]).find((name) => oids[name] === oid);

beforeAll(async () => {
  app = await startApp();
  for (const [i, [name, [titre, resume, description]]] of Object.entries(CORPUS).entries()) {
    oids[name as Name] = await createResource(app, {
      origine,
      idOrigine: String(i),
      titre,
      resume,
      description,
    });
  }
});

afterAll(async () => {
  await app.close();
});

/** The names of the resources REST lists for `fulltext`, in order, and the total. */
async function rest(fulltext: string, extra: Record<string, unknown> = {}) {
  const response = await app
    .client()
    .get('/api/liste')
    .query({ origine, fulltext, format: 'light', ...extra });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return {
    names: response.body.liste.map((item: { oid: number }) => nameOf(item.oid)) as Name[],
    total: response.body.total as number,
  };
}

/** The same through GraphQL, as an API token (the anonymous REST caller sees these public resources too). */
async function gql(fulltext: string) {
  const response = await graphql(
    app.client(),
    `query ($f: [ResourceFilter!]) { searchResources(filters: $f) { ... on ResourcePage { total items { oid } } } }`,
    {
      f: [
        { index: 'origine', values: [origine] },
        { index: 'fulltext', values: [fulltext] },
      ],
    },
    tokenHeaders,
  );
  expect(response.errors).toBeUndefined();
  const page = response.data!.searchResources;
  return { names: page.items.map((item: { oid: number }) => nameOf(item.oid)), total: page.total };
}

/** Both transports give `expected`, in this order, with the matching total. */
async function expectSearch(fulltext: string, expected: Name[]) {
  const viaRest = await rest(fulltext);
  expect(viaRest.names, `REST ${fulltext}`).toEqual(expected);
  expect(viaRest.total).toBe(expected.length);
  expect(await gql(fulltext), `GraphQL ${fulltext}`).toEqual(viaRest);
}

describe('full-text search', () => {
  it('matches prefixes of three letters or more while typing, never inside a word', async () => {
    // "frac" is also the stem of "fracas": a stem match outranks the prefix matches.
    await expectSearch('frac', ['fracas', 'fractions', 'fraction', 'fractionnement', 'decimaux', 'calcul']);
    await expectSearch('fra', [
      'fractions',
      'fraction',
      'fractionnement',
      'francais',
      'fracas',
      'decimaux',
      'calcul',
    ]);
    await expectSearch('AFR', ['afrique']);
    await expectSearch('trigo', ['trigonometrie']);
    // Two letters match whole words (or their stem) only.
    await expectSearch('an', []);
  });

  it('ignores accents and case, on either side', async () => {
    for (const query of ['géométrie', 'GEOMETRIE', 'Géométrie', 'geometrie']) {
      await expectSearch(query, ['geometrie', 'angle']);
    }
    for (const query of ['eleve', 'ÉLÈVE', 'leçon', 'LECON']) await expectSearch(query, ['eleve']);
    for (const query of ['francais', 'FRANÇAIS', 'Français']) await expectSearch(query, ['francais']);
    await expectSearch('probabilites', ['probabilites']);
    for (const query of ['IRRÉDUCTIBLE', 'irreductible']) await expectSearch(query, ['fraction']);
  });

  it('meets plurals and derived forms through French stems', async () => {
    await expectSearch('cheval', ['cheval', 'chevaux']);
    await expectSearch('chevaux', ['chevaux', 'cheval']);
    await expectSearch('angles', ['geometrie', 'angle', 'trigonometrie']);
    await expectSearch('décimal', ['decimaux']);
    // fractions, fraction and fractionnement share the stem "fraction"; fracas does not.
    await expectSearch('fractionnement', ['fractionnement', 'fractions', 'fraction', 'decimaux', 'calcul']);
    await expectSearch('fractionner', ['fractions', 'fraction', 'fractionnement', 'decimaux', 'calcul']);
  });

  it('ranks exact words before stems before prefixes, titre before resume before description, then by oid', async () => {
    // fraction: exact in a titre (4 × 100), exact in a resume (2 × 100), stem in titre + resume
    // (6 × 10), stem in a titre (4 × 10), stem in a description (1 × 10).
    await expectSearch('fraction', ['fraction', 'decimaux', 'fractions', 'fractionnement', 'calcul']);
    // angle: exact in a titre, exact in a description, stem (angles) in a resume.
    await expectSearch('angle', ['angle', 'trigonometrie', 'geometrie']);
    // Every word must match; scores add up.
    await expectSearch('frac deci', ['decimaux']);
    await expectSearch('fractions décimales', ['decimaux']);
    await expectSearch('angle geometrie', ['angle', 'geometrie']);
  });

  it('finds nothing for unrelated words', async () => {
    await expectSearch('ornithorynque', []);
    await expectSearch('fractale', []);
    await expectSearch('fraction ornithorynque', []);
  });

  it('refuses a query of more distinct words than a ranking statement takes, naming the limit', async () => {
    const words = Array.from({ length: 33 }, (_, i) => `mot${i}`);
    const refused = await app
      .client()
      .get('/api/liste')
      .query({ fulltext: words.join(' ') });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ success: false, error: 'fulltext : au plus 32 mots' });
    // Repeated words count once.
    expect((await rest([...words.slice(0, 32), ...words.slice(0, 32)].join(' '))).total).toBe(0);
  });

  it('pages a ranked list without gaps or overlaps, and orders by an index when asked', async () => {
    const all = (await rest('frac')).names;
    const pages = [];
    for (let start = 0; start < all.length; start += 2) {
      const page = await rest('frac', { start, nb: 2 });
      expect(page.total).toBe(all.length);
      pages.push(...page.names);
    }
    expect(pages).toEqual(all);
    const byOid = await rest('frac', { orderBy: 'oid', order: 'desc' });
    expect(byOid.names).toEqual([...all].sort((a, b) => oids[b] - oids[a]));
  });
});

describe('search index rebuild', () => {
  it('rewrites the rows of every stored resource when the recorded version differs, once', async () => {
    const expected = await db.resourceWord.findMany({
      orderBy: [{ kind: 'asc' }, { word: 'asc' }, { resourceOid: 'asc' }],
    });
    // As an older index: other rows (or none) and another version.
    await db.resourceWord.deleteMany({ where: { resourceOid: { in: [oids.fraction, oids.cheval] } } });
    await db.resourceWord.updateMany({
      where: { resourceOid: oids.fracas, kind: WORD_KINDS.stem, word: 'frac' },
      data: { word: 'fracas' },
    });
    await db.serviceSetting.upsert({
      where: { key: SEARCH_INDEX_SETTING },
      create: { key: SEARCH_INDEX_SETTING, value: '1' },
      update: { value: '1' },
    });
    await expectSearch('cheval', ['chevaux']);
    const logged: string[] = [];
    const logger = { info: (_fields: object, message: string) => logged.push(message) };
    const total = await db.resource.count();
    // Batches of 4: several transactions, the last one partial.
    expect(await rebuildStaleSearchIndex(logger as never, 4)).toBe(total);
    expect(logged).toEqual(['rebuilding the search index', 'search index rebuilt']);
    expect(
      await db.resourceWord.findMany({ orderBy: [{ kind: 'asc' }, { word: 'asc' }, { resourceOid: 'asc' }] }),
    ).toEqual(expected);
    expect((await db.serviceSetting.findUnique({ where: { key: SEARCH_INDEX_SETTING } }))?.value).toBe(
      SEARCH_INDEX_VERSION,
    );
    await expectSearch('cheval', ['cheval', 'chevaux']);
    // Up to date: nothing read but the version.
    expect(await rebuildStaleSearchIndex(logger as never, 4)).toBeUndefined();
    expect(logged).toHaveLength(2);
  });

  it('indexes each word and each stem once per resource, with the weights of the fields it is in', () => {
    const rows = wordRows(7, { titre: 'Les Fractions', resume: 'la fraction', description: 'fractions' });
    const key = (row: { kind: number; word: string }) => `${row.kind}:${row.word}`;
    expect(Object.fromEntries(rows.map((row) => [key(row), row.weight]))).toEqual({
      '0:les': 4,
      '0:fractions': 5,
      '0:la': 2,
      '0:fraction': 2,
      '1:le': 4,
      '1:fraction': 7,
      '1:la': 2,
    });
    expect(rows.every((row) => row.resourceOid === 7)).toBe(true);
  });
});
