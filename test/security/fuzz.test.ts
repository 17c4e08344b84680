/**
 * Property-based tests (fast-check) over every legacy route and every GraphQL root field and named
 * operation: whatever arrives (odd paths, queries and bodies; variables of the right type, of the
 * wrong type, or hostile), the answer is 2xx or 4xx JSON, never a 5xx nor a masked internal
 * error, and a request that is refused changes nothing in the database.
 *
 * Runs are reproducible: FUZZ_SEED picks the seed (fixed by default), FUZZ_RUNS the number of cases
 * per property; a failure prints the seed and the shrunk request.
 */
import fc from 'fast-check';
import {
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputType,
  getNamedType,
  getNullableType,
  getOperationAST,
  isCompositeType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isScalarType,
  print,
  type TypeNode,
  typeFromAST,
  type VariableDefinitionNode,
} from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schema } from '../../src/gateway/schema.ts';
import { loadRestOperations } from '../../src/rest/operations.ts';
import type { OperationRoute } from '../../src/rest/route-table.ts';
import { legacyRoutes } from '../../src/rest/routes/index.ts';
import { type Browser, logIn, tokenHeaders } from '../support/actors.ts';
import { startApp, type TestApp } from '../support/app.ts';
import { databaseState } from '../support/database-state.ts';
import { type FakeLab, labUser, startFakeLab } from '../support/fake-lab.ts';
import { createResource } from '../support/resources.ts';

const SEED = Number(process.env.FUZZ_SEED ?? 20_261_123);
const RUNS = Number(process.env.FUZZ_RUNS ?? 40);
/** Generous: a case takes a few milliseconds, a shrinking failure many more. */
const TIMEOUT = { timeout: 30_000 + RUNS * 200 };

let lab: FakeLab;
let app: TestApp;
let teacher: Browser;
/** Values that name things that exist, so that some cases get past "not found". */
const known = { oids: [] as number[], rids: [] as string[], groups: [] as string[], pids: [] as string[] };

beforeAll(async () => {
  lab = await startFakeLab('labF');
  app = await startApp({
    labs: [lab.config()],
    // A peer nobody listens for: calls to it fail at once.
    peers: [{ baseId: 'peerF', baseUrl: 'http://127.0.0.1:9/', apiToken: 'peer-token-0123456789' }],
    // Counted as in production, but never reached by the fuzzing itself.
    rateLimits: { failuresPerAddress: 1_000_000, failuresPerSubject: 1_000_000 },
  });
  const user = labUser({ type: 1, nom: 'Fuzz', prenom: 'Teacher' });
  teacher = await logIn(app, lab, user);
  known.pids.push(`${lab.baseId}/${user.oid}`);
  const group = `Fuzz ${Date.now()}`;
  expect((await teacher.post('/api/groupe').send({ nom: group, ouvert: true, public: true })).status).toBe(
    200,
  );
  known.groups.push(group);
  for (const fields of [
    { titre: 'Public', type: 'url' },
    { titre: 'Privé', type: 'em', restriction: 3, auteurs: known.pids },
    { titre: 'Arbre', type: 'arbre', enfants: [{ titre: 'Feuille', type: 'url', aliasOf: 'repo/1' }] },
  ]) {
    const oid = await createResource(app, fields);
    known.oids.push(oid);
    known.rids.push(`repo/${oid}`);
  }
});

afterAll(async () => {
  await app.close();
  await lab.close();
});

// ---------------------------------------------------------------------------------------------
// Arbitraries

const HOSTILE_TEXT = [
  '',
  ' ',
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
  '\u0000',
  'a\u0000b',
  '99999999999999999999',
  '2147483648',
  '-1',
  '0',
  '1.5',
  '1e3',
  '0x10',
  'cle/',
  'cle',
  '/',
  'x/y/z/w',
  'repo/',
  'repo/abc',
  '{"$ne":1}',
  '%',
  '%00',
  '../..',
  'é',
  '😀',
  'true',
  'null',
  '<script>',
];
const FIELD_NAMES = [
  'oid',
  'rid',
  'nom',
  'titre',
  'type',
  'categories',
  'origine',
  'idOrigine',
  'relations',
  'enfants',
  'aliasOf',
  'auteurs',
  'groupes',
  'publie',
  'restriction',
  'parametres',
  'roles',
  'action',
  'baseId',
  'rids',
  'ref',
  'deferUrl',
  'baseUrl',
  'sesatheques',
  'sesalabs',
  'filters',
  'index',
  'values',
  'json',
  'orderBy',
  'order',
  'start',
  'nb',
  'format',
  'droits',
  'merge',
  'pids',
  'token',
  'eventId',
  'ouvert',
  'public',
  'description',
  'newGestionnairePid',
  'newGestionnaireNom',
];

const knownText = () =>
  fc.constantFrom(
    ...known.rids,
    ...known.oids.map(String),
    ...known.groups,
    ...known.pids,
    lab.baseUrl,
    'repo',
    'peerF',
    'url',
    'arbre',
    'fulltext',
    'desc',
  );
/** Numbers as clients write them in paths and queries, from small ids to far beyond 2^53. */
const digits = () => fc.oneof(fc.nat({ max: 30 }).map(String), fc.stringMatching(/^-?[0-9]{9,22}$/));
const text = (): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 3, arbitrary: fc.string({ maxLength: 24 }) },
    { weight: 2, arbitrary: fc.constantFrom(...HOSTILE_TEXT) },
    { weight: 2, arbitrary: knownText() },
    { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 12 }) },
    { weight: 1, arbitrary: digits() },
    {
      weight: 1,
      // rid-, pid- and key-shaped ids: `repo/12`, `cle/…`, `labF/…`
      arbitrary: fc
        .tuple(
          fc.constantFrom('repo', 'cle', 'labF', 'peerF', ''),
          fc.oneof(digits(), fc.string({ maxLength: 6 })),
        )
        .map(([base, id]) => `${base}/${id}`),
    },
  );
const number = () =>
  fc.oneof(
    fc.integer({ min: -3, max: 20 }),
    fc.constantFrom(...known.oids),
    fc.integer(),
    fc.constantFrom(2 ** 31, -(2 ** 31) - 1, 2 ** 53 + 2, 1e20, -1e20, 0.5, 1.5e300),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
  );
const key = () =>
  fc.oneof(
    { weight: 2, arbitrary: fc.constantFrom(...FIELD_NAMES) },
    { weight: 2, arbitrary: fc.constantFrom(...HOSTILE_TEXT) },
    { weight: 1, arbitrary: fc.string({ maxLength: 8 }) },
  );

/** JSON values, objects written as entry lists so that `__proto__` stays an own key. */
type Json = null | boolean | number | string | Json[] | { entries: Array<[string, Json]> };
const json = () =>
  fc.letrec<{ value: Json }>((tie) => ({
    value: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      fc.constant(null),
      fc.boolean(),
      number(),
      text(),
      fc.array(tie('value'), { maxLength: 4 }),
      fc.record({ entries: fc.array(fc.tuple(key(), tie('value')), { maxLength: 5 }) }),
    ),
  })).value;

function encode(value: Json): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(encode).join(',')}]`;
  return `{${value.entries.map(([k, v]) => `${JSON.stringify(k)}:${encode(v)}`).join(',')}}`;
}
/** Keys that reach Object.prototype, or that no field has. */
const HOSTILE_KEYS = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'valueOf',
  '',
  '\u0000',
];
/**
 * An object as clients post them: known property names with any values, and half the time one more
 * property that is hostile or unknown.
 */
const objectBody = () =>
  fc
    .tuple(
      fc.array(fc.tuple(fc.constantFrom(...FIELD_NAMES), json()), { maxLength: 6 }),
      fc.option(fc.tuple(fc.oneof(fc.constantFrom(...HOSTILE_KEYS), key()), json()), { freq: 2 }),
    )
    .map(([entries, extra]) => encode({ entries: extra ? [...entries, extra] : entries }));

// ---------------------------------------------------------------------------------------------
// The legacy routes

type Caller = 'anonymous' | 'teacher' | 'token';
const CALLERS: Caller[] = ['anonymous', 'teacher', 'token'];

const rows = legacyRoutes.flatMap((route) =>
  route.method === 'options' ? [] : route.paths.map((path) => ({ route: route as OperationRoute, path })),
);

type Row = (typeof rows)[number];

interface LegacyCase {
  caller: Caller;
  params: string[];
  query: Array<[string, string]>;
  body: { type: 'json' | 'form' | 'text' | 'none'; content: string };
}

const legacyCase = () =>
  fc.record<LegacyCase>({
    caller: fc.constantFrom(...CALLERS),
    params: fc.array(fc.oneof(text(), digits()), { minLength: 4, maxLength: 4 }),
    query: fc
      .tuple(
        fc.array(
          fc.tuple(fc.constantFrom(...FIELD_NAMES), fc.oneof(text(), objectBody(), json().map(encode))),
          {
            maxLength: 5,
          },
        ),
        fc.option(fc.tuple(fc.oneof(fc.constantFrom(...HOSTILE_KEYS), key()), text()), { freq: 2 }),
      )
      .map(([entries, extra]) => (extra ? [...entries, extra] : entries)),
    body: fc.oneof(
      { weight: 4, arbitrary: objectBody().map((content) => ({ type: 'json' as const, content })) },
      { weight: 1, arbitrary: json().map((value) => ({ type: 'json' as const, content: encode(value) })) },
      {
        weight: 1,
        arbitrary: fc
          .array(fc.tuple(key(), text()), { maxLength: 5 })
          .map((entries) => ({ type: 'form' as const, content: new URLSearchParams(entries).toString() })),
      },
      { weight: 1, arbitrary: objectBody().map((content) => ({ type: 'text' as const, content })) },
      { weight: 1, arbitrary: fc.constant({ type: 'none' as const, content: '' }) },
    ),
  });

/** The path with every `:param` replaced by a generated segment (never empty: Express would not match). */
function fillPath(path: string, params: string[]): string {
  let index = 0;
  return path.replace(/:(\w+)/g, () => encodeURIComponent(params[index++ % params.length] || 'x'));
}

function send({ route }: Row, c: LegacyCase, url: string) {
  const query = new URLSearchParams(c.query).toString();
  const agent = c.caller === 'teacher' ? teacher : app.client();
  let call = agent[route.method](query ? `${url}?${query}` : url);
  if (c.caller === 'token') call = call.set(tokenHeaders);
  if (route.method !== 'get' && c.body.type !== 'none') {
    const type = { json: 'application/json', form: 'application/x-www-form-urlencoded', text: 'text/plain' }[
      c.body.type
    ];
    call = call.set('Content-Type', type).send(c.body.content);
  }
  return call;
}

const changesState = (route: OperationRoute) => route.method !== 'get' || route.changesState === true;

describe(`every legacy route answers 2xx or 4xx JSON to anything, and a refusal writes nothing (${RUNS} cases each)`, () => {
  it.each(rows.map((row) => [`${row.route.method.toUpperCase()} ${row.path}`, row] as const))(
    '%s',
    TIMEOUT,
    async (_label, row) => {
      await fc.assert(
        fc.asyncProperty(legacyCase(), async (c) => {
          const before = changesState(row.route) ? await databaseState() : undefined;
          const url = fillPath(row.path, c.params);
          const response = await send(row, c, url);
          const label = `${c.caller} ${row.route.method.toUpperCase()} ${url} ${JSON.stringify(c.query).slice(0, 200)} ${c.body.type} ${c.body.content.slice(0, 200)} → ${response.status} ${response.text.slice(0, 300)}`;
          expect(response.status, label).toBeLessThan(500);
          expect(response.headers['content-type'], label).toMatch(/^application\/json/);
          expect(() => JSON.parse(response.text), label).not.toThrow();
          if (before && response.status >= 400) expect(await databaseState(), label).toEqual(before);
        }),
        { seed: SEED, numRuns: RUNS },
      );
    },
  );
});

// ---------------------------------------------------------------------------------------------
// GraphQL: every root field with every argument as a variable, and every named operation

/** Values for a GraphQL input type: mostly well-typed, sometimes anything at all. */
function valueFor(type: GraphQLInputType, depth = 0): fc.Arbitrary<unknown> {
  const wrongly = json().map(plain);
  if (isNonNullType(type)) return fc.oneof({ weight: 6, arbitrary: valueFor(type.ofType, depth) }, wrongly);
  const nullable = getNullableType(type);
  if (isListType(nullable)) {
    return fc.oneof(
      fc.constant(null),
      fc.array(valueFor(nullable.ofType, depth + 1), { maxLength: 4 }),
      wrongly,
    );
  }
  const named = getNamedType(type);
  let typed: fc.Arbitrary<unknown>;
  if (isEnumType(named)) typed = fc.oneof(fc.constantFrom(...named.getValues().map((v) => v.name)), text());
  else if (isInputObjectType(named)) {
    const fields = Object.values(named.getFields());
    typed =
      depth > 3
        ? fc.constant({})
        : fc.record(
            Object.fromEntries(fields.map((field) => [field.name, valueFor(field.type, depth + 1)])),
            {
              requiredKeys: [],
            },
          );
  } else if (isScalarType(named) && named.name === 'Int') typed = number();
  else if (isScalarType(named) && named.name === 'Float') typed = number();
  else if (isScalarType(named) && named.name === 'Boolean') typed = fc.boolean();
  else if (isScalarType(named) && (named.name === 'String' || named.name === 'ID')) typed = text();
  // JSON arguments are legacy objects: mostly shaped like them, sometimes anything.
  else
    typed = fc.oneof(
      { weight: 3, arbitrary: objectBody().map((body) => JSON.parse(body)) },
      json().map(plain),
    );
  return fc.oneof(
    { weight: 1, arbitrary: fc.constant(null) },
    { weight: 8, arbitrary: typed },
    { weight: 1, arbitrary: wrongly },
  );
}

/** A Json value as a plain object (for variables, which the test client encodes itself). */
function plain(value: Json): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(plain);
  // `__proto__` cannot be set by assignment: defined as an own property, as JSON.parse does.
  const object: Record<string, unknown> = {};
  for (const [k, v] of value.entries)
    Object.defineProperty(object, k, {
      value: plain(v),
      enumerable: true,
      configurable: true,
      writable: true,
    });
  return object;
}

interface GeneratedOperation {
  name: string;
  mutation: boolean;
  document: string;
  variables: Array<{ name: string; type: GraphQLInputType }>;
}

function typeName(type: GraphQLInputType): string {
  return String(type);
}

function rootFieldOperations(): GeneratedOperation[] {
  const operations: GeneratedOperation[] = [];
  for (const [kind, root] of [
    ['query', schema.getQueryType()],
    ['mutation', schema.getMutationType()],
  ] as const) {
    for (const field of Object.values(root?.getFields() ?? {}) as GraphQLField<unknown, unknown>[]) {
      const args = field.args as GraphQLArgument[];
      const definitions = args.map((arg) => `$${arg.name}: ${typeName(arg.type)}`).join(', ');
      const passed = args.map((arg) => `${arg.name}: $${arg.name}`).join(', ');
      const selection = isCompositeType(getNamedType(field.type)) ? ' { __typename }' : '';
      operations.push({
        name: field.name,
        mutation: kind === 'mutation',
        document: `${kind}${definitions ? ` (${definitions})` : ''} { ${field.name}${passed ? `(${passed})` : ''}${selection} }`,
        variables: args.map((arg) => ({ name: arg.name, type: arg.type })),
      });
    }
  }
  return operations;
}

function namedOperations(): GeneratedOperation[] {
  return [...loadRestOperations(schema)].map(([name, document]) => {
    const operation = getOperationAST(document, name)!;
    return {
      name,
      mutation: operation.operation === 'mutation',
      document: print(document),
      variables: (operation.variableDefinitions ?? []).map((definition: VariableDefinitionNode) => ({
        name: definition.variable.name.value,
        type: typeFromAST(schema, definition.type as TypeNode) as GraphQLInputType,
      })),
    };
  });
}

const operationCase = (operation: GeneratedOperation) =>
  fc.record({
    caller: fc.constantFrom(...CALLERS),
    variables: fc.record(Object.fromEntries(operation.variables.map((v) => [v.name, valueFor(v.type)])), {
      requiredKeys: [],
    }),
  });

async function checkOperation(
  operation: GeneratedOperation,
  { caller, variables }: { caller: Caller; variables: Record<string, unknown> },
) {
  const before = operation.mutation ? await databaseState() : undefined;
  const agent = caller === 'teacher' ? teacher : app.client();
  let call = agent.post('/graphql');
  if (caller === 'token') call = call.set(tokenHeaders);
  const response = await call.send({ query: operation.document, variables });
  const label = `${operation.name} as ${caller} with ${JSON.stringify(variables).slice(0, 300)} → ${response.status} ${response.text.slice(0, 300)}`;
  expect(response.status, label).toBeLessThan(500);
  const body = response.body as {
    data?: Record<string, unknown> | null;
    errors?: { message: string; extensions?: { code?: string } }[];
  };
  for (const error of body.errors ?? []) {
    expect(error.message, label).not.toMatch(/^Unexpected error/);
    expect(error.extensions?.code, label).not.toBe('INTERNAL_SERVER_ERROR');
  }
  const results = Object.values(body.data ?? {});
  const refused =
    (body.errors?.length ?? 0) > 0 ||
    results.some((result) => (result as { __typename?: string } | null)?.__typename?.endsWith('Error'));
  if (before && refused) expect(await databaseState(), label).toEqual(before);
}

const fuzz = (operation: GeneratedOperation) =>
  fc.assert(
    fc.asyncProperty(operationCase(operation), (c) => checkOperation(operation, c)),
    { seed: SEED, numRuns: RUNS },
  );

describe(`every GraphQL root field, every argument a variable: typed errors or data, and a refused mutation writes nothing (${RUNS} cases each)`, () => {
  it.each(rootFieldOperations().map((operation) => [operation.name, operation] as const))(
    '%s',
    TIMEOUT,
    (_name, operation) => fuzz(operation),
  );
});

describe(`every named operation of the legacy routes, likewise (${RUNS} cases each)`, () => {
  it.each(namedOperations().map((operation) => [operation.name, operation] as const))(
    '%s',
    TIMEOUT,
    (_name, operation) => fuzz(operation),
  );
});
