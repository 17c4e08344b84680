/**
 * The resource field catalogue (src/catalogue/resource-fields.ts) against everything that cannot
 * derive from it: the Prisma schemas of both databases, the GraphQL types, the REST layer's
 * fragment, legacy JSON and OpenAPI schema, and the harvest triggers of both databases. A field
 * added to one of them and not to the catalogue, or the other way round, fails here by name.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  type GraphQLField,
  type GraphQLInputObjectType,
  type GraphQLInputType,
  type GraphQLObjectType,
  isNonNullType,
  parse,
} from 'graphql';
import { describe, expect, it } from 'vitest';
import { harvestTriggerChange, latestHarvestTrigger } from '../../scripts/harvest-triggers.ts';
import {
  BODY_FIELDS,
  DATABASE_KEPT_COLUMNS,
  type FieldKind,
  fieldsWhere,
  type ResourceFieldSpec,
  resourceFields,
} from '../../src/catalogue/resource-fields.ts';
import { schema } from '../../src/gateway/schema.ts';
import { componentSchemas } from '../../src/legacy/json-schemas.ts';
import { resourceInput } from '../../src/legacy/resource-input.ts';
import { legacyResourceJson, type StoredResource } from '../../src/legacy/resource-json.ts';
import { parseResourceInput } from '../../src/modules/resources/resource-input.ts';

const names = resourceFields.map(([name]) => name);
const sorted = (list: Iterable<string>) => [...list].sort();

/** The scalar columns of `model Resource` in a Prisma schema: name → [type, optional, default]. */
function prismaColumns(file: string): Map<string, { type: string; optional: boolean; default?: string }> {
  const text = readFileSync(file, 'utf8');
  const body = /^model Resource \{\n([\s\S]*?)^\}/m.exec(text)?.[1];
  if (!body) throw new Error(`${file}: no model Resource`);
  const columns = new Map<string, { type: string; optional: boolean; default?: string }>();
  for (const line of body.split('\n')) {
    const match = /^\s+(\w+)\s+(String|Int|Boolean|DateTime|Json)(\?)?(?:\s|$)(.*)$/.exec(line);
    if (!match) continue;
    const fallback = /@default\(((?:[^()]|\([^()]*\))*)\)/.exec(match[4]!)?.[1];
    columns.set(match[1]!, { type: match[2]!, optional: match[3] === '?', default: fallback });
  }
  return columns;
}

const PRISMA_TYPES: Record<FieldKind, string> = {
  text: 'String',
  int: 'Int',
  boolean: 'Boolean',
  date: 'DateTime',
  json: 'Json',
};

/** A catalogue default as Prisma writes it in `@default(…)`. */
const prismaDefault = (value: ResourceFieldSpec['default']) =>
  typeof value === 'string' ? JSON.stringify(value) : value === undefined ? undefined : String(value);

/**
 * The columns that lead an index of `model Resource` (its id, a unique column, the first column of
 * an `@@index` or `@@unique`): a condition on one of them is answered from an index.
 */
function leadingIndexColumns(file: string): Set<string> {
  const body = /^model Resource \{\n([\s\S]*?)^\}/m.exec(readFileSync(file, 'utf8'))?.[1] ?? '';
  const leading = new Set<string>();
  for (const match of body.matchAll(/^\s+(\w+)\s+\w+\??\s.*@(?:id|unique)\b/gm)) leading.add(match[1]!);
  for (const match of body.matchAll(/@@(?:index|unique)\(\[\s*(\w+)/g)) leading.add(match[1]!);
  return leading;
}

describe.each(['prisma/schema.prisma', 'prisma/postgresql/schema.prisma'])('%s', (file) => {
  const columns = prismaColumns(file);

  it('has a column for each field of the catalogue, and no other but those the database keeps', () => {
    expect(sorted(columns.keys())).toEqual(sorted([...names, ...DATABASE_KEPT_COLUMNS]));
  });

  it.each(resourceFields)('stores %s as its kind, nullable as said', (name, field) => {
    const column = columns.get(name);
    expect(column?.type).toBe(PRISMA_TYPES[field.kind]);
    expect(column?.optional).toBe(field.nullable);
  });

  it.each(resourceFields.filter(([, field]) => field.default !== undefined && field.kind !== 'json'))(
    'defaults %s to what the service writes when it is left out',
    (name, field) => {
      expect(columns.get(name)?.default).toBe(prismaDefault(field.default));
    },
  );

  it.each(fieldsWhere((field) => field.filterable === 'list'))(
    'indexes %s, a list index callers filter and order on',
    (name) => {
      expect(leadingIndexColumns(file)).toContain(name);
    },
  );
});

const GRAPHQL_TYPES: Record<FieldKind, string> = {
  text: 'String',
  int: 'Int',
  boolean: 'Boolean',
  date: 'DateTime',
  json: 'JSON',
};

/** `String!`, `[JSON]`…: a field's GraphQL type, as the catalogue predicts it. */
function expectedType(field: ResourceFieldSpec): string {
  const type = GRAPHQL_TYPES[field.kind];
  return field.nullable ? type : `${type}!`;
}

describe('the GraphQL schema', () => {
  const resource = schema.getType('Resource') as GraphQLObjectType;
  const input = schema.getType('ResourceInput') as GraphQLInputObjectType;

  it.each(resourceFields)('Resource has %s, typed by its kind', (name, field) => {
    const graphqlField = resource.getFields()[name] as GraphQLField<unknown, unknown> | undefined;
    expect(String(graphqlField?.type)).toBe(expectedType(field));
  });

  it('Resource reads the catalogue fields off the document, with no resolver', () => {
    // A resolver costs the compiled executor a call, its info, path and closures per field and
    // item (src/gateway/execution.ts); a property is read in line.
    const resolved = names.filter((name) => resource.getFields()[name]?.resolve);
    expect(resolved).toEqual([]);
  });

  it('ResourceInput takes the fields a caller writes, and none the service writes but the oid', () => {
    const inputFields = Object.keys(input.getFields());
    const written = fieldsWhere((field) => field.writer !== 'service');
    expect(inputFields).toEqual(expect.arrayContaining(written));
    const managed = fieldsWhere((field) => field.writer === 'service').filter((name) => name !== 'oid');
    expect(inputFields.filter((name) => managed.includes(name as never))).toEqual([]);
  });

  it.each(resourceFields.filter(([name, field]) => field.writer !== 'service' && name !== 'enfants'))(
    'ResourceInput types %s by its kind, optional',
    (name, field) => {
      const type = input.getFields()[name]?.type as GraphQLInputType | undefined;
      expect(type && isNonNullType(type)).toBe(false);
      expect(String(type)).toBe(GRAPHQL_TYPES[field.kind]);
    },
  );
});

const writtenFields = resourceFields.filter(([name]) => BODY_FIELDS.includes(name));

/** A valid value of a field, by its kind (a rid where the field holds one). */
function sampleOf(name: string, field: ResourceFieldSpec): unknown {
  if (name === 'aliasOf') return 'ailleurs/1';
  if (name === 'licence') return 'CC-BY-SA-4.0';
  return { text: 'texte', int: 1, boolean: true, date: '2026-01-01T00:00:00.000Z', json: null }[field.kind];
}

describe('the REST layer', () => {
  it('its LegacyResource fragment selects every field', () => {
    const document = parse(readFileSync('src/rest/operations/fragments.graphql', 'utf8'));
    const fragment = document.definitions.find(
      (definition) => definition.kind === 'FragmentDefinition' && definition.name.value === 'LegacyResource',
    );
    const selected =
      fragment?.kind === 'FragmentDefinition'
        ? fragment.selectionSet.selections.flatMap((selection) =>
            selection.kind === 'Field' ? [selection.name.value] : [],
          )
        : [];
    expect(selected).toEqual(expect.arrayContaining(names));
  });

  it('its legacy JSON carries every field', () => {
    const resource = {
      ...Object.fromEntries(names.map((name) => [name, `value of ${name}`])),
      rid: 'x/1',
      relations: [],
    };
    // Each field a text that names it: whatever its type, it must come out under its own name.
    const legacy = legacyResourceJson(resource as unknown as StoredResource);
    for (const name of names) expect(legacy[name], name).toBe(`value of ${name}`);
  });

  it.each(writtenFields)('takes %s from a legacy body, and the service validates it', (name, field) => {
    const body = { [name]: sampleOf(name, field) };
    const { input, ignoredProperties } = resourceInput(body);
    expect(ignoredProperties).toEqual([]);
    const parsed = parseResourceInput(input);
    expect(parsed.warnings).toEqual([]);
    expect(parsed.posted.has(name)).toBe(true);
  });

  it('its OpenAPI resource schema describes every field, nullable as said', () => {
    const properties = (componentSchemas.Resource as { properties: Record<string, { type?: unknown }> })
      .properties;
    for (const [name, field] of resourceFields) {
      expect(properties[name], name).toBeDefined();
      const type = properties[name]!.type;
      if (type !== undefined) expect(Array.isArray(type) && type.includes('null'), name).toBe(field.nullable);
    }
  });
});

/** The latest migration of `dialect` whose SQL contains `marker`. */
function latestMigration(dialect: 'sqlite' | 'postgresql', marker: string): string {
  const folder = join('prisma/migrations', dialect);
  const texts = readdirSync(folder)
    .filter((name) => /^\d+_/.test(name))
    .sort()
    .map((name) => readFileSync(join(folder, name, 'migration.sql'), 'utf8'))
    .filter((text) => text.includes(marker));
  if (texts.length === 0) throw new Error(`No ${dialect} migration holds ${marker}`);
  return texts.at(-1)!;
}

describe('the harvest triggers', () => {
  const restamping = fieldsWhere((field) => field.harvest === 'restamps');
  const expected = sorted([...restamping, ...DATABASE_KEPT_COLUMNS]);

  it.each(['sqlite', 'postgresql'] as const)(
    'are, last in the %s history, what the catalogue writes (npm run db:migration:new adds them)',
    (dialect) => {
      const folder = join('prisma/migrations', dialect);
      const texts = readdirSync(folder)
        .filter((name) => /^\d+_/.test(name))
        .sort()
        .map((name) => readFileSync(join(folder, name, 'migration.sql'), 'utf8'));
      expect(harvestTriggerChange(dialect, texts)).toBe('');
      // Without the migration that wrote them last, the history is stale: the check can fail.
      const last = texts.findLastIndex((text) => latestHarvestTrigger(dialect, [text]) !== undefined);
      expect(harvestTriggerChange(dialect, texts.slice(0, last))).not.toBe('');
    },
  );

  it('compare, on SQLite, the fields whose change restamps a record, and no other', () => {
    const text = latestMigration('sqlite', 'CREATE TRIGGER "Resource_harvest_update"');
    const trigger = text.slice(text.indexOf('CREATE TRIGGER "Resource_harvest_update"'));
    const compared = new Set([...trigger.matchAll(/OLD\."(\w+)"/g)].map((match) => match[1]!));
    // `type` also decides whether `parametres` holds an address: compared either way.
    expect(sorted(compared)).toEqual(expected);
  });

  it('compare, on PostgreSQL, the fields whose change restamps a record, and no other', () => {
    const text = latestMigration('postgresql', 'CREATE OR REPLACE FUNCTION "resource_harvest"');
    const compared = new Set([...text.matchAll(/\bo\."(\w+)"/g)].map((match) => match[1]!));
    compared.delete('oid');
    expect(sorted(compared)).toEqual(expected);
  });

  it('decide visibility by harvested fields only, on both databases', () => {
    const harvested = new Set<string>([...fieldsWhere((field) => field.harvest !== undefined), 'oid']);
    const sqlite = latestMigration('sqlite', 'CREATE TRIGGER "Resource_harvest_update"');
    const postgresql = latestMigration('postgresql', 'CREATE OR REPLACE FUNCTION "resource_harvest"');
    const read = new Set([
      ...[...sqlite.matchAll(/NEW\."(\w+)"/g)].map((match) => match[1]!),
      ...[...postgresql.matchAll(/\bn\."(\w+)"/g)].map((match) => match[1]!),
    ]);
    for (const column of DATABASE_KEPT_COLUMNS) read.delete(column);
    expect(sorted([...read].filter((name) => !harvested.has(name)))).toEqual([]);
    expect(read).toContain('publie');
  });
});
