/**
 * List arguments at the edges of their types' domains (issue 24, observed failures 1 and 2): dates
 * at and beyond what JavaScript and the databases hold, and requests with thousands of filters.
 * Each ends in a result or a typed invalid-input error (REST 400), having run no SQL when refused.
 */
import { describe, expect } from 'vitest';
import { onStatement } from '../../src/db/client.ts';
import { appTest } from '../support/fixtures.ts';
import { errorCode, type GraphQLResponse, graphql } from '../support/graphql.ts';

const test = appTest.override({ labId: 'labD' });

const SEARCH = `query ($f: [ResourceFilter!], $p: [IndexParameterInput!]) {
  searchResources(filters: $f, indexParameters: $p) {
    __typename ... on ResourcePage { total } ... on Error { code message }
  }
}`;

/** The SQL statements a call sends. */
async function statementsOf(call: () => Promise<unknown>): Promise<number> {
  let count = 0;
  const stop = onStatement(() => {
    count += 1;
  });
  try {
    await call();
  } finally {
    stop();
  }
  return count;
}

describe('dates beyond the range a database stores', () => {
  // 275760-09-13 is JavaScript's last day; 8.64e15 ms its last instant; 10000-01-01 the first day
  // an ISO text needs a sign for; 0000-12-31 the day before the first year PostgreSQL takes.
  const outOfRange = ['275760-09-13', 8_640_000_000_000_000, '+010000-01-01', -8_640_000_000_000_000];

  test.for(outOfRange)('REST: dateCreation=%s is refused with 400', async (value, { app }) => {
    const response = await app
      .client()
      .get('/api/liste')
      .query({ dateCreation: String(value) });
    expect(response.status).toBe(400);
    expect(response.body.success).toBe(false);
    expect(response.body.error).toMatch(/dateCreation/);
  });

  test.for(outOfRange)('REST: filters with dateMiseAJour %s is refused with 400', async (value, { app }) => {
    const filters = JSON.stringify([{ index: 'dateMiseAJour', values: [value] }]);
    const response = await app.client().get('/api/liste').query({ filters });
    expect(response.status).toBe(400);
    expect(response.body.success).toBe(false);
  });

  test.for(outOfRange)('GraphQL: dateMiseAJour %s is a typed invalid-input error', async (value, { app }) => {
    const response = await graphql(app.client(), SEARCH, {
      f: [{ index: 'dateMiseAJour', values: [value] }],
    });
    expect(response.errors).toBeUndefined();
    expect(errorCode(response, 'searchResources')).toBe('INVALID_INPUT');
  });

  test.for(['9999-12-31', '0001-01-01', '9999-12-31T23:59:59.999Z', '0001-01-01T00:00:00.000Z'])(
    'the first and last days a database stores are valid values: %s',
    async (value, { app }) => {
      const rest = await app.client().get('/api/liste').query({ dateCreation: value });
      expect(rest.status).toBe(200);
      expect(rest.body.total).toBe(0);
      const response = await graphql(app.client(), SEARCH, {
        f: [{ index: 'dateCreation', values: [value] }],
      });
      expect(response.data?.searchResources).toEqual({ __typename: 'ResourcePage', total: 0 });
    },
  );
});

describe('thousands of filters', () => {
  const many = (index: string, value: (i: number) => string) =>
    Array.from({ length: 10_000 }, (_, i) => ({ index, values: [value(i)] }));

  test.for([
    ['oid', (i: number) => String(i + 1)],
    ['titre', (i: number) => `titre ${i}`],
    ['groupes', (i: number) => `groupe ${i}`],
  ] as const)('GraphQL: 10,000 %s filters are refused before any SQL', async ([index, value], { app }) => {
    let response: GraphQLResponse | undefined;
    const statements = await statementsOf(async () => {
      response = await graphql(app.client(), SEARCH, { f: many(index, value) });
    });
    expect(response!.errors).toBeUndefined();
    expect(errorCode(response!, 'searchResources')).toBe('INVALID_INPUT');
    expect(response!.data?.searchResources).toMatchObject({ message: expect.stringMatching(/filtres/) });
    expect(statements).toBe(0);
  });

  test('REST: more filters than the limit are refused with 400 before any SQL', async ({ app }) => {
    let status = 0;
    let body: Record<string, unknown> = {};
    // As many as a URL holds (a GET's line is limited to 16 KiB).
    const filters = JSON.stringify(many('groupes', (i) => `g${i}`).slice(0, 200));
    const statements = await statementsOf(async () => {
      const response = await app.client().get('/api/liste').query({ filters });
      status = response.status;
      body = response.body;
    });
    expect(status).toBe(400);
    expect(body.success).toBe(false);
    expect(statements).toBe(0);
  });

  test('as many filters as the limit allows still answer', async ({ app }) => {
    const limit = app.config.input.maxFilters;
    const filters = Array.from({ length: limit }, (_, i) => ({
      index: i % 2 === 0 ? 'groupes' : 'auteurs',
      values: [`n${i}`],
    }));
    const response = await graphql(app.client(), SEARCH, { f: filters });
    expect(response.data?.searchResources).toEqual({ __typename: 'ResourcePage', total: 0 });
  });

  test('the names of every filter are looked up together: one statement per kind of name', async ({
    app,
  }) => {
    const filters = Array.from({ length: 20 }, (_, i) => ({
      index: ['groupes', 'groupesAuteurs', 'auteurs', 'contributeurs'][i % 4]!,
      values: [`nom ${i}`],
    }));
    let response: GraphQLResponse | undefined;
    const statements = await statementsOf(async () => {
      response = await graphql(app.client(), SEARCH, { f: filters });
    });
    expect(response!.data?.searchResources).toEqual({ __typename: 'ResourcePage', total: 0 });
    // Persons, groups, then the page and its total (the total may be kept already: at most 4).
    expect(statements).toBeLessThanOrEqual(4);
  });
});
