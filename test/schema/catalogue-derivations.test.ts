/**
 * A field declared in the catalogue alone reaches every list that derives from it: the legacy JSON
 * (after the legacy service's fields), a legacy body's wire table, the OpenAPI resource schema, the
 * service's validation, the lists' indexes and their documentation, and the harvest triggers of the
 * next migration. The catalogue is extended here, in a fresh module graph, by a field no code names
 * (`extraNote`): what a maintainer adding a field gets without writing a line in these files.
 * resource-fields.test.ts checks the real catalogue against what cannot derive from it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { StoredResource } from '../../src/legacy/resource-json.ts';

const CATALOGUE = '../../src/catalogue/resource-fields.ts';

/** The modules under test, loaded against the catalogue with `extraNote` added. */
async function withExtraField() {
  vi.resetModules();
  vi.doMock(CATALOGUE, async (importOriginal) => {
    const real = await importOriginal<typeof import('../../src/catalogue/resource-fields.ts')>();
    const RESOURCE_FIELDS = {
      ...real.RESOURCE_FIELDS,
      extraNote: {
        description: 'A note added after the legacy service.',
        kind: 'text',
        nullable: true,
        part: 'detail',
        writer: 'caller',
        filterable: 'list',
        harvest: 'restamps',
      },
    } as unknown as typeof real.RESOURCE_FIELDS;
    const resourceFields = Object.entries(RESOURCE_FIELDS) as typeof real.resourceFields;
    const fieldsWhere: typeof real.fieldsWhere = (test) =>
      resourceFields.filter(([, spec]) => test(spec)).map(([name]) => name);
    return {
      ...real,
      RESOURCE_FIELDS,
      resourceFields,
      fieldsWhere,
      BODY_FIELDS: fieldsWhere((field) => field.writer !== 'service').concat('oid'),
    };
  });
  return {
    json: await import('../../src/legacy/resource-json.ts'),
    wire: await import('../../src/legacy/resource-input.ts'),
    schemas: await import('../../src/legacy/json-schemas.ts'),
    validation: await import('../../src/modules/resources/resource-input.ts'),
    filters: await import('../../src/modules/lists/filters.ts'),
    parameters: await import('../../src/rest/api-schemas.ts'),
    triggers: await import('../../scripts/harvest-triggers.ts'),
  };
}

afterEach(() => {
  vi.doUnmock(CATALOGUE);
  vi.resetModules();
});

describe('a field added to the catalogue alone', () => {
  it('is sent in the legacy JSON after the legacy fields, before relations', async () => {
    const { json } = await withExtraField();
    expect(json.FIELDS_SINCE_LEGACY.at(-1)).toBe('extraNote');
    // A stored state with the fields this test reads (extraNote is no field of the generated types).
    const state = { relations: [], extraNote: 'n', archiveOid: null } as unknown as StoredResource;
    const legacy = json.legacyResourceJson(state);
    const keys = Object.keys(legacy);
    expect(keys.slice(-2)).toEqual(['extraNote', 'relations']);
    expect(keys.indexOf('archiveOid')).toBeLessThan(keys.indexOf('extraNote'));
    expect(legacy.extraNote).toBe('n');
  });

  it('is taken from a legacy body, checked by its kind', async () => {
    const { wire } = await withExtraField();
    expect(wire.resourceInput({ extraNote: 'n' })).toEqual({
      input: { extraNote: 'n' },
      ignoredProperties: [],
    });
    expect(wire.resourceInput({ extraNote: null }).input).toEqual({ extraNote: null });
    expect(() => wire.resourceInput({ extraNote: 3 })).toThrow(/extraNote : doit être une chaîne/);
  });

  it('is validated by the service by its kind, nullable as declared', async () => {
    const { validation } = await withExtraField();
    expect(validation.parseResourceInput({ extraNote: 'n' }).fields).toEqual({ extraNote: 'n' });
    expect(validation.parseResourceInput({ extraNote: null }).fields).toEqual({ extraNote: null });
    expect(() => validation.parseResourceInput({ extraNote: 3 })).toThrow(/extraNote/);
  });

  it('is described in the OpenAPI resource schema, from its catalogue description', async () => {
    const { schemas } = await withExtraField();
    const resource = schemas.componentSchemas.Resource as {
      properties: Record<string, unknown>;
      required: string[];
    };
    expect(resource.properties.extraNote).toEqual({
      type: ['string', 'null'],
      description: 'A note added after the legacy service.',
    });
    expect(resource.required).not.toContain('extraNote');
  });

  it('is a list index when declared one: filtered, ordered on, present when not null, documented', async () => {
    const { filters, parameters } = await withExtraField();
    const index = filters.indexDefinition('extraNote');
    expect(index).toMatchObject({
      kind: 'string',
      orderBy: 'extraNote',
      present: { extraNote: { not: null } },
    });
    expect(index?.where(['a', 'b'] as never[], {} as never)).toEqual({ extraNote: { in: ['a', 'b'] } });
    expect(parameters.LIST_INDEXES).toContain('extraNote');
    expect(parameters.SORTABLE_INDEXES).toContain('extraNote');
  });

  it('restamps harvested records when declared to: the next migration rewrites both triggers', async () => {
    const { triggers } = await withExtraField();
    expect(triggers.comparedColumns()).toContain('extraNote');
    const current = (dialect: 'sqlite' | 'postgresql') =>
      readdirSync(join('prisma/migrations', dialect))
        .filter((name) => /^\d+_/.test(name))
        .sort()
        .map((name) => readFileSync(join('prisma/migrations', dialect, name, 'migration.sql'), 'utf8'));
    expect(triggers.harvestTriggerChange('sqlite', current('sqlite'))).toContain(
      'OR OLD."extraNote" IS NOT NEW."extraNote"',
    );
    expect(triggers.harvestTriggerChange('postgresql', current('postgresql'))).toMatch(/o\."extraNote"/);
  });
});
