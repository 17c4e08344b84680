/** The schema as an artefact: printed copy current, every root field guarded, documents valid. */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import SchemaBuilder from '@pothos/core';
import ScopeAuthPlugin from '@pothos/plugin-scope-auth';
import { GraphQLEnumType, getNamedType, isInterfaceType, isObjectType, printSchema } from 'graphql';
import { describe, expect, it } from 'vitest';
import { rootFieldsWithoutAuthScopes } from '../../src/gateway/auth-audit.ts';
import { loadOperations, OperationDocumentError } from '../../src/gateway/operations.ts';
import { schema } from '../../src/gateway/schema.ts';
import { loadRestOperations } from '../../src/rest/operations.ts';
import type { LegacyRoute } from '../../src/rest/route-table.ts';
import { buildLegacyRouter } from '../../src/rest/router.ts';
import { legacyRoutes } from '../../src/rest/routes/index.ts';
import { scratchDir } from '../support/scratch.ts';

describe('schema.graphql', () => {
  it('is the printed schema of the code (npm run schema:print)', () => {
    expect(readFileSync('schema.graphql', 'utf8')).toBe(`${printSchema(schema)}\n`);
  });
});

describe('leaf values', () => {
  // The compiled executor answers String, Int, Boolean and enum values as the fields give them
  // (graphql-jit's disableLeafSerialization, src/gateway/execution.ts): only where serializing a
  // correct value changes nothing.
  const types = Object.values(schema.getTypeMap()).filter((type) => !type.name.startsWith('__'));

  it('no enum has a value other than its name', () => {
    const renamed = types
      .filter((type) => type instanceof GraphQLEnumType)
      .flatMap((type) => type.getValues().filter((value) => value.value !== value.name))
      .map((value) => value.name);
    expect(renamed).toEqual([]);
  });

  it('no output field is an ID (a number answered as text) or a Float (NaN answered as an error)', () => {
    const fields = types
      .filter((type) => isObjectType(type) || isInterfaceType(type))
      .flatMap((type) => Object.values(type.getFields()).map((field) => ({ type, field })))
      .filter(({ field }) => ['ID', 'Float'].includes(getNamedType(field.type).name))
      .map(({ type, field }) => `${type.name}.${field.name}`);
    expect(fields).toEqual([]);
  });
});

describe('auth scopes', () => {
  it('are declared on every root field', () => {
    expect(rootFieldsWithoutAuthScopes(schema)).toEqual([]);
  });

  it('are reported missing when a field forgets them', () => {
    const options = { plugins: [ScopeAuthPlugin], scopeAuth: { authScopes: () => ({ public: true }) } };
    // plugin-prisma's type augmentation requires a `prisma` option on every builder; this one has no Prisma.
    const builder = new SchemaBuilder<{ AuthScopes: { public: boolean } }>(options as never);
    builder.queryType({
      fields: (t) => ({
        guarded: t.string({ authScopes: { public: true }, resolve: () => 'x' }),
        forgotten: t.string({ resolve: () => 'x' }),
      }),
    });
    builder.mutationType({ fields: (t) => ({ alsoForgotten: t.string({ resolve: () => 'x' }) }) });
    expect(rootFieldsWithoutAuthScopes(builder.toSchema())).toEqual([
      'Query.forgotten',
      'Mutation.alsoForgotten',
    ]);
  });
});

describe('legacy operation documents', () => {
  it('all validate against the schema, and every route names an existing operation', () => {
    const operations = loadRestOperations(schema);
    const used = new Set(legacyRoutes.flatMap((route) => ('operation' in route ? [route.operation] : [])));
    for (const name of used) expect(operations.has(name), name).toBe(true);
    expect(() =>
      buildLegacyRouter(
        legacyRoutes,
        operations,
        async () => ({}),
        () => () => {},
      ),
    ).not.toThrow();
  });

  it.each([
    ['a syntax error', 'query Broken { result: viewer { '],
    ['an unknown field', 'query Broken { result: viewer { nope } }'],
    ['an anonymous operation', '{ result: viewer { kind } }'],
    ['no result alias', 'query Broken { viewer { kind } }'],
  ])('stop the service on %s', (_label, source) => {
    const dir = scratchDir('ops');
    writeFileSync(join(dir, 'broken.graphql'), source);
    expect(() => loadOperations(schema, dir)).toThrow(OperationDocumentError);
  });

  it('stop the service when a route names an operation that does not exist', () => {
    // A row out of step with the documents: its types refuse it too (src/legacy/operations.generated.ts).
    const routes = [{ method: 'get', paths: ['/x'], operation: 'Missing' }] as unknown as LegacyRoute[];
    expect(() =>
      buildLegacyRouter(
        routes,
        loadRestOperations(schema),
        async () => ({}),
        () => () => {},
      ),
    ).toThrow(/unknown operation Missing/);
  });

  it('stop the service when a GET route runs a mutation without saying it changes state', () => {
    const operations = loadRestOperations(schema);
    const route = { method: 'get' as const, paths: ['/api/x'], operation: 'JoinGroup' as const };
    const build = (routes: LegacyRoute[]) => () =>
      buildLegacyRouter(
        routes,
        operations,
        async () => ({}),
        () => () => {},
      );
    expect(build([route])).toThrow(/runs the mutation JoinGroup: mark it changesState/);
    expect(build([{ ...route, changesState: true }])).not.toThrow();
  });

  it('stop the service when a route path does not start with two fixed segments (requests are dispatched by them)', () => {
    const operations = loadRestOperations(schema);
    const build = (path: string) => () =>
      buildLegacyRouter(
        [{ method: 'get', paths: [path], operation: 'ResourceByOid' }],
        operations,
        async () => ({}),
        () => () => {},
      );
    expect(build('/api/:oid')).toThrow(/starts with two fixed segments/);
    expect(build('/api')).toThrow(/starts with two fixed segments/);
    expect(build('/api/ressource/:oid')).not.toThrow();
  });
});
