/**
 * The query and path parameters several legacy routes share, for the OpenAPI document
 * (src/rest/openapi.ts). Documentation only: the routes never read these. The bodies' shapes are
 * the legacy format's own (src/legacy/json-schemas.ts).
 */
import { fieldsWhere } from '../catalogue/resource-fields.ts';
import { ref } from '../legacy/json-schemas.ts';
import { FLAG_VALUES, type ParameterDoc } from './route-table.ts';

/** `format` of the routes answering one resource. */
export const resourceQuery: Record<string, ParameterDoc> = {
  format: {
    enum: ['ressource', 'ref', 'full'],
    description:
      '`ref`: a Ref (always with rights); `full`: names of authors, contributors, relations; another value: the resource, with a `Warning`',
  },
  droits: { enum: FLAG_VALUES, description: 'adds `_droits`; another value: none, with a `Warning`' },
};
/** What the routes answering one resource ignore with a `Warning`. */
export const resourceIgnored = 'a `format` or `droits` of another value';

/** A resource in the format asked. */
export const resourceOrRef = { anyOf: [ref('Resource'), ref('Ref')] };

/** The catalogue's columns that are list indexes: filtered and ordered on under their names. */
const COLUMN_INDEXES = fieldsWhere((field) => field.filterable === 'list');

/**
 * The indexes of a list filter, and those a list may be ordered by (one value per resource): the
 * lists module's, which test/unit/api-schemas.test.ts holds these to (REST imports no module).
 */
export const LIST_INDEXES = [
  ...COLUMN_INDEXES,
  'rid',
  'auteurs',
  'contributeurs',
  'niveaux',
  'categories',
  'typePedagogiques',
  'typeDocumentaires',
  'groupes',
  'groupesAuteurs',
  'fulltext',
];
export const SORTABLE_INDEXES = [...COLUMN_INDEXES, 'rid'];

/** Arguments of the list routes (API document, "Lists"). */
export const listQuery: Record<string, ParameterDoc> = {
  json: {
    json: true,
    type: 'object',
    description:
      'every other argument as one JSON object (`{"type": "em", "nb": 10}`); the other query parameters are then ignored, with a `Warning`',
    examples: [{ nb: 10 }],
  },
  filters: {
    json: true,
    type: 'array',
    items: {
      type: 'object',
      properties: {
        index: { enum: LIST_INDEXES },
        values: { type: 'array', description: 'OR-ed; none: every resource having the index' },
      },
      required: ['index'],
    },
    description: 'JSON array of `{index, values?}`: at most `input.maxFilters` filters',
    examples: [[{ index: 'type', values: ['url'] }]],
  },
  orderBy: { enum: SORTABLE_INDEXES, description: 'an index holding one value per resource' },
  order: { enum: ['asc', 'desc'], description: 'another value: `asc`, with a `Warning`' },
  start: {
    type: 'integer',
    minimum: 0,
    description: 'offset (also `skip`); another value: 0, with a `Warning`',
  },
  nb: {
    type: 'integer',
    minimum: 1,
    description:
      'page size (also `limit`); default `listeNbDefault`, at most `maxSql`; another value: the default or the maximum, with a `Warning`',
  },
  format: { enum: ['ref', 'light', 'full'], description: 'another value: `ref`, with a `Warning`' },
};
/** What the list routes ignore with a `Warning`. */
export const listIgnored =
  'an `order`, `format`, `start` or `nb` (`skip`, `limit`) the route does not understand, or other parameters beside `json`';
/** The 400 messages of the list routes' own checks. */
export const listInvalid = [
  'json : ce n’est pas un objet JSON valide',
  'filters : ce n’est pas du JSON valide',
  'Index <index> inconnu pour orderBy',
  'Impossible de trier sur l’index <index> (plusieurs valeurs par ressource)',
  'Au plus <n> filtres par requête',
  '<index> : valeur invalide (<valeur>)',
];

export const groupNameParam: Record<string, ParameterDoc> = {
  nom: { type: 'string', description: 'group name' },
};
export const oidParam: Record<string, ParameterDoc> = {
  oid: {
    type: 'string',
    pattern: '^\\d+$',
    description: 'resource oid; a segment that is not one names nothing (404)',
  },
};
export const originParams: Record<string, ParameterDoc> = {
  origine: { type: 'string', description: 'origin (or the baseId of a rid)' },
  idOrigine: { type: 'string', description: 'id at the origin (or the oid of a rid)' },
};
