/**
 * The schema is what new front ends are written against: typed arguments GraphiQL can complete,
 * and a description on everything it shows.
 */
import { buildSchema } from 'graphql';
import { describe, expect, it } from 'vitest';
import { descriptionCoverage, rootJsonArguments } from '../../src/gateway/description-audit.ts';
import { schema } from '../../src/gateway/schema.ts';

describe('root-field arguments', () => {
  it('are typed: none takes the JSON scalar (free-form values live inside typed inputs)', () => {
    expect(rootJsonArguments(schema)).toEqual([]);
  });

  it('are reported when one takes JSON, or a list of it', () => {
    const untyped = buildSchema(`
      scalar JSON
      input Typed { payload: JSON }
      type Query { ok(input: Typed): Int, blob(input: JSON!): Int }
      type Mutation { blobs(items: [JSON!]): Int }
    `);
    expect(rootJsonArguments(untyped)).toEqual(['Query.blob(input:)', 'Mutation.blobs(items:)']);
  });
});

describe('descriptions', () => {
  it('cover every type, field, argument, input field and enum value', () => {
    const coverage = descriptionCoverage(schema);
    const percent = (100 * coverage.described) / coverage.total;
    console.log(
      `schema description coverage: ${coverage.described}/${coverage.total} (${percent.toFixed(1)} %)`,
    );
    expect(coverage.missing).toEqual([]);
    expect(percent).toBeGreaterThanOrEqual(95);
  });

  it('are reported missing wherever a schema forgets one', () => {
    const bare = buildSchema(`
      """Described."""
      type Query {
        """Described."""
        ok: Int
        bare(arg: Int): Kind
      }
      enum Kind { A }
      input Filter { index: String }
    `);
    expect(descriptionCoverage(bare).missing).toEqual([
      'Query.bare',
      'Query.bare(arg:)',
      'Kind',
      'Kind.A',
      'Filter',
      'Filter.index',
    ]);
  });
});

describe('permission scopes', () => {
  it('show on the root fields that need a permission', () => {
    const scopesOf = (name: string) =>
      (schema.getMutationType()?.getFields()[name]?.extensions?.pothosOptions as { authScopes?: unknown })
        ?.authScopes;
    for (const name of ['createGroup', 'createGroupFromName'])
      expect(scopesOf(name), name).toEqual({ $all: { person: true, permission: 'createGroupe' } });
  });
});
