/**
 * List filters (src/modules/lists/filters.ts): parsing of values per kind of index, the condition
 * each index gives, ordering columns; without a database (the look-ups of names and pids are in
 * filters-lookups.test.ts).
 */
import { describe, expect, it } from 'vitest';
import type { Context } from '../../src/context.ts';
import { InvalidInputError } from '../../src/errors.ts';
import {
  FULLTEXT,
  filterCondition,
  INDEXES,
  indexDefinition,
  orderColumn,
  parseFilterValues,
} from '../../src/modules/lists/filters.ts';

const context = { config: { baseId: 'repo' } } as Context;
const parse = (index: string, values: unknown, max = 10) =>
  parseFilterValues({ index, values: values as unknown[] }, max);

describe('indexDefinition', () => {
  it('knows the indexes, and nothing an object inherits', () => {
    expect(indexDefinition('titre')).toBe(INDEXES.titre);
    for (const name of ['toString', '__proto__', 'constructor', 'hasOwnProperty', 'fulltext', 'couleur']) {
      expect(indexDefinition(name)).toBeUndefined();
    }
  });

  it('keeps `fulltext`, the legacy parameter of searched words, apart from the indexes', () => {
    expect(FULLTEXT).toBe('fulltext');
    expect(indexDefinition(FULLTEXT)).toBeUndefined();
  });
});

describe('parseFilterValues', () => {
  it('refuses an unknown index, a non-list and too many values, each with its message', () => {
    expect(parse('couleur', ['rouge'])).toEqual({ values: null, problems: ['Index couleur inconnu'] });
    expect(parse('titre', 'Fractions')).toEqual({
      values: null,
      problems: ['titre : values doit être une liste'],
    });
    expect(parse('titre', ['a', 'b', 'c'], 2)).toEqual({
      values: null,
      problems: ['titre : au plus 2 valeurs par filtre'],
    });
    expect(parse('titre', ['a', 'b'], 2)).toEqual({ values: ['a', 'b'], problems: [] });
  });

  it('takes absent values as "has the index"', () => {
    expect(parse('titre', null)).toEqual({ values: null, problems: [] });
    expect(parse('titre', undefined)).toEqual({ values: null, problems: [] });
  });

  it('strings: texts and numbers, as text', () => {
    expect(parse('titre', ['a', 3, ''])).toEqual({ values: ['a', '3', ''], problems: [] });
    expect(parse('titre', [true, null, {}]).problems).toEqual([
      'titre : valeur invalide (true)',
      'titre : valeur invalide (null)',
      'titre : valeur invalide ({})',
    ]);
  });

  it('integers: 32-bit numbers and decimal texts', () => {
    expect(parse('restriction', [0, '2', ' 3 ', '-1', 2_147_483_647])).toEqual({
      values: [0, 2, 3, -1, 2_147_483_647],
      problems: [],
    });
    for (const bad of [1.5, '1.5', '1e3', 'x', 2_147_483_648, true, null]) {
      expect(parse('restriction', [bad]).problems, String(bad)).toEqual([
        `restriction : valeur invalide (${JSON.stringify(bad)})`,
      ]);
    }
  });

  it('booleans: true/false, 1/0, in any of their spellings', () => {
    expect(parse('publie', [true, 'true', 1, '1', false, 'false', 0, '0'])).toEqual({
      values: [true, true, true, true, false, false, false, false],
      problems: [],
    });
    for (const bad of ['yes', 2, '', null, 'TRUE']) {
      expect(parse('publie', [bad]).problems, String(bad)).toHaveLength(1);
    }
  });

  it('dates: texts and timestamps a Date understands', () => {
    const { values, problems } = parse('dateCreation', ['2024-03-01', 0]);
    expect(problems).toEqual([]);
    expect((values as Date[]).map((date) => date.toISOString())).toEqual([
      '2024-03-01T00:00:00.000Z',
      '1970-01-01T00:00:00.000Z',
    ]);
    for (const bad of ['pas une date', true, null, {}]) {
      expect(parse('dateCreation', [bad]).problems, String(bad)).toHaveLength(1);
    }
  });
});

describe('filterCondition', () => {
  it.each([
    ['titre', ['a'], { titre: { in: ['a'] } }],
    ['oid', [3], { oid: { in: [3] } }],
    ['origine', ['o'], { origine: { in: ['o'] } }],
    ['idOrigine', ['i'], { idOrigine: { in: ['i'] } }],
    ['type', ['url'], { type: { in: ['url'] } }],
    ['langue', ['fre'], { langue: { in: ['fre'] } }],
    ['niveaux', ['6e'], { levels: { some: { level: { in: ['6e'] } } } }],
    ['categories', [7], { categories: { some: { categoryId: { in: [7] } } } }],
    ['typePedagogiques', [1], { pedagogicTypes: { some: { typeId: { in: [1] } } } }],
    ['typeDocumentaires', [2], { documentaryTypes: { some: { typeId: { in: [2] } } } }],
    ['restriction', [0, 2], { restriction: { in: [0, 2] } }],
    ['aliasOf', ['x/1'], { aliasOf: { in: ['x/1'] } }],
    ['publie', [true, false], { OR: [{ publie: true }, { publie: false }] }],
    ['publie', [], { oid: { in: [] } }],
    ['rid', ['repo/12', 'ailleurs/3', 'repo/x', 'repo/0'], { oid: { in: [12] } }],
  ])('%s %j', async (index, values, expected) => {
    expect(await filterCondition(context, index, values)).toEqual(expected);
  });

  it('dates: a date alone matches its whole day, a time matches exactly; none matches nothing', async () => {
    const day = new Date('2024-03-01T00:00:00.000Z');
    const instant = new Date('2024-03-01T10:20:30.000Z');
    for (const [index, column] of [
      ['dateCreation', 'dateCreation'],
      ['dateMiseAJour', 'dateMiseAJour'],
    ] as const) {
      expect(await filterCondition(context, index, [day, instant])).toEqual({
        OR: [
          { [column]: { gte: day, lt: new Date('2024-03-02T00:00:00.000Z') } },
          { [column]: { equals: instant } },
        ],
      });
      expect(await filterCondition(context, index, [])).toEqual({ oid: { in: [] } });
    }
    // Any time part, down to the millisecond, makes it exact.
    // Equal parts side by side too (01:01, 00:01:01, 00:00:01.001): no two of them cancel out.
    for (const time of [
      '00:00:00.001',
      '00:00:01.000',
      '00:01:00.000',
      '01:00:00.000',
      '01:01:00.000',
      '00:01:01.000',
      '00:00:01.001',
    ]) {
      const date = new Date(`2024-03-01T${time}Z`);
      expect(await filterCondition(context, 'dateCreation', [date])).toEqual({
        OR: [{ dateCreation: { equals: date } }],
      });
    }
  });

  it.each([
    ['titre', { titre: { not: '' } }],
    ['auteurs', { authors: { some: {} } }],
    ['contributeurs', { contributors: { some: {} } }],
    ['niveaux', { levels: { some: {} } }],
    ['categories', { categories: { some: {} } }],
    ['typePedagogiques', { pedagogicTypes: { some: {} } }],
    ['typeDocumentaires', { documentaryTypes: { some: {} } }],
    ['groupes', { readerGroups: { some: {} } }],
    ['groupesAuteurs', { authorGroups: { some: {} } }],
    ['aliasOf', { aliasOf: { not: null } }],
    ['oid', {}],
    ['publie', {}],
    ['dateCreation', {}],
  ])('"has %s" without values: %j', async (index, expected) => {
    expect(await filterCondition(context, index, null)).toEqual(expected);
  });
});

describe('orderColumn', () => {
  it.each([
    ['titre', 'titre'],
    ['oid', 'oid'],
    ['rid', 'oid'],
    ['origine', 'origine'],
    ['idOrigine', 'idOrigine'],
    ['type', 'type'],
    ['langue', 'langue'],
    ['publie', 'publie'],
    ['restriction', 'restriction'],
    ['aliasOf', 'aliasOf'],
    ['dateCreation', 'dateCreation'],
    ['dateMiseAJour', 'dateMiseAJour'],
  ])('orders %s by %s', (index, column) => {
    expect(orderColumn(index)).toBe(column);
  });

  it('refuses unknown and multi-valued indexes, naming them', () => {
    expect(() => orderColumn('couleur')).toThrow(new InvalidInputError('Index couleur inconnu pour orderBy'));
    for (const index of [
      'auteurs',
      'contributeurs',
      'niveaux',
      'categories',
      'typePedagogiques',
      'typeDocumentaires',
      'groupes',
      'groupesAuteurs',
    ]) {
      expect(() => orderColumn(index)).toThrow(
        new InvalidInputError(`Impossible de trier sur l’index ${index} (plusieurs valeurs par ressource)`),
      );
    }
  });

  it('knows each index’s kind', () => {
    const kinds = Object.fromEntries(
      Object.entries(INDEXES).map(([name, definition]) => [name, definition.kind]),
    );
    expect(kinds).toEqual({
      titre: 'string',
      oid: 'int',
      rid: 'string',
      origine: 'string',
      idOrigine: 'string',
      type: 'string',
      langue: 'string',
      auteurs: 'string',
      contributeurs: 'string',
      niveaux: 'string',
      categories: 'int',
      typePedagogiques: 'int',
      typeDocumentaires: 'int',
      groupes: 'string',
      groupesAuteurs: 'string',
      publie: 'boolean',
      restriction: 'int',
      aliasOf: 'string',
      dateCreation: 'date',
      dateMiseAJour: 'date',
      licence: 'string',
    });
  });
});
