/**
 * Text as it arrives, property-based (fast-check): every string argument of every operation, the
 * REST routes' path, query and body parameters as the OpenAPI document lists them and the GraphQL
 * root fields' String, ID and JSON arguments (inside input objects too) as the schema lists them,
 * receives text drawn to break things: lone surrogates, NUL, the noncharacters U+FFFE and U+FFFF,
 * controls, line and paragraph separators, very long strings and any Unicode, one argument at a time,
 * the others plausible. Whatever arrives:
 * - never a 5xx, never a masked internal error, always the transport's own format;
 * - text no database can store exactly (NUL, a lone surrogate) is refused, 400 on REST and a typed
 *   INVALID_INPUT error on GraphQL, naming where it is, and a refusal writes nothing;
 * - the text of a resource is stored exactly, a person's name exactly but trimmed, or refused naming
 *   the field.
 * A URL cannot carry a lone surrogate (it is UTF-8): there it is sent as the bytes a WTF-8 client
 * would write, which decode as U+FFFD.
 *
 * FUZZ_SEED picks the seed (fixed by default), TEXT_RUNS the cases per argument's route or field.
 */
import fc from 'fast-check';
import {
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputType,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isScalarType,
} from 'graphql';
import { describe, expect, it } from 'vitest';
import { schema } from '../../src/gateway/schema.ts';
import { type Browser, logIn, tokenHeaders } from '../support/actors.ts';
import type { TestApp } from '../support/app.ts';
import { databaseState } from '../support/database-state.ts';
import { type FakeLab, labUser } from '../support/fake-lab.ts';
import { appTest } from '../support/fixtures.ts';
import { graphql } from '../support/graphql.ts';
import { createResource } from '../support/resources.ts';

const SEED = Number(process.env.FUZZ_SEED ?? 20_261_127);
const RUNS = Number(process.env.TEXT_RUNS ?? 12);
const TIMEOUT = { timeout: 30_000 + RUNS * 1_000 };

let lab: FakeLab;
let app: TestApp;
let teacher: Browser;
let teacherPid: string;
let oid: number;
let groupName: string;

const test = appTest.override({
  labId: 'labT',
  appOptions: {
    // A peer nobody listens for: calls to it fail at once.
    peers: [{ baseId: 'peerT', baseUrl: 'http://127.0.0.1:9/', apiToken: 'peer-token-0123456789' }],
    rateLimits: { failuresPerAddress: 1_000_000, failuresPerSubject: 1_000_000 },
  },
});

test.beforeAll(async ({ lab: startedLab, app: startedApp }) => {
  lab = startedLab;
  app = startedApp;
  const user = labUser({ type: 1, nom: 'Texte', prenom: 'Tina' });
  teacher = await logIn(app, lab, user);
  teacherPid = `${lab.baseId}/${user.oid}`;
  groupName = `Textes ${Date.now()}`;
  expect((await teacher.post('/api/groupe').send({ nom: groupName, ouvert: true })).status).toBe(200);
  oid = await createResource(app, { titre: 'Texte public', type: 'url' });
});

// ---------------------------------------------------------------------------------------------
// Text

/** Written independently of src/lib/text.ts: what no database can store exactly. */
const unstorable = (text: string) => text.includes('\u0000') || !text.isWellFormed();

const SPECIAL = [
  '\u0000',
  '\uFFFE',
  '\uFFFF',
  '\uFEFF',
  '\u0001',
  '\u001F',
  '\u007F',
  '\u0085',
  '\u2028',
  '\u2029',
  '\r',
  '\r\n',
  '\t',
  '\u200B',
  '\u{10FFFF}',
  '\u{1F600}',
  'e\u0301',
  '%',
  '\\u0000',
  ' ',
];
const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((unit) => String.fromCharCode(unit));
const anyUnicode = (maxLength = 24) => fc.string({ unit: 'binary', maxLength });
const joined = (parts: string[]) => parts.join('');

/** Any text a client can send, `maxLength` aside (very long texts are one choice of several). */
const text = (maxLength: number): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 3, arbitrary: anyUnicode() },
    {
      weight: 3,
      arbitrary: fc.tuple(anyUnicode(8), fc.constantFrom(...SPECIAL), anyUnicode(8)).map(joined),
    },
    { weight: 3, arbitrary: fc.tuple(anyUnicode(8), loneSurrogate, anyUnicode(8)).map(joined) },
    // A pair cut in half, reversed, or doubled highs: the ill-formed UTF-16 of real bugs.
    {
      weight: 1,
      arbitrary: fc.constantFrom('\u{1F600}'.slice(0, 1), '\uDE00\uD83D', '\uD83D\uD83D', 'a\uDFFF'),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          fc.constantFrom(255, 256, 501, 2_705, 70_000, 1_000_001),
          fc.constantFrom('a', 'é', '字', '\uFFFF'),
        )
        .map(([length, unit]) => unit.repeat(Math.min(length, maxLength))),
    },
  );

/**
 * `text` percent-encoded as UTF-8, each lone surrogate as the three bytes WTF-8 gives it (no
 * encoder writes a lone surrogate; a careless client writes those bytes).
 */
function urlEncoded(value: string): string {
  let encoded = '';
  for (const character of value) {
    const unit = character.charCodeAt(0);
    if (character.length === 1 && unit >= 0xd800 && unit <= 0xdfff) {
      encoded +=
        `%${(0xe0 | (unit >> 12)).toString(16)}%${(0x80 | ((unit >> 6) & 0x3f)).toString(16)}%${(0x80 | (unit & 0x3f)).toString(16)}`.toUpperCase();
    } else encoded += encodeURIComponent(character);
  }
  return encoded;
}

// ---------------------------------------------------------------------------------------------
// REST: the routes of the OpenAPI document

type Caller = 'anonymous' | 'teacher' | 'token';
const CALLERS: Caller[] = ['anonymous', 'teacher', 'token'];
type JsonSchema = Record<string, unknown> & { $ref?: string; properties?: Record<string, JsonSchema> };

interface RestSlot {
  in: 'path' | 'query' | 'body';
  name: string;
  /** How the text goes in: as the value, inside a list, as an object's key and value, in a JSON filter. */
  shape: 'text' | 'list' | 'object' | 'filter';
}

interface RestOperation {
  method: 'get' | 'post' | 'delete';
  path: string;
  slots: RestSlot[];
  query: Record<string, string>;
  body: Record<string, unknown> | undefined;
}

interface OpenApiDocument {
  paths: Record<string, Record<string, OpenApiOperation>>;
  components: { schemas: Record<string, JsonSchema>; parameters?: Record<string, OpenApiParameter> };
}
interface OpenApiParameter {
  $ref?: string;
  name: string;
  in: string;
  schema?: JsonSchema;
  example?: unknown;
}
interface OpenApiOperation {
  parameters?: OpenApiParameter[];
  requestBody?: { content: Record<string, { schema: JsonSchema }> };
}

/** Plausible values for path parameters, by name, so that one slot at a time is the odd one. */
const pathValue = (name: string): string =>
  ({
    oid: String(oid),
    origine: 'repo',
    idOrigine: String(oid),
    oidOrNom: groupName,
    nom: groupName,
    baseId: 'repo',
    id: `repo/${oid}`,
    pattern: 'tex',
  })[name] ?? 'x';

function restOperations(document: OpenApiDocument): RestOperation[] {
  const resolve = (schema: JsonSchema | undefined): JsonSchema | undefined => {
    const name = schema?.$ref?.split('/').at(-1);
    return name ? resolve(document.components.schemas[name]) : schema;
  };
  const operations: RestOperation[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (!['get', 'post', 'delete'].includes(method)) continue;
      const slots: RestSlot[] = [];
      const query: Record<string, string> = {};
      for (const raw of operation.parameters ?? []) {
        const parameter = raw.$ref
          ? document.components.parameters?.[raw.$ref.split('/').at(-1)!]
          : (raw as OpenApiParameter);
        if (!parameter || (parameter.in !== 'path' && parameter.in !== 'query')) continue;
        const type = resolve(parameter.schema)?.type;
        const example = parameter.example ?? (parameter.schema?.examples as unknown[] | undefined)?.[0];
        if (parameter.in === 'query' && example !== undefined) query[parameter.name] = String(example);
        if (type === 'string' || parameter.in === 'path')
          slots.push({ in: parameter.in, name: parameter.name, shape: 'text' });
        else if (type === undefined) slots.push({ in: 'query', name: parameter.name, shape: 'filter' });
      }
      const bodySchema = resolve(operation.requestBody?.content['application/json']?.schema);
      const body = operation.requestBody
        ? { ...((bodySchema?.examples as Record<string, unknown>[] | undefined)?.[0] ?? {}) }
        : undefined;
      for (const [name, property] of Object.entries(bodySchema?.properties ?? {})) {
        const resolved = resolve(property);
        const type = resolved?.type;
        if (type === 'string' || (Array.isArray(type) && type.includes('string')))
          slots.push({ in: 'body', name, shape: 'text' });
        else if (type === 'array' && resolve(resolved?.items as JsonSchema)?.type === 'string')
          slots.push({ in: 'body', name, shape: 'list' });
        else if (type === 'object' || type === undefined) slots.push({ in: 'body', name, shape: 'object' });
      }
      if (slots.length > 0)
        operations.push({ method: method as RestOperation['method'], path, slots, query, body });
    }
  }
  return operations;
}

function placed(slot: RestSlot, value: string): unknown {
  if (slot.shape === 'list') return [value];
  if (slot.shape === 'object') return { [value]: value };
  if (slot.shape === 'filter') {
    const filters = [{ index: 'fulltext', values: [value] }];
    return JSON.stringify(slot.name === 'json' ? { filters } : filters);
  }
  return value;
}

async function sendRest(operation: RestOperation, slot: RestSlot, value: string, caller: Caller) {
  const url = operation.path.replace(/\{(\w+)\}/g, (_whole, name: string) =>
    name === slot.name && slot.in === 'path'
      ? urlEncoded(value) || '%20'
      : encodeURIComponent(pathValue(name)),
  );
  const query = { ...operation.query };
  const encodedQuery = Object.entries(query)
    .filter(([name]) => !(slot.in === 'query' && name === slot.name))
    .map(([name, v]) => `${name}=${encodeURIComponent(v)}`);
  if (slot.in === 'query') {
    const inQuery = placed(slot, value) as string;
    // A filter is JSON: JSON.stringify wrote its lone surrogates as escapes, which a URL carries.
    encodedQuery.push(
      `${slot.name}=${slot.shape === 'filter' ? encodeURIComponent(inQuery) : urlEncoded(inQuery)}`,
    );
  }
  const target = encodedQuery.length > 0 ? `${url}?${encodedQuery.join('&')}` : url;
  const agent = caller === 'teacher' ? teacher : app.client();
  let call = agent[operation.method](target);
  if (caller === 'token') call = call.set(tokenHeaders);
  if (operation.method === 'post') {
    const body =
      slot.in === 'body' ? { ...operation.body, [slot.name]: placed(slot, value) } : (operation.body ?? {});
    // JSON.stringify writes a lone surrogate as its escape, valid JSON: exactly what arrives.
    call = call.set('Content-Type', 'application/json').send(JSON.stringify(body));
  }
  return call;
}

let document: OpenApiDocument;
test.beforeAll(async () => {
  document = (await app.client().get('/api/openapi.json')).body;
});

describe(`every string parameter of every REST route (${RUNS} cases each)`, () => {
  // The document is served by the app, read in beforeAll: the rows come from a document built
  // the same way, outside any app, so that vitest can name each test.
  it('covers every route of the document with a string parameter', () => {
    const operations = restOperations(document);
    expect(operations.length).toBeGreaterThan(40);
    expect(operations.flatMap((o) => o.slots).some((s) => s.in === 'body' && s.name === 'titre')).toBe(true);
    expect(operations.flatMap((o) => o.slots).some((s) => s.in === 'path' && s.name === 'nom')).toBe(true);
  });

  it('answers 2xx or 4xx in its format, refuses unstorable text naming it, and a refusal writes nothing', {
    timeout: 600_000,
  }, async () => {
    for (const operation of restOperations(document)) {
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...operation.slots),
          fc.constantFrom(...CALLERS),
          fc.boolean(),
          text(1_000_001),
          text(300),
          async (slot, caller, long, longText, shortText) => {
            // URLs stay under Node's header limit; bodies take anything.
            const value = slot.in === 'body' && long ? longText : shortText;
            const before = operation.method === 'get' ? undefined : await databaseState();
            const response = await sendRest(operation, slot, value, caller);
            const label = `${caller} ${operation.method.toUpperCase()} ${operation.path} ${slot.in}.${slot.name} = ${JSON.stringify(value.slice(0, 80))} (${value.length}) → ${response.status} ${response.text.slice(0, 300)}`;
            expect(response.status, label).toBeLessThan(500);
            if (operation.path === '/oai') {
              expect(response.headers['content-type'], label).toMatch(/^text\/xml/);
            } else {
              expect(response.headers['content-type'], label).toMatch(/^application\/json/);
              expect(() => JSON.parse(response.text), label).not.toThrow();
            }
            const carried =
              slot.in === 'query' && slot.shape === 'text' ? value.includes('\u0000') : unstorable(value);
            if (carried && slot.in !== 'path' && operation.path !== '/oai') {
              expect(response.status, label).toBe(400);
              expect(String(response.body.error), label).toContain(slot.name);
            }
            if (carried && slot.in === 'path' && value.includes('\u0000')) {
              expect(response.status, label).toBeGreaterThanOrEqual(400);
            }
            if (before && response.status >= 400) expect(await databaseState(), label).toEqual(before);
          },
        ),
        { seed: SEED, numRuns: RUNS },
      );
    }
  });
});

// ---------------------------------------------------------------------------------------------
// GraphQL: every String, ID and JSON argument of every root field, inside input objects too

/** Plausible values for arguments and input fields, by name, so that one at a time is the odd one. */
const plausible = (name: string): unknown =>
  ({
    titre: 'Titre',
    type: 'url',
    nom: groupName,
    pid: teacherPid,
    id: `repo/${oid}`,
    rid: `repo/${oid}`,
    ref: `repo/${oid}`,
    origine: 'repo',
    idOrigine: String(oid),
    baseId: 'repo',
    pattern: 'tex',
    baseUrl: lab.baseUrl,
  })[name];

interface GraphQLSlot {
  /** Variable name, then input field names. */
  path: string[];
  shape: 'text' | 'list' | 'object';
}

/** A value of `type`, with its required parts (and plausible named ones) filled. */
function baseValue(type: GraphQLInputType, name: string, depth = 0): unknown {
  const named = getNamedType(type);
  const inList = isListType(isNonNullType(type) ? type.ofType : type);
  let value: unknown;
  if (isInputObjectType(named)) {
    const fields = Object.values(named.getFields());
    value = Object.fromEntries(
      fields
        .filter((field) => depth < 3 && (isNonNullType(field.type) || plausible(field.name) !== undefined))
        .map((field) => [field.name, baseValue(field.type, field.name, depth + 1)]),
    );
  } else if (isEnumType(named)) value = named.getValues()[0]!.value;
  else if (named.name === 'Int') value = oid;
  else if (named.name === 'Float') value = 1;
  else if (named.name === 'Boolean') value = false;
  else if (named.name === 'DateTime') value = '2026-01-01T00:00:00Z';
  else if (named.name === 'JSON') value = {};
  else value = plausible(name) ?? 'x';
  return inList ? [value] : value;
}

function slotsOf(type: GraphQLInputType, path: string[], depth = 0): GraphQLSlot[] {
  const named = getNamedType(type);
  const inList = isListType(isNonNullType(type) ? type.ofType : type);
  if (isScalarType(named) && (named.name === 'String' || named.name === 'ID'))
    return [{ path, shape: inList ? 'list' : 'text' }];
  if (isScalarType(named) && named.name === 'JSON') return [{ path, shape: 'object' }];
  if (isInputObjectType(named) && depth < 3 && !inList)
    return Object.values(named.getFields()).flatMap((field) =>
      slotsOf(field.type, [...path, field.name], depth + 1),
    );
  return [];
}

interface GraphQLOperation {
  name: string;
  mutation: boolean;
  document: string;
  args: GraphQLArgument[];
  slots: GraphQLSlot[];
}

function graphqlOperations(): GraphQLOperation[] {
  const operations: GraphQLOperation[] = [];
  for (const [kind, root] of [
    ['query', schema.getQueryType()],
    ['mutation', schema.getMutationType()],
  ] as const) {
    for (const field of Object.values(root?.getFields() ?? {}) as GraphQLField<unknown, unknown>[]) {
      const args = field.args as GraphQLArgument[];
      const slots = args.flatMap((arg) => slotsOf(arg.type, [arg.name]));
      if (slots.length === 0) continue;
      const definitions = args.map((arg) => `$${arg.name}: ${String(arg.type)}`).join(', ');
      const passed = args.map((arg) => `${arg.name}: $${arg.name}`).join(', ');
      const selection =
        isScalarType(getNamedType(field.type)) || isEnumType(getNamedType(field.type))
          ? ''
          : ' { __typename }';
      operations.push({
        name: field.name,
        mutation: kind === 'mutation',
        document: `${kind} (${definitions}) { ${field.name}(${passed})${selection} }`,
        args,
        slots,
      });
    }
  }
  return operations;
}

function variablesWith(operation: GraphQLOperation, slot: GraphQLSlot, value: string) {
  const variables = Object.fromEntries(
    operation.args.map((arg) => [arg.name, baseValue(arg.type, arg.name)]),
  ) as Record<string, unknown>;
  const placedValue = slot.shape === 'list' ? [value] : slot.shape === 'object' ? { [value]: value } : value;
  let target = variables;
  for (const key of slot.path.slice(0, -1)) {
    target[key] = { ...((target[key] as Record<string, unknown> | undefined) ?? {}) };
    target = target[key] as Record<string, unknown>;
  }
  target[slot.path.at(-1)!] = placedValue;
  return variables;
}

describe(`every String, ID and JSON argument of every GraphQL root field (${RUNS} cases each)`, () => {
  it.each(graphqlOperations().map((operation) => [operation.name, operation] as const))(
    '%s',
    TIMEOUT,
    async (_name, operation) => {
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...operation.slots),
          fc.constantFrom(...CALLERS),
          text(1_000_001),
          async (slot, caller, value) => {
            const before = operation.mutation ? await databaseState() : undefined;
            const variables = variablesWith(operation, slot, value);
            const agent = caller === 'teacher' ? teacher : app.client();
            let call = agent.post('/graphql');
            if (caller === 'token') call = call.set(tokenHeaders);
            const response = await call.send({ query: operation.document, variables });
            const label = `${operation.name} as ${caller}, ${slot.path.join('.')} = ${JSON.stringify(value.slice(0, 80))} (${value.length}) → ${response.status} ${response.text.slice(0, 300)}`;
            expect(response.status, label).toBeLessThan(500);
            const body = response.body as {
              data?: Record<string, { __typename?: string } | null> | null;
              errors?: { message: string; extensions?: { code?: string } }[];
            };
            for (const error of body.errors ?? []) {
              expect(error.message, label).not.toMatch(/^Unexpected error/);
              expect(error.extensions?.code, label).not.toBe('INTERNAL_SERVER_ERROR');
            }
            if (unstorable(value)) {
              const refusal = body.errors?.find((error) => error.extensions?.code === 'INVALID_INPUT');
              expect(refusal, label).toBeDefined();
              expect(refusal!.message, label).toContain(
                slot.path.length > 1 ? slot.path.at(-1) : slot.path[0],
              );
            }
            const refused =
              (body.errors?.length ?? 0) > 0 ||
              Object.values(body.data ?? {}).some((result) => result?.__typename?.endsWith('Error'));
            if (before && refused) expect(await databaseState(), label).toEqual(before);
          },
        ),
        { seed: SEED, numRuns: RUNS },
      );
    },
  );
});

// ---------------------------------------------------------------------------------------------
// Stored exactly, or refused naming the field

/** Well-formed text of any kind: what must come back as it was sent, or be refused. */
const storable = (maxLength: number) => text(maxLength).filter((value) => !unstorable(value));

const RESOURCE_TEXT = ['titre', 'resume', 'description', 'commentaires'] as const;

describe('the text of a resource and of a person', () => {
  it(
    'is stored exactly through REST and read back through REST and GraphQL, or refused naming the field',
    TIMEOUT,
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.record(
            Object.fromEntries(RESOURCE_TEXT.map((name) => [name, storable(600)])) as Record<
              (typeof RESOURCE_TEXT)[number],
              fc.Arbitrary<string>
            >,
          ),
          storable(60),
          async (fields, parameter) => {
            const posted = { ...fields, type: 'url', parametres: { [parameter]: parameter } };
            const saved = await app.client().post('/api/ressource').set(tokenHeaders).send(posted);
            const label = `${JSON.stringify(posted).slice(0, 400)} → ${saved.status} ${saved.text.slice(0, 300)}`;
            if (saved.status !== 200) {
              expect(saved.status, label).toBe(400);
              expect(String(saved.body.error), label).toMatch(
                /titre|resume|description|commentaires|parametres/,
              );
              return;
            }
            const read = await app.client().get(`/api/ressource/${saved.body.oid}`).set(tokenHeaders);
            expect(read.body, label).toMatchObject({ ...fields, parametres: { [parameter]: parameter } });
            const viaGraphQL = await graphql(
              app.client(),
              'query ($oid: Int!) { resource(oid: $oid) { ... on Resource { titre resume description commentaires parametres } } }',
              { oid: saved.body.oid },
              tokenHeaders,
            );
            expect(viaGraphQL.data?.resource, label).toEqual({
              ...fields,
              parametres: { [parameter]: parameter },
            });
          },
        ),
        { seed: SEED, numRuns: RUNS * 3 },
      );
    },
  );

  it(
    'is stored exactly through GraphQL, or refused with INVALID_INPUT naming the field',
    TIMEOUT,
    async () => {
      await fc.assert(
        fc.asyncProperty(storable(600), storable(600), async (titre, resume) => {
          const saved = await graphql(
            app.client(),
            `mutation ($input: ResourceInput!) { saveResource(input: $input) {
            __typename ... on SaveResourceResult { oid } ... on Error { code message } } }`,
            { input: { titre, resume, type: 'url' } },
            tokenHeaders,
          );
          const label = JSON.stringify({ titre, resume, saved }).slice(0, 600);
          const result = saved.data?.saveResource as
            | { oid?: number; code?: string; message?: string }
            | undefined;
          if (!result?.oid) {
            const refusal = result?.code ? result : saved.errors?.[0]?.extensions;
            expect(refusal?.code, label).toBe('INVALID_INPUT');
            expect(result?.message ?? saved.errors?.[0]?.message, label).toMatch(/titre|resume/);
            return;
          }
          const read = await app.client().get(`/api/ressource/${result.oid}`).set(tokenHeaders);
          expect(read.body, label).toMatchObject({ titre, resume });
        }),
        { seed: SEED, numRuns: RUNS * 3 },
      );
    },
  );

  it(
    'a person added by an administrator keeps their names exactly, or is refused naming the field',
    TIMEOUT,
    async () => {
      let n = 0;
      await fc.assert(
        fc.asyncProperty(storable(300), storable(300), async (nom, prenom) => {
          n += 1;
          const added = await app
            .client()
            .post('/api/personne/add')
            .set(tokenHeaders)
            .send({ origine: 'texte', idOrigine: `p${n}`, nom, prenom });
          const label = `${JSON.stringify({ nom, prenom })} → ${added.status} ${added.text.slice(0, 300)}`;
          if (added.status !== 200) {
            expect(added.status, label).toBe(400);
            expect(String(added.body.error), label).toMatch(/nom|prenom/);
            return;
          }
          const read = await graphql(
            app.client(),
            'query ($pid: String!) { person(pid: $pid) { ... on Person { nom prenom } } }',
            { pid: `texte/p${n}` },
            tokenHeaders,
          );
          // Names are trimmed (White_Space and U+FEFF, as String.prototype.trim): nothing else changes.
          expect(read.data?.person, label).toEqual({ nom: nom.trim(), prenom: prenom.trim() });
        }),
        { seed: SEED, numRuns: RUNS * 3 },
      );
    },
  );
});
