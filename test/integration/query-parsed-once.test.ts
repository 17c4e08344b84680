/**
 * A request's query string is parsed once. Express 5's `req.query` is a getter that parses it again
 * on every read: a REST read had it parsed twice (the hostile-input check, then the route), a
 * GraphQL GET four times.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseQueryString } from '../../src/http/query-string.ts';
import { API_TOKEN, startApp, type TestApp } from '../support/app.ts';
import { createResource } from '../support/resources.ts';

let app: TestApp;
let oid: number;
const parsed: string[] = [];

beforeAll(async () => {
  app = await startApp();
  oid = await createResource(app, { titre: 'Parsed once', type: 'em' });
  // The application's parser, counted: Express compiles the setting into the parser it calls.
  app.app.set('query parser', (query: string) => {
    parsed.push(query);
    return parseQueryString(query);
  });
});

afterAll(async () => {
  await app.close();
});

describe('the query string of a request', () => {
  it('is parsed once by a REST read, which still sees it', async () => {
    parsed.length = 0;
    const answer = await app.client().get(`/api/ressource/${oid}?format=ref`).set('X-ApiToken', API_TOKEN);
    expect(answer.status).toBe(200);
    // The route read the parsed query: `format=ref` answers a Ref (no oid, an `aliasOf` rid).
    expect(answer.body).toMatchObject({ success: true, aliasOf: expect.stringMatching(/\/\d+$/) });
    expect(answer.body.oid).toBeUndefined();
    expect(parsed).toEqual(['format=ref']);
  });

  it('is parsed once by a GraphQL GET', async () => {
    parsed.length = 0;
    const query = encodeURIComponent('{ __typename }');
    const answer = await app.client().get(`/graphql?query=${query}`).set('Accept', 'application/json');
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ data: { __typename: 'Query' } });
    expect(parsed).toEqual([`query=${query}`]);
  });
});
