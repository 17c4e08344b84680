/**
 * `/graphql`'s plain POST path (src/gateway/plain-post.ts) answers exactly as Yoga does: every
 * request below is sent to two instances on the same database, one with the path and one to which
 * a deployment added a Yoga plugin with HTTP-level hooks (so the path is off there and Yoga serves
 * all), and the answers are compared: status, headers (but the date and request id), body byte for
 * byte. Each case also says which path it must take on the first instance.
 */
import { Writable } from 'node:stream';
import type { Plugin } from 'graphql-yoga';
import type { Response, Test } from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schema } from '../../src/gateway/schema.ts';
import { createGraphQLServer } from '../../src/gateway/yoga.ts';
import { createLogger } from '../../src/logging/logger.ts';
import { loadRestOperations } from '../../src/rest/operations.ts';
import { API_TOKEN, startApp, type TestApp } from '../support/app.ts';
import { createResource } from '../support/resources.ts';

/**
 * What a deployment might add (here, counting the requests it sees and the answers it sends):
 * HTTP-level hooks the plain POST path cannot run, so they must turn it off.
 */
const seen = { requests: 0, responses: 0 };
const countingPlugin: Plugin = {
  onRequest() {
    seen.requests++;
  },
  onResponse() {
    seen.responses++;
  },
};

/** A hook of the operation (as a deployment's tracing might add): run on both paths, alike. */
const stampingPlugin: Plugin = {
  onExecutionResult({ result, setResult }) {
    if (result && !(Symbol.asyncIterator in result))
      setResult({ ...result, extensions: { ...result.extensions, stamped: true } });
  },
};

/** The warning lines the instance with the plugin logged. */
const warnings: { msg: string; hooks?: string[] }[] = [];
const warningLog = new Writable({
  write(chunk, _encoding, done) {
    for (const line of String(chunk).split('\n').filter(Boolean)) warnings.push(JSON.parse(line));
    done();
  },
});

const CONFIG = {
  // Low, so that a wrong token is locked out within the test.
  rateLimits: { failuresPerSubject: 4 },
  graphql: { maxAliases: 3, maxDepth: 6, maxDirectives: 4, maxTokens: 400 },
};

let fast: TestApp;
let proper: TestApp;
let oid: number;

beforeAll(async () => {
  fast = await startApp(CONFIG, { graphqlPlugins: [stampingPlugin] });
  proper = await startApp(CONFIG, {
    graphqlPlugins: [stampingPlugin, countingPlugin],
    logger: createLogger('warn', warningLog),
  });
  oid = await createResource(fast, { titre: 'Lue des deux côtés' });
});

afterAll(async () => {
  await fast?.close();
  await proper?.close();
});

type Send = (client: ReturnType<TestApp['client']>) => Test;

/** What must be the same: all but the per-request headers. */
function answer(response: Response) {
  const { date: _date, 'x-request-id': _id, ...headers } = response.headers;
  return { status: response.status, headers, body: response.text };
}

/** Sends the request to both instances; expects the same answer, and the path taken on `fast`. */
// Guards against a hang only: on a busy two-core machine one answer took more than 5 s.
const HANG = 15_000;

async function same(send: Send, path: 'plain' | 'yoga') {
  const before = fast.plainPostsServed();
  const viaFast = answer(await send(fast.client()).timeout(HANG));
  const took = fast.plainPostsServed() > before ? 'plain' : 'yoga';
  const viaYoga = answer(await send(proper.client()).timeout(HANG));
  expect(proper.plainPostsServed()).toBe(0);
  expect(viaFast).toEqual(viaYoga);
  expect(took).toBe(path);
  return viaFast;
}

const post =
  (body: unknown, headers: Record<string, string> = {}): Send =>
  (client) =>
    client
      .post('/graphql')
      .set({ 'Content-Type': 'application/json', ...headers })
      .send(typeof body === 'string' ? body : JSON.stringify(body));

const READ = `query Read($oid: Int!, $full: Boolean!) {
  resource(oid: $oid) { __typename ... on Resource { oid titre publie @include(if: $full) } ... on Error { code message } }
}`;
const PUBLIC =
  'query Public($oid: Int!) { publicResource(oid: $oid) { __typename ... on Resource { oid titre } } }';
const TOKEN = { 'X-ApiToken': API_TOKEN };

describe('the plain POST path answers as Yoga does', () => {
  it('reads: anonymous, token callers, cached public reads, introspection, operation choices', async () => {
    const read = { query: READ, variables: { oid, full: true } };
    const ok = await same(post(read, TOKEN), 'plain');
    expect(JSON.parse(ok.body)).toMatchObject({
      data: { resource: { titre: 'Lue des deux côtés' } },
      extensions: { stamped: true },
    });
    await same(post(read), 'plain');
    await same(post({ ...read, variables: { oid, full: false } }, TOKEN), 'plain');
    await same(post({ ...read, operationName: 'Read' }, TOKEN), 'plain');
    await same(post({ ...read, operationName: null, extensions: null }), 'plain');
    await same(post({ ...read, extensions: { persistedQuery: { version: 1 } } }), 'plain');
    await same(post({ query: READ, variables: { oid: 999_999, full: true } }, TOKEN), 'plain');
    for (let i = 0; i < 3; i++) await same(post({ query: PUBLIC, variables: { oid } }), 'plain');
    await same(post({ query: '{ __typename }', variables: null }), 'plain');
    await same(post({ query: '{ __schema { queryType { name } } }' }), 'plain');
    await same(
      post({ query: '{ __typename }' }, { 'Content-Type': 'application/json; charset=utf-8' }),
      'plain',
    );
    await same(post({ query: '{ __typename }' }, { Accept: '*/*' }), 'plain');
    await same(post({ query: '{ __typename }' }, { Accept: 'application/json' }), 'plain');
    const two = `${READ} query Other { __typename }`;
    await same(post({ query: two, variables: { oid, full: true }, operationName: 'Other' }), 'plain');
  });

  it("errors, answered by Yoga's own code on the path: syntax, validation, variables, limits, operation names", async () => {
    for (let i = 0; i < 2; i++) await same(post({ query: '{ resource(oid: ' }), 'plain');
    await same(post({ query: '{ resourc(oid: 1) { __typename } }' }), 'plain');
    await same(post({ query: '{ nothing }' }), 'plain');
    await same(post({ query: READ, variables: { full: true } }), 'plain');
    await same(post({ query: READ, variables: { oid: 'x', full: true } }), 'plain');
    await same(post({ query: READ, variables: { oid: 2 ** 40, full: true } }), 'plain');
    await same(post({ query: READ }), 'plain');
    const aliases = `{ ${['a', 'b', 'c', 'd', 'e'].map((a) => `${a}: __typename`).join(' ')} }`;
    await same(post({ query: aliases }), 'plain');
    const deep = `{ __schema { types { fields { type { ofType { ofType { ofType { name } } } } } } } }`;
    await same(post({ query: deep }), 'plain');
    await same(post({ query: `{ __typename ${' @skip(if: false)'.repeat(6)} }` }), 'plain');
    await same(post({ query: `{ ${'__typename '.repeat(450)} }` }), 'plain');
    const two = `${READ} query Other { __typename }`;
    await same(post({ query: two, variables: { oid, full: true } }), 'plain');
    await same(post({ query: READ, variables: { oid, full: true }, operationName: 'Nope' }), 'plain');
  });

  it('mutations: refused to the anonymous, run for a token, refused from another site', async () => {
    const remove = 'mutation Remove($oid: Int!) { deleteResource(oid: $oid) { __typename } }';
    await same(post({ query: remove, variables: { oid: 999_998 } }), 'plain');
    await same(post({ query: remove, variables: { oid: 999_998 } }, TOKEN), 'plain');
    const session = { Cookie: 'connect.sid=s%3Aabc.def', Origin: 'https://elsewhere.example' };
    await same(post({ query: remove, variables: { oid: 999_998 } }, session), 'plain');
    await same(post({ query: '{ __typename }' }, session), 'plain');
  });

  it('callers: a wrong token (its warning), then locked out', async () => {
    const wrong = { 'X-ApiToken': 'not-a-token-at-all' };
    const first = await same(post({ query: '{ __typename }' }, wrong), 'plain');
    expect(first.headers.warning).toMatch(/X-ApiToken not recognised/);
    // Each instance counts the failures in the same database: send until both are refused.
    for (let i = 0; i < 4; i++)
      await fast.client().post('/graphql').set(wrong).send({ query: '{ __typename }' });
    const locked = await same(post({ query: '{ __typename }' }, wrong), 'plain');
    expect(locked.body).not.toBe(first.body);
  });

  it('leaves to Yoga what it does not reproduce, and Yoga answers as before', async () => {
    const query = '{ __typename }';
    await same((client) => client.get('/graphql').query({ query }), 'yoga');
    await same((client) => client.get('/graphql').query({ query }).set('Accept', 'text/html'), 'yoga');
    await same(post({ query }, { Accept: 'application/graphql-response+json' }), 'yoga');
    await same(post({ query: '{ nothing }' }, { Accept: 'application/graphql-response+json' }), 'yoga');
    await same(post({ query }, { Accept: 'text/event-stream' }), 'yoga');
    await same(post({ query }, { Accept: 'application/json, */*' }), 'yoga');
    await same(post({ query }, { 'Content-Type': 'Application/JSON' }), 'yoga');
    await same(post({ query }, { 'Content-Type': 'application/graphql+json' }), 'yoga');
    await same(
      (client) => client.post('/graphql?x=1').set('Content-Type', 'application/json').send({ query }),
      'yoga',
    );
    await same(
      (client) => client.post('/graphql').set('Content-Type', 'application/graphql').send(query),
      'yoga',
    );
    await same((client) => client.post('/graphql').type('form').send({ query }), 'yoga');
    await same(
      (client) => client.put('/graphql').set('Content-Type', 'application/json').send({ query }),
      'yoga',
    );
    await same(post('{"query":'), 'yoga');
    await same(post('null'), 'yoga');
    await same(post('"text"'), 'yoga');
    await same(post([{ query }]), 'yoga');
    await same(post({}), 'yoga');
    await same(post({ query: 1 }), 'yoga');
    await same(post({ query, operationName: 3 }), 'yoga');
    await same(post({ query, variables: 'x' }), 'yoga');
    await same(post({ query, variables: [] }), 'yoga');
    await same(post({ query, extensions: 'x' }), 'yoga');
    await same(post({ query, other: 1 }), 'yoga');
    await same(post({ query, other: null }), 'yoga');
    // (Accepting JSON only: Yoga answers 406 to a subscription then, where it would start a stream.)
    const subscription = 'subscription { resourceChanged(oid: 1) { __typename } }';
    await same(post({ query: subscription }, { Accept: 'application/json' }), 'yoga');
    // A session cookie on a form POST: the cookie-caller policy refuses it.
    await same(
      (client) =>
        client.post('/graphql').type('form').set('Cookie', 'connect.sid=s%3Aabc.def').send({ query }),
      'yoga',
    );
  });
});

describe('a plugin with HTTP-level hooks turns the path off, and says so', () => {
  it("sends every request to Yoga, where the plugin's hooks run", async () => {
    const before = { served: proper.plainPostsServed(), ...seen };
    const response = await proper.client().post('/graphql').send({ query: '{ __typename }' });
    expect(response.status).toBe(200);
    expect(proper.plainPostsServed()).toBe(before.served);
    expect(seen).toEqual({ requests: before.requests + 1, responses: before.responses + 1 });
  });

  it('logs at start-up that the path is off, which hooks turned it off and what it costs', () => {
    const off = warnings.filter((line) => line.msg.startsWith('plain POST path of /graphql off'));
    expect(off).toEqual([
      expect.objectContaining({
        hooks: ['onRequest', 'onResponse'],
        msg: expect.stringMatching(/more CPU per request/),
      }),
    ]);
  });

  it('whatever the HTTP-level hook, also in a plugin another plugin adds; hooks of the operation keep it on', () => {
    const server = (extraPlugins: Plugin[]) =>
      createGraphQLServer(fast.services, () => Promise.reject(new Error('unused')), {
        exampleOperations: loadRestOperations(schema),
        extraPlugins,
      });
    const offers = (extraPlugins: Plugin[]) => server(extraPlugins).plainPost.enabled;
    expect(offers([])).toBe(true);
    const parser: Plugin = {
      onRequestParse({ request, setRequestParser }) {
        if (request.method === 'PATCH') setRequestParser(() => ({ query: '{ __typename }' }));
      },
    };
    for (const plugin of [
      { onRequest() {} } as Plugin,
      parser,
      { onResponse() {} } as Plugin,
      { onResultProcess() {} } as Plugin,
      { instrumentation: { request: (_: unknown, wrapped: () => void) => wrapped() } } as Plugin,
      { onPluginInit: ({ addPlugin }) => addPlugin({ onRequest() {} }) } as Plugin,
    ]) {
      expect(offers([plugin])).toBe(false);
    }
    // Run by getResultForParams and envelop, as on Yoga's own path.
    for (const plugin of [
      { onParams() {} } as Plugin,
      { onExecutionResult() {} } as Plugin,
      { onExecute() {} } as Plugin,
      { onPluginInit: ({ addPlugin }) => addPlugin({ onValidate() {} }) } as Plugin,
    ]) {
      expect(offers([plugin])).toBe(true);
    }
  });
});
