/**
 * The one executor (src/gateway/execution.ts). First, what a `/graphql` client gets: the same
 * documents answered over HTTP by Yoga with graphql-js alone and with the executor compiling every
 * operation at once, compared byte for byte; where graphql-jit answers otherwise, and the
 * executor leaves it so, the case says what differs. Then which operations run compiled, when.
 */
import {
  buildSchema,
  type DocumentNode,
  type ExecutionResult,
  GraphQLError,
  type GraphQLObjectType,
  type GraphQLScalarType,
  Kind,
  parse,
} from 'graphql';
import * as jit from 'graphql-jit';
import { createYoga } from 'graphql-yoga';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { ExecutionOptions } from '../../src/gateway/execution.ts';

vi.mock('graphql-jit', async (original) => {
  const actual = await original<typeof import('graphql-jit')>();
  return { ...actual, compileQuery: vi.fn(actual.compileQuery) };
});
const compilations = vi.mocked(jit.compileQuery);
// Loaded after the mock, afresh, so that it calls the mock even where a worker's files share
// modules (vitest without isolation).
vi.resetModules();
const { useExecution } = await import('../../src/gateway/execution.ts');

const schema = buildSchema(`
  scalar JSON
  enum Color { RED GREEN }
  interface Named { name: String! }
  type Person implements Named { name: String!, age: Int, friends: [Person!], nick: String! }
  type Robot implements Named { name: String!, model: String }
  union Thing = Person | Robot
  type Item {
    a: String, b: String, c: String, d: String, n: Int, color: Color, json: JSON, obj: Item, items: [Item],
    strict: [Item!]!, nn: String!, boom: String, boomNN: String!, asyncBoom: String, coded: String,
    echo(x: Int = 3, s: String): String, big: Int, bad: Color, nan: Float, objAsString: String,
    notList: [String], lost: Thing, method: String, promised: String
  }
  input Filter { min: Int!, tags: [String!], color: Color = RED, nested: Sub }
  input Sub { min: Int!, max: Int = 9 }
  input Tree { label: String, children: [Tree!] }
  type Query {
    item: Item, items: [Item!]!, person: Person, named: [Named!]!, things: [Thing]!, nn: Item!,
    filter(f: Filter, ids: [Int!], n: Int, t: Tree): String, boomRoot: String!, json(v: JSON): JSON
  }
  type Mutation { push(v: String!): [String!]! }
  type Subscription { ticks: Int }
`);

const item = (depth = 0): Record<string, unknown> => ({
  a: 'A',
  b: 'B',
  c: 'C',
  d: 'D',
  n: 7,
  color: 'GREEN',
  json: { x: [1, { y: null }] },
  obj: depth < 2 ? item(depth + 1) : null,
  items: depth < 1 ? [item(depth + 1), null, item(depth + 1)] : [],
  strict: depth < 1 ? [item(depth + 1), item(depth + 1)] : [],
  nn: depth === 1 ? null : 'NN',
  big: 2 ** 40,
  bad: 'PURPLE',
  nan: Number.NaN,
  objAsString: { x: 1 },
  notList: 7,
  lost: { kind: 'alien' },
  method: () => 'called',
  promised: Promise.resolve('kept'),
});
const ann = {
  name: 'Ann',
  age: 30,
  nick: null,
  friends: [
    { name: 'Bob', age: null, nick: 'b' },
    { name: 'Cy', nick: null },
  ],
};
const field = (type: string, name: string) => (schema.getType(type) as GraphQLObjectType).getFields()[name]!;
const roots: Record<string, unknown> = {
  item: item(),
  person: ann,
  named: [ann, { name: 'R2', model: 'astromech' }],
  things: [{ name: 'R2', model: 'x' }, null, ann],
  nn: item(),
};
for (const [name, value] of Object.entries(roots)) field('Query', name).resolve = () => value;
field('Query', 'items').resolve = async () => [item(), item()];
field('Query', 'filter').resolve = (_source, args) => JSON.stringify(args);
field('Query', 'boomRoot').resolve = () => null;
field('Query', 'json').resolve = (_source, args) => args.v;
field('Item', 'boom').resolve = () => {
  throw new Error('boom');
};
field('Item', 'boomNN').resolve = () => {
  throw new Error('boomNN');
};
field('Item', 'asyncBoom').resolve = async () => {
  await null;
  throw new Error('async boom');
};
field('Item', 'coded').resolve = () => {
  throw new GraphQLError('coded', { extensions: { code: 'NOPE' } });
};
field('Item', 'echo').resolve = (_source, args) => JSON.stringify(args);
const pushed: string[] = [];
field('Mutation', 'push').resolve = async (_source, { v }) => {
  await new Promise((resolve) => setTimeout(resolve, v === 'slow' ? 5 : 0));
  pushed.push(v);
  return [...pushed];
};
(schema.getType('Named') as unknown as { resolveType: unknown }).resolveType = (value: object) =>
  'age' in value ? 'Person' : 'Robot';
(schema.getType('Thing') as unknown as { resolveType: unknown }).resolveType = (value: { kind?: string }) =>
  value.kind === 'alien' ? 'Alien' : 'model' in value ? 'Robot' : 'Person';
Object.assign(schema.getType('JSON') as GraphQLScalarType, {
  serialize: (value: unknown) => value,
  parseValue: (value: unknown) => value,
});

const server = (options?: ExecutionOptions) =>
  createYoga({ schema, plugins: options ? [useExecution(schema, options)] : [], logging: false });
const graphqlJs = server();
const compiledAtOnce = server({ compileAfter: 0 });

async function answer(
  yoga: ReturnType<typeof server>,
  query: string,
  variables?: unknown,
  operationName?: string,
) {
  const response = await yoga.fetch('http://localhost/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query, variables, operationName }),
  });
  return { status: response.status, body: await response.text() };
}

type Answer = Awaited<ReturnType<typeof answer>>;
type Errors = { message: string; path: (string | number)[] }[];
const parsed = ({ body }: Answer) => JSON.parse(body) as { data: unknown; errors: Errors };
const sorted = (errors: Errors) => errors.map((error) => JSON.stringify(error)).sort();

interface Case {
  query: string;
  variables?: Record<string, unknown>;
  operationName?: string;
  /** How the compiled answer may differ from graphql-js's (byte for byte the same otherwise). */
  differs?: (compiled: Answer, interpreted: Answer) => void;
}

/** The same errors, in another order: graphql-js lists them as they happen (synchronous ones first). */
const errorsInAnotherOrder = (compiled: Answer, interpreted: Answer) => {
  expect(parsed(compiled).data).toEqual(parsed(interpreted).data);
  expect(sorted(parsed(compiled).errors)).toEqual(sorted(parsed(interpreted).errors));
};

/**
 * More errors: graphql-js stops completing an object at its first failing non-null field, graphql-jit
 * completes the object and reports each failing field (one error per field, as the spec asks).
 */
const moreErrorsUnderANulledField = (nulled: string) => (compiled: Answer, interpreted: Answer) => {
  expect(parsed(compiled).data).toEqual(parsed(interpreted).data);
  const expected = sorted(parsed(interpreted).errors);
  const extra = sorted(parsed(compiled).errors).filter((error) => !expected.includes(error));
  expect(sorted(parsed(compiled).errors)).toEqual(expect.arrayContaining(expected));
  expect(extra.length).toBeGreaterThan(0);
  for (const error of extra) expect((JSON.parse(error) as Errors[number]).path.join('.')).toMatch(nulled);
};

/** graphql-js shows the message of this error of the server's own; compiled, it is masked (and logged). */
const maskedHere = (compiled: Answer, interpreted: Answer) => {
  const [shown] = parsed(interpreted).errors;
  expect(parsed(compiled).data).toEqual(parsed(interpreted).data);
  expect(parsed(compiled).errors).toEqual([
    { ...shown, message: 'Unexpected error.', extensions: { code: 'INTERNAL_SERVER_ERROR' } },
  ]);
};

const conditional = `fragment Light on Item { d a } fragment Full on Item { a b c d }
  query Q($light: Boolean!, $full: Boolean!) { item { ...Light @include(if: $light) ...Full @include(if: $full) } }`;

const cases: Record<string, Case> = {
  // Conditions: graphql-jit leaves a skipped field as an undefined property, orders the fields
  // of conditional spreads by their first appearance in any spread (included or not), and its
  // default mode gives every spread of a fragment the conditions of the first: the executor
  // compiles each set of condition values on its own, with the conditions decided.
  'fields of conditional spreads, in graphql-js’s order': {
    query: conditional,
    variables: { light: false, full: true },
  },
  'fields of conditional spreads, the other way': {
    query: conditional,
    variables: { light: true, full: false },
  },
  'skip and include on one field': {
    query: `query Q($s: Boolean!, $i: Boolean!) { item { a @skip(if: $s) @include(if: $i) b c @skip(if: $s) } }`,
    variables: { s: false, i: true },
  },
  'skip and include, skipped': {
    query: `query Q($s: Boolean!, $i: Boolean!) { item { a @skip(if: $s) @include(if: $i) b c @skip(if: $s) } }`,
    variables: { s: true, i: true },
  },
  'literal conditions': {
    query: `{ item { a @include(if: false) b @skip(if: true) c @include(if: true) d @skip(if: false) } }`,
  },
  'a condition from a default value': {
    query: `query Q($x: Boolean = true) { item { a @include(if: $x) b } }`,
  },
  'a condition given null': {
    query: `query Q($x: Boolean = true) { item { a @include(if: $x) b } }`,
    variables: { x: null },
  },
  'a condition that is no boolean': {
    query: `query Q($x: Boolean!) { item { a @include(if: $x) b } }`,
    variables: { x: 'yes' },
  },
  'a condition missing': { query: `query Q($x: Boolean!) { item { a @include(if: $x) b } }`, variables: {} },
  'one fragment spread under two conditions': {
    query: `fragment P on Item { a b }
      query Q($h: Boolean!, $t: Boolean!) { item { c ...P @include(if: $h) } other: item { ...P @include(if: $t) } }`,
    variables: { h: false, t: true },
  },
  'a conditional field merged with an unconditional one': {
    query: `query Q($v: Boolean!) { item { obj { a } obj @include(if: $v) { b } c } }`,
    variables: { v: false },
  },
  'a conditional field merged, included': {
    query: `query Q($v: Boolean!) { item { obj { a } obj @include(if: $v) { b } c } }`,
    variables: { v: true },
  },
  'every field of an object skipped': {
    query: `query Q($v: Boolean!) { item { obj { a @include(if: $v) } } }`,
    variables: { v: false },
  },
  'every root field skipped': {
    query: `query Q($v: Boolean!) { item @include(if: $v) { a } }`,
    variables: { v: false },
  },
  'conditions in nested fragments': {
    query: `fragment In on Item { b @include(if: $y) a } fragment Out on Item { ...In @skip(if: $x) c }
      query Q($x: Boolean!, $y: Boolean!) { item { d ...Out obj { ...Out } } }`,
    variables: { x: false, y: true },
  },
  'conditional inline fragments': {
    query: `query Q($x: Boolean!) { item { ... @include(if: $x) { a } ... on Item @skip(if: $x) { b } c } }`,
    variables: { x: true },
  },
  __typename: {
    query: `{ __typename item { __typename a } named { __typename name } things { __typename } }`,
  },
  'abstract types': {
    query: `fragment N on Named { name } { named { ... on Robot { model } ...N ... on Person { age name } }
      things { ... on Person { friends { name } } ... on Robot { name model } } }`,
  },
  'aliases and arguments': { query: `{ item { x: echo y: echo(x: 5, s: "s") echo(x: 1) } }` },
  'variables in a fragment’s arguments': {
    query: `fragment E on Item { echo(x: $n, s: $s) } query Q($n: Int, $s: String = "d") { item { ...E } }`,
    variables: { n: 9 },
  },
  'an operation picked by name': {
    query: `query A { item { a } } query B { item { b } }`,
    operationName: 'B',
  },
  'lists in lists': { query: `{ items { items { items { a } obj { obj { n } } } } }` },
  'custom scalars': { query: `{ item { json } json(v: {a: [1, "x"]}) }` },
  'a custom scalar variable': {
    query: `query Q($v: JSON) { json(v: $v) }`,
    variables: { v: { deep: [1, null, { z: true }] } },
  },
  'mutations one after the other': { query: `mutation { a: push(v: "slow") b: push(v: "fast") }` },
  'introspection (always graphql-js)': {
    query: `{ __schema { queryType { name } } __type(name: "Item") { fields { name } } }`,
  },

  // Errors: graphql-jit's carry line and column but no nodes, which Yoga needs to rebuild them
  // (they lost their locations), come after `data`, and its own errors wrap nothing (Yoga did not
  // mask them): the executor makes them as graphql-js's `locatedError` does.
  'a resolver’s error': { query: `{ item { a boom b } }` },
  'a resolver’s error in a non-null field': { query: `{ item { a boomNN b } }` },
  'an asynchronous resolver’s error': { query: `{ item { asyncBoom a } }` },
  'an error with extensions': { query: `{ item { coded } }` },
  'null in non-null fields of list items': { query: `{ item { items { nn a } } }` },
  'null in a non-null root field': { query: `{ boomRoot item { a } }` },
  'an error reaching a non-null root field': { query: `{ nn { boomNN } item { a } }` },
  'null in non-null items of a non-null root list': { query: `{ items { nn } }` },
  'errors of synchronous and asynchronous fields': {
    query: `{ item { boom coded asyncBoom items { boom } } }`,
    differs: errorsInAnotherOrder,
  },
  'null in a non-null list item': {
    query: `{ item { strict { nn } } }`,
    differs: moreErrorsUnderANulledField('item.strict'),
  },
  'errors under a field nulled by another': {
    query: `{ person { name nick friends { name nick } } }`,
    differs: moreErrorsUnderANulledField('person'),
  },
  'a list field whose value is no list': { query: `{ item { notList } }`, differs: maskedHere },
  'an abstract type resolved to no type of the schema': {
    query: `{ item { lost { __typename } } }`,
    differs: maskedHere,
  },

  // Variables: graphql-jit coerces them with messages of its own (and no locations, and Yoga
  // answered 200 instead of 400): the executor lets graphql-js report them.
  'input coercion (a value for a list)': {
    query: `query Q($f: Filter, $ids: [Int!]) { filter(f: $f, ids: $ids) }`,
    variables: { f: { min: 1, tags: 'one' }, ids: 4 },
  },
  'input defaults': {
    query: `query Q($f: Filter) { filter(f: $f) }`,
    variables: { f: { min: 1, nested: { min: 2 } } },
  },
  'a variable of the wrong type': { query: `query Q($n: Int) { filter(n: $n) }`, variables: { n: 'x' } },
  'a variable out of range': { query: `query Q($n: Int) { filter(n: $n) }`, variables: { n: 2 ** 40 } },
  'a float for an Int': { query: `query Q($n: Int) { filter(n: $n) }`, variables: { n: 1.5 } },
  'a required variable missing': { query: `query Q($n: Int!) { filter(n: $n) }`, variables: {} },
  'null for a non-null variable': { query: `query Q($n: Int!) { filter(n: $n) }`, variables: { n: null } },
  'an unknown input field': {
    query: `query Q($f: Filter) { filter(f: $f) }`,
    variables: { f: { min: 1, what: 2 } },
  },
  'a missing input field': { query: `query Q($f: Filter) { filter(f: $f) }`, variables: { f: { tags: [] } } },
  'an unknown enum value': {
    query: `query Q($f: Filter) { filter(f: $f) }`,
    variables: { f: { min: 1, color: 'BLUE' } },
  },
  'null in a list of non-null': {
    query: `query Q($ids: [Int!]) { filter(ids: $ids) }`,
    variables: { ids: [1, null] },
  },
  'several variable errors': {
    query: `query Q($n: Int!, $ids: [Int!]) { filter(n: $n, ids: $ids) }`,
    variables: { ids: ['a'] },
  },
  // graphql-jit generates the coercion of a recursive input type without end (out of memory).
  'a recursive input type (always graphql-js)': {
    query: `query Q($t: Tree) { filter(t: $t) }`,
    variables: { t: { label: 'a', children: [{ children: [] }] } },
  },
};

describe('compiled execution answers /graphql clients as graphql-js does', () => {
  for (const [name, { query, variables, operationName, differs }] of Object.entries(cases)) {
    it(name, async () => {
      pushed.length = 0;
      const interpreted = await answer(graphqlJs, query, variables, operationName);
      pushed.length = 0;
      const compiled = await answer(compiledAtOnce, query, variables, operationName);
      if (differs) {
        expect(compiled.status).toBe(interpreted.status);
        differs(compiled, interpreted);
      } else expect(compiled).toEqual(interpreted);
    });
  }

  it('answers leaf values as the fields give them, where graphql-js converts or reports them', async () => {
    // Left so (graphql-jit's disableLeafSerialization, on the assurances the module lists): a
    // value's checks cost every leaf of every item two arrays.
    const query = '{ item { big bad nan objAsString } }';
    const interpreted = parsed(await answer(graphqlJs, query));
    expect(interpreted.data).toEqual({ item: { big: null, bad: null, nan: null, objAsString: null } });
    expect(interpreted.errors).toHaveLength(4);
    const compiled = parsed(await answer(compiledAtOnce, query));
    expect(compiled).toEqual({
      data: { item: { big: 2 ** 40, bad: 'PURPLE', nan: null, objAsString: { x: 1 } } },
    });
  });

  it('reads a field without a resolver as a property, where graphql-js also calls or awaits it', async () => {
    // Left so: Pothos types an exposed field's parent with the field's value (neither a function
    // nor a promise), and reading the property is much of what compiling saves.
    const query = '{ item { method promised } }';
    expect(parsed(await answer(graphqlJs, query)).data).toEqual({
      item: { method: 'called', promised: 'kept' },
    });
    // A function is no JSON value (the field is left out of the text), a promise an empty object.
    expect(parsed(await answer(compiledAtOnce, query)).data).toEqual({ item: { promised: {} } });
  });
});

/** Runs documents through Yoga's pipeline as the REST layer does (no parsing, no validation). */
function pipeline(options: ExecutionOptions) {
  const yoga = createYoga({ schema, plugins: [useExecution(schema, options)], logging: false });
  return async (
    document: DocumentNode,
    variableValues: Record<string, unknown> = {},
    operationName?: string,
  ) => {
    const { execute, contextFactory } = yoga.getEnveloped({});
    return (await execute({
      schema,
      document,
      operationName,
      variableValues,
      contextValue: await contextFactory(),
    })) as ExecutionResult;
  };
}

describe('which operations run compiled', () => {
  beforeEach(() => {
    compilations.mockClear();
  });
  const light = parse('query Light($full: Boolean!) { item { a b @include(if: $full) } }');

  it('compiles a trusted document at its first execution, and each set of condition values once', async () => {
    const run = pipeline({ trusted: [light] });
    expect((await run(light, { full: false })).data).toEqual({ item: { a: 'A' } });
    expect(compilations).toHaveBeenCalledTimes(1);
    expect((await run(light, { full: true })).data).toEqual({ item: { a: 'A', b: 'B' } });
    await run(light, { full: true });
    await run(light, { full: false });
    expect(compilations).toHaveBeenCalledTimes(2);
  });

  it('compiles a client’s document once it has run interpreted `compileAfter` times', async () => {
    const run = pipeline({ compileAfter: 2 });
    const document = parse('{ item { a } }');
    await run(document);
    await run(document);
    expect(compilations).not.toHaveBeenCalled();
    expect((await run(document)).data).toEqual({ item: { a: 'A' } });
    await run(document);
    expect(compilations).toHaveBeenCalledTimes(1);
  });

  it('keeps one compilation per operation name of a document', async () => {
    const run = pipeline({ compileAfter: 0 });
    const document = parse('query A { item { a } } query B { item { b } }');
    expect((await run(document, {}, 'A')).data).toEqual({ item: { a: 'A' } });
    expect((await run(document, {}, 'B')).data).toEqual({ item: { b: 'B' } });
    await run(document, {}, 'A');
    expect(compilations).toHaveBeenCalledTimes(2);
  });

  it('compiles a shared fragment for each document with that document’s conditions', async () => {
    // The REST documents share their fragments' nodes; graphql-jit wrote a fragment's conditions
    // into its nodes, and a list operation compiled first left a single read with its __typename.
    const [fragment] = parse('fragment Shared on Item { a b }').definitions;
    const withShared = (text: string): DocumentNode => ({
      kind: Kind.DOCUMENT,
      definitions: [...parse(text).definitions, fragment!],
    });
    const list = withShared('query ListLike($full: Boolean!) { item { c ...Shared @include(if: $full) } }');
    const single = withShared('query SingleLike($asRef: Boolean!) { item { ...Shared @skip(if: $asRef) } }');
    const run = pipeline({ trusted: [list, single] });
    expect((await run(list, { full: false })).data).toEqual({ item: { c: 'C' } });
    expect((await run(single, { asRef: false })).data).toEqual({ item: { a: 'A', b: 'B' } });
  });

  it('leaves introspection and recursive input types to graphql-js', async () => {
    const run = pipeline({ compileAfter: 0 });
    await run(parse('{ __schema { queryType { name } } }'));
    await run(parse('query Q($t: Tree) { filter(t: $t) }'), { t: { children: [] } });
    expect(compilations).not.toHaveBeenCalled();
  });

  it('compiles a few sets of condition values of an operation at most', async () => {
    const run = pipeline({ compileAfter: 0 });
    const variables = Array.from({ length: 5 }, (_, i) => `$v${i}: Boolean!`).join(', ');
    const fields = Array.from({ length: 5 }, (_, i) => `f${i}: a @include(if: $v${i})`).join(' ');
    const document = parse(`query Many(${variables}) { item { ${fields} } }`);
    for (let i = 0; i < 32; i++) {
      const values = Object.fromEntries(
        Array.from({ length: 5 }, (_, bit) => [`v${bit}`, Boolean(i & (1 << bit))]),
      );
      const { data } = await run(document, values);
      expect(Object.keys((data as { item: object }).item)).toHaveLength(
        Object.values(values).filter(Boolean).length,
      );
    }
    expect(compilations).toHaveBeenCalledTimes(8);
  });

  it('drops the least recently run compilations beyond `maxCompiledFields`', async () => {
    const run = pipeline({ compileAfter: 0, maxCompiledFields: 5 });
    const three = parse('{ item { a b c } }');
    const two = parse('{ item { d } }');
    await run(three);
    await run(two);
    await run(three);
    await run(three);
    // 4 fields, then 6: `three`, the older, went (and came back), then `two` went.
    expect(compilations).toHaveBeenCalledTimes(3);
    await run(two);
    expect(compilations).toHaveBeenCalledTimes(4);
  });

  it('spends a bounded time compiling clients’ documents', async () => {
    const run = pipeline({ compileAfter: 0, compileMsPerSecond: 0.001 });
    // The burst allows the first; the budget is then spent for a long while.
    await run(parse('{ item { a } }'));
    for (let i = 0; i < 5; i++)
      expect((await run(parse(`{ item { b${'c'.repeat(i)}: b } }`))).data).toBeDefined();
    expect(compilations).toHaveBeenCalledTimes(1);
  });
});
