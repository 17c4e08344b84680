/**
 * GraphQL limits without holes: introspection obeys the depth and cost limits, no error message
 * suggests names, every content type on /graphql has the body limit, and introspection and
 * GraphiQL can each be turned off.
 */
import { getIntrospectionQuery } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../support/app.ts';
import { graphql } from '../support/graphql.ts';

let app: TestApp;

beforeAll(async () => {
  app = await startApp({ http: { bodyLimit: '2kb' } });
});

afterAll(async () => {
  await app.close();
});

describe('introspection', () => {
  it('obeys a depth limit, however it nests', async () => {
    // graphql-js itself refuses `fields { type { fields … } } }` cycles, and armor's cost limit sees
    // `__type`; nothing stopped the rest under `__schema`.
    const ofTypes = `${'ofType { '.repeat(30)}name${' }'.repeat(30)}`;
    for (const query of [
      `{ __type(name: "Query") { ${ofTypes} } }`,
      `{ __schema { types { fields { type { ${ofTypes} } } } } }`,
      `{ __schema { types { ...deep } } } fragment deep on __Type { fields { args { type { ${ofTypes} } } } }`,
    ]) {
      const response = await graphql(app.client(), query);
      expect(response.data, query).toBeUndefined();
      expect(response.errors?.[0]?.message, query).toMatch(
        /Introspection depth limit of 16 exceeded|Cost limit/,
      );
    }
    let cycle = 'name';
    for (let i = 0; i < 10; i++) cycle = `fields { type { ${cycle} } }`;
    const cyclic = await graphql(app.client(), `{ __schema { types { ${cycle} } } }`);
    expect(cyclic.errors?.[0]?.message).toMatch(/introspection depth/i);
  });

  it('still answers the query GraphiQL sends, within the default limits', async () => {
    const wide = await startApp();
    try {
      const response = await graphql(
        wide.client(),
        getIntrospectionQuery({ descriptions: true, inputValueDeprecation: true }),
      );
      expect(response.errors).toBeUndefined();
      expect(response.data?.__schema.queryType.name).toBe('Query');
    } finally {
      await wide.close();
    }
  });

  it('can be turned off', async () => {
    const closed = await startApp({ graphql: { introspection: false } });
    try {
      const response = await graphql(closed.client(), '{ __schema { queryType { name } } }');
      expect(response.data).toBeUndefined();
      expect(response.errors?.[0]?.message).toMatch(/introspection/i);
      expect((await graphql(closed.client(), '{ viewer { kind } }')).data?.viewer).toEqual({
        kind: 'anonymous',
      });
    } finally {
      await closed.close();
    }
  });
});

describe('error messages', () => {
  it.each([
    ['a misspelt field', '{ viewer { kin } }', {}],
    ['a misspelt argument', '{ group(oi: 1) { __typename } }', {}],
    ['a misspelt type', 'query ($f: [ResourceFiltre!]) { searchResources(filters: $f) { __typename } }', {}],
    ['a misspelt enum value in a variable', 'query ($c: ErrorCode) { viewer { kind } }', { c: 'FORBIDEN' }],
    [
      'a misspelt input field in a variable',
      'query ($f: [ResourceFilter!]) { searchResources(filters: $f) { __typename } }',
      { f: [{ indx: 'type' }] },
    ],
  ])('never suggest names (%s)', async (_label, query, variables) => {
    const response = await app.client().post('/graphql').send({ query, variables });
    expect(response.body.errors?.length, response.text).toBeGreaterThan(0);
    expect(response.text).not.toMatch(/Did you mean/i);
  });
});

describe('body limits', () => {
  const big = 'x'.repeat(5000);

  it.each([
    ['application/json', JSON.stringify({ query: `{ viewer { kind } } # ${big}` })],
    ['application/graphql', `{ viewer { kind } } # ${big}`],
    ['application/x-www-form-urlencoded', `query=${encodeURIComponent(`{ viewer { kind } } # ${big}`)}`],
    ['text/plain', JSON.stringify({ query: `{ viewer { kind } } # ${big}` })],
  ])('apply to %s bodies on /graphql (413)', async (type, body) => {
    const response = await app.client().post('/graphql').set('Content-Type', type).send(body);
    expect(response.status).toBe(413);
  });

  it('apply to multipart bodies on /graphql (413)', async () => {
    const response = await app
      .client()
      .post('/graphql')
      .field('operations', JSON.stringify({ query: '{ viewer { kind } }' }))
      .field('map', '{}')
      .attach('0', Buffer.from(big), 'big.txt');
    expect(response.status).toBe(413);
  });

  it('still let small bodies of every kind through', async () => {
    const json = await app.client().post('/graphql').send({ query: '{ viewer { kind } }' });
    expect(json.body.data.viewer.kind).toBe('anonymous');
    const document = await app
      .client()
      .post('/graphql')
      .set('Content-Type', 'application/graphql')
      .send('{ viewer { kind } }');
    expect(document.body.data?.viewer.kind, document.text).toBe('anonymous');
  });
});

describe('GraphiQL', () => {
  it('can be turned off', async () => {
    const bare = await startApp({ graphql: { graphiql: false } });
    try {
      const response = await bare.client().get('/graphql').set('Accept', 'text/html');
      expect(response.text).not.toMatch(/GraphiQL/);
    } finally {
      await bare.close();
    }
  });
});
