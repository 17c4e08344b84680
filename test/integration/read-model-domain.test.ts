/**
 * Properties of the read model's inputs over the whole domain each argument's type admits, not
 * only ordinary values: dates at and beyond what JavaScript and the databases hold, integers up to
 * and beyond 2^53, empty and 10,000-entry lists, NUL, very long texts, any Unicode (lone
 * surrogates included). Every case of a list or a read ends in a result or a typed invalid-input
 * error, never an internal error, with a bounded number of statements; every resource a save
 * accepts reads back, through the read model's statement, as Prisma reads it.
 *
 * Reproducible: FUZZ_SEED picks the seed, FUZZ_RUNS the number of cases per property.
 */
import fc from 'fast-check';
import { describe, expect } from 'vitest';
import { onStatement } from '../../src/db/client.ts';
import { INDEXES } from '../../src/modules/lists/filters.ts';
import { RELATION_TYPES } from '../../src/modules/resources/vocabulary.ts';
import { ALL_PARTS, loadDocument } from '../../src/read-model/documents.ts';
import { tokenHeaders } from '../support/actors.ts';
import { appTest } from '../support/fixtures.ts';
import type { GraphQLResponse } from '../support/graphql.ts';
import { prismaDocument } from '../support/prisma-oracles.ts';

const test = appTest.override({ labId: 'labP', appOptions: { responseCache: { enabled: false } } });

const SEED = Number(process.env.FUZZ_SEED ?? 20_261_127);
const RUNS = Number(process.env.FUZZ_RUNS ?? 40);
const TIMEOUT = { timeout: 60_000 + RUNS * 500 };

// ---------------------------------------------------------------------------------------------
// The domain of each kind of value

const LIMIT_MS = 8_640_000_000_000_000;
/** Instants and their texts: JavaScript's limits, the databases' (years 1 and 9999), either side. */
const dates = () =>
  fc.oneof(
    fc.constantFrom(
      LIMIT_MS,
      -LIMIT_MS,
      LIMIT_MS + 1,
      '275760-09-13',
      '+275760-09-13T00:00:00.000Z',
      '-271821-04-20',
      '+010000-01-01',
      '9999-12-31',
      '9999-12-31T23:59:59.999Z',
      '10000-01-01',
      '0001-01-01',
      '0000-12-31',
      '1970-01-01T00:00:00.000+14:00',
      '2024-02-30',
      '2024-13-01',
      'NaN',
      '',
    ),
    fc
      .date({ noInvalidDate: false })
      .map((date) => (Number.isNaN(date.getTime()) ? 'Invalid' : date.toISOString())),
    fc.integer({ min: -LIMIT_MS, max: LIMIT_MS }).map((ms) => ms),
  );
/** Integers at every edge: 32-bit, 2^53 and beyond, negative zero, fractions. */
const integers = () =>
  fc.oneof(
    fc.constantFrom(
      0,
      -0,
      1,
      -1,
      2_147_483_647,
      2_147_483_648,
      -2_147_483_649,
      2 ** 53 - 1,
      2 ** 53,
      2 ** 53 + 2,
      -(2 ** 53),
      1e21,
      0.5,
    ),
    fc.integer(),
    fc.maxSafeInteger(),
    fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map((n) => n.toString()),
  );
/** Texts: any Unicode (lone surrogates too), NUL, long, and ones that name things. */
const texts = () =>
  fc.oneof(
    fc.string({ unit: 'binary', maxLength: 40 }),
    fc.string({ unit: 'grapheme', maxLength: 20 }),
    fc.constantFrom(
      '',
      '\u0000',
      'a\u0000',
      '\uD800',
      '\uDFFF\uD800',
      '%',
      '|',
      'a|b%',
      '6e',
      'url',
      'repo/1',
    ),
    fc.constantFrom('x'.repeat(100_000), 'é'.repeat(50_000), '😀'.repeat(20_000)),
  );
const values = () =>
  fc.oneof(
    { weight: 3, arbitrary: dates() },
    { weight: 3, arbitrary: integers() },
    { weight: 3, arbitrary: texts() },
    { weight: 1, arbitrary: fc.boolean() },
    { weight: 1, arbitrary: fc.constantFrom(null, [], {}, [1], { in: [1] }) },
  );
/** Lists from empty to 10,000 entries: short ones of any items, long ones repeating one. */
const listOf = <T>(item: fc.Arbitrary<T>) =>
  fc.oneof(
    { weight: 4, arbitrary: fc.array(item, { maxLength: 4 }) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.constantFrom(50, 51, 1000, 1001, 10_000), item)
        .map(([n, value]) => Array.from({ length: n }, () => value)),
    },
  );
const indexes = () =>
  fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...Object.keys(INDEXES), 'fulltext') },
    { weight: 1, arbitrary: texts() },
  );
const smallList = <T>(item: fc.Arbitrary<T>) => fc.array(item, { maxLength: 4 });
/** Filters: a few, each with up to 10,000 values; or up to 10,000, each with a few. */
const filters = () =>
  fc.oneof(
    smallList(
      fc.record(
        { index: indexes(), values: fc.option(listOf(values()), { nil: null }) },
        { requiredKeys: ['index'] },
      ),
    ),
    listOf(
      fc.record(
        { index: indexes(), values: fc.option(smallList(values()), { nil: null }) },
        { requiredKeys: ['index'] },
      ),
    ),
  );

/** Statements a call sends. */
async function counted<T>(call: () => Promise<T>): Promise<{ result: T; statements: number }> {
  let statements = 0;
  const stop = onStatement(() => {
    statements += 1;
  });
  try {
    return { result: await call(), statements };
  } finally {
    stop();
  }
}

/**
 * No internal error: data, or request errors (a variable of the wrong type, refused input), none
 * of them the masked internal error.
 */
function expectTyped(response: GraphQLResponse, label: string) {
  for (const error of response.errors ?? []) {
    expect(error.message, label).not.toMatch(/^Unexpected error/);
    expect(error.extensions?.code, label).not.toBe('INTERNAL_SERVER_ERROR');
  }
}

const SEARCH = `query ($f: [ResourceFilter!], $p: [IndexParameterInput!], $o: String, $d: String, $s: Int, $n: Int) {
  searchResources(filters: $f, indexParameters: $p, orderBy: $o, order: $d, start: $s, nb: $n) {
    __typename ... on ResourcePage { total items { oid titre droits } } ... on Error { code message }
  }
}`;

describe('lists over the whole domain of their arguments', () => {
  test(
    'searchResources: a page or a typed invalid input, in a bounded number of statements',
    TIMEOUT,
    async ({ app }) => {
      await fc.assert(
        fc.asyncProperty(
          fc.record({
            f: fc.option(filters(), { nil: undefined }),
            p: fc.option(listOf(fc.record({ index: indexes(), values: listOf(texts()) })), {
              nil: undefined,
            }),
            o: fc.option(fc.oneof(indexes(), texts()), { nil: undefined }),
            d: fc.option(fc.constantFrom('asc', 'desc', 'sideways', ''), { nil: undefined }),
            s: fc.option(integers(), { nil: undefined }),
            n: fc.option(integers(), { nil: undefined }),
            token: fc.boolean(),
          }),
          async ({ token, ...variables }) => {
            const { result: response, statements } = await counted(async () => {
              const call = app.client().post('/graphql');
              if (token) call.set(tokenHeaders);
              return call.send({ query: SEARCH, variables });
            });
            const label = `${JSON.stringify(variables).slice(0, 400)} → ${response.text.slice(0, 300)}`;
            expect(response.status, label).toBeLessThan(500);
            expectTyped(response.body, label);
            const result = response.body.data?.searchResources;
            if (result) expect(['ResourcePage', 'InvalidInputError'], label).toContain(result.__typename);
            // Persons and groups named, the page and its total; refused input runs none.
            expect(statements, label).toBeLessThanOrEqual(4);
            if (result?.__typename === 'InvalidInputError') expect(statements, label).toBe(0);
          },
        ),
        { seed: SEED, numRuns: RUNS },
      );
    },
  );

  test('GET /api/liste: 200 or a 400 with its error, never a 5xx', TIMEOUT, async ({ app }) => {
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(
          fc.oneof(
            indexes(),
            fc.constantFrom('filters', 'orderBy', 'order', 'start', 'nb', 'skip', 'limit', 'format'),
          ),
          fc.oneof(
            texts().filter((text) => text.length < 200),
            dates().map(String),
            integers().map(String),
            filters()
              .map((list) => JSON.stringify(list.slice(0, 20)))
              .filter((text) => text.length < 4000),
          ),
          { maxKeys: 5 },
        ),
        async (query) => {
          const request = app.client().get('/api/liste').query(query);
          // Past Node.js's header limit (16 KiB) the request never reaches the service: Node answers
          // 431 and closes, and a client still sending the rest may see the close first (a reset).
          const overLimit = new URLSearchParams(query).toString().length > 16 * 1024;
          const response = await request.catch((error: { code?: string }) => {
            if (overLimit && (error.code === 'ECONNRESET' || error.code === 'EPIPE')) return undefined;
            throw error;
          });
          if (!response) return;
          if (overLimit) expect(response.status).toBe(431);
          const label = `${JSON.stringify(query).slice(0, 400)} → ${response.status} ${response.text.slice(0, 300)}`;
          expect(response.status, label).toBeLessThan(500);
          if (response.status === 400) expect(response.body, label).toMatchObject({ success: false });
          else if (response.status === 200) expect(response.body.success, label).toBe(true);
        },
      ),
      { seed: SEED, numRuns: RUNS },
    );
  });
});

describe('reads over the whole domain of their ids', () => {
  const READS = `query ($oid: Int!, $id: String!, $origine: String!) {
    resource(oid: $oid) { __typename ... on Error { code } }
    resourceById(id: $id) { __typename ... on Error { code } }
    resourceByOrigin(origine: $origine, idOrigine: $id) { __typename ... on Error { code } }
    publicResource(oid: $oid) { __typename ... on Error { code } }
    resourceRid(id: $id) { __typename ... on Error { code } }
  }`;
  test('a resource or a typed error, in at most one statement per field', TIMEOUT, async ({ app }) => {
    await fc.assert(
      fc.asyncProperty(
        integers(),
        texts(),
        fc.oneof(texts(), fc.constantFrom('cle', 'repo')),
        fc.boolean(),
        async (oid, id, origine, token) => {
          const variables = { oid, id, origine };
          const { result: response, statements } = await counted(async () => {
            const call = app.client().post('/graphql');
            if (token) call.set(tokenHeaders);
            return call.send({ query: READS, variables });
          });
          const label = `${JSON.stringify(variables).slice(0, 300)} → ${response.text.slice(0, 300)}`;
          expect(response.status, label).toBeLessThan(500);
          expectTyped(response.body, label);
          expect(statements, label).toBeLessThanOrEqual(5);
        },
      ),
      { seed: SEED, numRuns: RUNS },
    );
  });
});

describe('documents over the whole domain of a resource’s content', () => {
  const SAVE = `mutation ($input: ResourceInput!) {
    saveResource(input: $input) { __typename ... on SaveResourceResult { oid } ... on Error { code message } }
  }`;
  const hasInexactNumber = (value: unknown): boolean =>
    typeof value === 'number'
      ? Math.abs(value) > Number.MAX_SAFE_INTEGER
      : typeof value === 'object' && value !== null && Object.values(value).some(hasInexactNumber);
  /** Valid values at the edges of each field's domain, now and then an invalid one. */
  const mostly = <T>(valid: fc.Arbitrary<T>, invalid: fc.Arbitrary<unknown>) =>
    fc.oneof({ weight: 20, arbitrary: valid }, { weight: 1, arbitrary: invalid });
  const unicode = (maxLength: number) =>
    fc.oneof(
      fc.string({ unit: 'binary', maxLength }).map((text) => text.replaceAll('\u0000', '')),
      fc.string({ unit: 'grapheme', maxLength: Math.min(maxLength, 50) }),
    );
  const longText = () =>
    fc.oneof(
      { weight: 4, arbitrary: unicode(60) },
      {
        weight: 1,
        arbitrary: fc.constantFrom('é'.repeat(200_000), '😀'.repeat(100_000), `${'x'.repeat(5000)} mot`),
      },
    );
  const int32 = () => fc.oneof(fc.integer(), fc.constantFrom(-2_147_483_648, 2_147_483_647, 0));
  const rid = () =>
    fc.oneof(
      fc.constantFrom('repo/1', 'ailleurs/2', `peer/${'9'.repeat(250)}`),
      fc.nat().map((n) => `x/${n + 1}`),
    );
  const content = fc.record(
    {
      titre: mostly(unicode(500), texts()),
      resume: longText(),
      description: longText(),
      commentaires: longText(),
      type: mostly(
        fc.oneof(
          fc.constantFrom('url', 'arbre', 'em', 'sequenceModele'),
          unicode(50).filter((t) => t !== '' && t !== 'error'),
        ),
        texts(),
      ),
      categories: mostly(fc.array(int32(), { maxLength: 50 }), listOf(integers())),
      niveaux: mostly(fc.array(unicode(20), { maxLength: 20 }), listOf(texts())),
      typePedagogiques: mostly(fc.array(int32(), { maxLength: 8 }), listOf(integers())),
      typeDocumentaires: fc.array(int32(), { maxLength: 1000 }),
      langue: mostly(unicode(20).filter(Boolean), texts()),
      restriction: mostly(fc.constantFrom(0, 1, 2, 3), integers()),
      publie: fc.boolean(),
      indexable: fc.boolean(),
      // Numbers JavaScript holds exactly (the input limits refuse the others, as they should).
      parametres: fc.jsonValue({ maxDepth: 3 }).filter((value) => !hasInexactNumber(value)),
      relations: mostly(
        fc.array(
          fc.record({ predicate: fc.constantFrom(...Object.keys(RELATION_TYPES).map(Number)), rid: rid() }),
          { maxLength: 5 },
        ),
        listOf(fc.record({ predicate: integers(), rid: texts() })),
      ),
      aliasOf: mostly(fc.option(rid(), { nil: null }), texts()),
    },
    { requiredKeys: ['titre', 'type'] },
  );

  test(
    'whatever a save accepts reads back through the read model as Prisma reads it',
    TIMEOUT,
    async ({ app }) => {
      let saved = 0;
      await fc.assert(
        fc.asyncProperty(content, async (input) => {
          const response = await app
            .client()
            .post('/graphql')
            .set(tokenHeaders)
            .send({ query: SAVE, variables: { input } });
          const label = `${JSON.stringify(input).slice(0, 400)} → ${response.text.slice(0, 300)}`;
          expect(response.status, label).toBeLessThan(500);
          expectTyped(response.body, label);
          const result = response.body.data?.saveResource;
          if (result?.__typename !== 'SaveResourceResult') return;
          saved += 1;
          const document = await loadDocument({ oid: result.oid }, app.config.baseId, ALL_PARTS);
          const oracle = await prismaDocument({ oid: result.oid }, app.config.baseId);
          expect(document, label).toEqual(oracle);
        }),
        { seed: SEED, numRuns: RUNS },
      );
      // The property says little unless most cases are saves.
      expect(saved).toBeGreaterThan(RUNS / 4);
    },
  );
});
