/**
 * The OpenAPI document as a contract, driven from the document itself (a new route is covered
 * without touching this file): no two paths an OpenAPI tool would take for one template; the
 * security of each operation is what the service asks of an anonymous caller; what the document
 * allows is not refused with 400, and each rule it states (required parameters, patterns, lengths,
 * JSON-content parameters, required body properties) is refused with 400. An OAI-PMH operation
 * (answers in `text/xml`) reports protocol errors as the protocol requires, in an HTTP 200 answer:
 * what its document allows answers without an error, and a rule broken is its badVerb or badArgument.
 */
import type { Test } from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, logIn, logInWithRoles, tokenHeaders } from '../support/actors.ts';
import { startApp, type TestApp } from '../support/app.ts';
import { type FakeLab, labUser, startFakeLab } from '../support/fake-lab.ts';

type Schema = Record<string, unknown> & {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  pattern?: string;
  minLength?: number;
  minimum?: number;
  example?: unknown;
  examples?: unknown[];
  properties?: Record<string, Schema>;
  required?: string[];
};
interface Parameter {
  name: string;
  in: 'path' | 'query';
  required?: boolean;
  schema?: Schema;
  content?: Record<string, { schema: Schema }>;
  example?: unknown;
}
interface Operation {
  operationId: string;
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content: Record<string, { schema: Schema }> };
  responses: Record<string, { content?: Record<string, unknown> }>;
  security?: Record<string, string[]>[];
}
type Method = 'get' | 'post' | 'delete';

let app: TestApp;
let lab: FakeLab;
let document: { paths: Record<string, Partial<Record<Method, Operation>>> };

beforeAll(async () => {
  lab = await startFakeLab('labContract');
  app = await startApp({
    labs: [lab.config()],
    // Unreachable: a peer's answers are not what these tests look at.
    peers: [{ baseId: 'voisine', baseUrl: 'http://127.0.0.1:9/voisine/' }],
    devLogin: true,
  });
  document = (await app.client().get('/api/openapi.json')).body;
});

afterAll(async () => {
  await app?.close();
  await lab?.close();
});

const operations = () =>
  Object.entries(document.paths).flatMap(([path, item]) =>
    (Object.entries(item) as [Method, Operation][]).map(([method, operation]) => ({
      path,
      method,
      operation,
      where: `${method.toUpperCase()} ${path}`,
    })),
  );

/** A value `schema` allows: its first example, else one read from its keywords. */
function allowedValue(schema: Schema = {}, where = ''): unknown {
  if (schema.examples?.length) return schema.examples[0];
  if (schema.example !== undefined) return schema.example;
  if (schema.enum) return schema.enum[0];
  if (schema.const !== undefined) return schema.const;
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (type === 'object' || schema.properties) {
    return Object.fromEntries(
      (schema.required ?? []).map((name) => [
        name,
        allowedValue(schema.properties?.[name], `${where}.${name}`),
      ]),
    );
  }
  if (type === 'array') return [];
  if (type === 'integer' || type === 'number' || schema.pattern === '^\\d+$') return schema.minimum ?? 1;
  if (type === 'boolean') return true;
  expect(schema.pattern, `${where}: a pattern without an example`).toBeUndefined();
  return 'x'.repeat(Math.max(1, schema.minLength ?? 1));
}

const schemaOf = (parameter: Parameter) =>
  parameter.content?.['application/json']?.schema ?? parameter.schema ?? {};

/** A value the parameter allows, as sent in a URL (JSON text for a JSON-content parameter). */
function allowed(parameter: Parameter): string {
  const value = allowedValue(schemaOf(parameter), parameter.name);
  return typeof value === 'string' && !parameter.content ? value : JSON.stringify(value);
}

/** The schema of the request body: JSON, else a form (OAI-PMH takes forms only). */
const bodySchemaOf = (operation: Operation) =>
  operation.requestBody?.content['application/json']?.schema ??
  operation.requestBody?.content['application/x-www-form-urlencoded']?.schema;

/** A body the request body's schema allows. */
function allowedBody(operation: Operation): unknown {
  const schema = bodySchemaOf(operation);
  return schema && allowedValue(schema, 'body');
}

/** An OAI-PMH operation: its success is XML, and its protocol errors are HTTP 200 answers. */
const isOaiPmh = (operation: Operation) => operation.responses['200']?.content?.['text/xml'] !== undefined;

/** The error elements of an OAI-PMH answer, by code. */
const oaiErrors = (text: string) => [...text.matchAll(/<error code="(\w+)">/g)].map((match) => match[1]);

interface Call {
  path: Record<string, string>;
  query: Record<string, string>;
  body?: unknown;
  /** Sent as application/x-www-form-urlencoded rather than JSON. */
  form?: boolean;
}

/** The request the document allows with only what it requires (`all`: every documented parameter). */
function allowedCall(operation: Operation, all = false): Call {
  const form = !operation.requestBody?.content['application/json'] && operation.requestBody !== undefined;
  const call: Call = { path: {}, query: {}, body: allowedBody(operation), ...(form ? { form } : {}) };
  for (const parameter of operation.parameters ?? []) {
    if (parameter.in === 'path') call.path[parameter.name] = allowed(parameter);
    else if (parameter.required || all) call.query[parameter.name] = allowed(parameter);
  }
  return call;
}

function send(
  client: ReturnType<TestApp['client']> | Browser,
  method: Method,
  path: string,
  call: Call,
): Test {
  const url = path.replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(call.path[name] ?? ''));
  const query = new URLSearchParams(call.query).toString();
  const request = client[method](query ? `${url}?${query}` : url);
  if (call.body === undefined) return request;
  if (call.form) {
    return request.type('form').send(new URLSearchParams(call.body as Record<string, string>).toString());
  }
  return request.send(call.body as object);
}

/** No requirement (`security: []`), or an empty one among them: callable without credentials. */
const isOpen = ({ security = [] }: Operation) =>
  security.length === 0 || security.some((requirement) => Object.keys(requirement).length === 0);

describe('paths', () => {
  it('has no two paths that differ only by the names of their parameters', () => {
    const seen = new Map<string, string>();
    for (const path of Object.keys(document.paths)) {
      const template = path.replace(/\{[^}]*\}/g, '{}');
      expect(seen.get(template), `${path} and ${seen.get(template)}`).toBeUndefined();
      seen.set(template, path);
    }
  });
});

describe('security', () => {
  it('an operation documented as secured refuses an anonymous caller, an open one does not for want of identity', async () => {
    const wrong: string[] = [];
    for (const { path, method, operation, where } of operations()) {
      const response = await send(app.client(), method, path, allowedCall(operation, true));
      const refused = response.status === 401;
      // A /public/ route whose operation needs credentials never succeeds, and says so.
      const succeeds = Object.keys(operation.responses).some((status) => status.startsWith('2'));
      if (isOpen(operation) === refused && (succeeds || !isOpen(operation)))
        wrong.push(
          `${where}: documented ${isOpen(operation) ? 'open' : 'secured'}, anonymous answered ${response.status} ${JSON.stringify(response.body)}`,
        );
    }
    expect(wrong).toEqual([]);
  }, 120_000);
});

/** A caller the operation's security admits, fresh for each operation (some log out or delete). */
async function caller(operation: Operation): Promise<ReturnType<TestApp['client']> | Browser> {
  const schemes = new Set((operation.security ?? []).flatMap((requirement) => Object.keys(requirement)));
  if (schemes.has('apiToken') || schemes.size === 0) {
    const client = app.client();
    return {
      get: (url: string) => client.get(url).set(tokenHeaders),
      post: (url: string) => client.post(url).set(tokenHeaders),
      delete: (url: string) => client.delete(url).set(tokenHeaders),
    } as unknown as ReturnType<TestApp['client']>;
  }
  if (schemes.has('session')) return (await logInWithRoles(app, lab, ['formateur'])).browser;
  return logIn(app, lab, labUser());
}

describe('input', () => {
  it('what the document allows is not refused with 400', async () => {
    const wrong: string[] = [];
    for (const { path, method, operation, where } of operations()) {
      for (const all of [false, true]) {
        // OAI-PMH arguments depend on the verb: every one at once is a badArgument, as the document says.
        if (all && isOaiPmh(operation)) continue;
        const response = await send(await caller(operation), method, path, allowedCall(operation, all));
        // A configuration check's verdict (`errors`, documented apart) is an answer, not a refusal.
        if (response.status === 400 && !Array.isArray(response.body.errors))
          wrong.push(
            `${where} (${all ? 'every parameter' : 'required only'}): 400 ${JSON.stringify(response.body)}`,
          );
        if (isOaiPmh(operation) && (response.status !== 200 || oaiErrors(response.text).length > 0))
          wrong.push(`${where} (required only): ${response.status} ${response.text}`);
      }
    }
    expect(wrong).toEqual([]);
  }, 120_000);
});

/** A text `pattern` refuses, or undefined when these candidates all match it. */
const refusedByPattern = (pattern: string) =>
  ['', ' ', 'x', '/', 'x/', '-1', '1.5', '%'].find((candidate) => !new RegExp(pattern, 'u').test(candidate));

/** Requests that each break one rule the document states, with the rule. */
function violations(operation: Operation): Array<{ rule: string; call: Call }> {
  const cases: Array<{ rule: string; call: Call }> = [];
  // Each case: what the document requires, and the one parameter broken.
  const base = () => allowedCall(operation);
  for (const parameter of operation.parameters ?? []) {
    const schema = schemaOf(parameter);
    const place = parameter.in === 'path' ? 'path' : 'query';
    const withValue = (value: string) => {
      const call = base();
      call[place][parameter.name] = value;
      return call;
    };
    if (parameter.in === 'query' && parameter.required) {
      const call = base();
      delete call.query[parameter.name];
      cases.push({ rule: `${parameter.name} required`, call });
    }
    if (parameter.content) cases.push({ rule: `${parameter.name} is JSON`, call: withValue('{not json') });
    // A path segment that does not match names nothing (404, documented), except a text too short.
    if (schema.pattern && parameter.in === 'query') {
      const refused = refusedByPattern(schema.pattern);
      if (refused !== undefined)
        cases.push({ rule: `${parameter.name} matches ${schema.pattern}`, call: withValue(refused) });
    }
    if (schema.minLength)
      cases.push({
        rule: `${parameter.name} at least ${schema.minLength} characters`,
        call: withValue('x'.repeat(schema.minLength - 1)),
      });
    if (parameter.in === 'query' && schema.enum)
      cases.push({ rule: `${parameter.name} one of ${schema.enum.join(', ')}`, call: withValue('zzz') });
    if (parameter.in === 'query' && schema.type === 'integer') {
      cases.push({ rule: `${parameter.name} an integer`, call: withValue('abc') });
      if (schema.minimum !== undefined)
        cases.push({
          rule: `${parameter.name} at least ${schema.minimum}`,
          call: withValue(String(schema.minimum - 1)),
        });
    }
  }
  const body = bodySchemaOf(operation);
  for (const name of body?.required ?? []) {
    const call = base();
    const { [name]: _left, ...rest } = call.body as Record<string, unknown>;
    cases.push({ rule: `body.${name} required`, call: { ...call, body: rest } });
  }
  return cases;
}

/**
 * Stored things for the path and query parameters that name them (a rule on `format` shows only on
 * a resource that exists), created anew for each operation (some delete or change them).
 */
async function withFixtures(path: string, method: Method, call: Call): Promise<Call> {
  const created = await app
    .client()
    .post('/api/ressource')
    .set(tokenHeaders)
    .send({
      origine: 'contract',
      idOrigine: `r${Math.random().toString(36).slice(2)}`,
      titre: 'Contrat',
      type: 'arbre',
      enfants: [],
      publie: true,
      restriction: 0,
    });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const resource = (await app.client().get(`/api/ressource/${created.body.oid}`).set(tokenHeaders)).body;
  const manager = (await logInWithRoles(app, lab, ['formateur'])).browser;
  const group = (
    await manager
      .post('/api/groupe')
      .send({ nom: `Contrat ${Math.random().toString(36).slice(2)}`, ouvert: true, public: true })
  ).body;
  const values: Record<string, string> = path.includes('/groupe')
    ? { oid: String(group.oid), nom: group.nom, oidOrNom: method === 'get' ? String(group.oid) : group.nom }
    : {
        oid: String(resource.oid),
        origine: resource.origine,
        idOrigine: resource.idOrigine,
        ref: String(resource.oid),
      };
  const fill = (params: Record<string, string>) =>
    Object.fromEntries(Object.entries(params).map(([name, value]) => [name, values[name] ?? value]));
  return { ...call, path: fill(call.path), query: fill(call.query) };
}

describe('rules', () => {
  /**
   * Refused with 400, or, where the document says the legacy contract ignores it, answered with a
   * `Warning` header naming what was ignored (documented on the success answer).
   */
  it('a request breaking a rule the document states is refused with 400, or answered with a Warning', async () => {
    const wrong: string[] = [];
    let count = 0;
    for (const { path, method, operation, where } of operations()) {
      const cases = violations(operation);
      if (cases.length === 0) continue;
      const client = await caller(operation);
      const oaiPmh = isOaiPmh(operation);
      // A rule on a parameter shows only where the request would otherwise succeed (OAI-PMH: with
      // the required arguments only, since the others depend on the verb).
      const baseline = await send(
        client,
        method,
        path,
        await withFixtures(path, method, allowedCall(operation, !oaiPmh)),
      );
      if (baseline.status >= 300 || baseline.text.includes('"Erreur :')) continue;
      if (oaiPmh && oaiErrors(baseline.text).length > 0) continue;
      for (const { rule, call } of cases) {
        count += 1;
        const response = await send(client, method, path, await withFixtures(path, method, call));
        if (oaiPmh) {
          const codes = oaiErrors(response.text);
          if (response.status !== 200 || !codes.some((code) => code === 'badVerb' || code === 'badArgument'))
            wrong.push(`${where} (${rule}): ${response.status} ${response.text}`);
          continue;
        }
        const success = operation.responses[String(response.status)] as
          | { headers?: Record<string, unknown> }
          | undefined;
        const warned =
          response.status < 400 &&
          success?.headers?.Warning !== undefined &&
          /^299 - "/.test(String(response.headers.warning)) &&
          String(response.headers.warning).includes(rule.split(' ')[0]!.replace(/^body\./, ''));
        if (response.status !== 400 && !warned)
          wrong.push(`${where} (${rule}): ${response.status} ${JSON.stringify(response.body)}`);
      }
    }
    expect(wrong).toEqual([]);
    expect(count).toBeGreaterThan(10);
  }, 180_000);
});
