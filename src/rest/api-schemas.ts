/**
 * The legacy JSON shapes, as JSON Schemas for the OpenAPI document (src/rest/openapi.ts), and the
 * query parameters several routes share. Documentation only: the routes never read these.
 * Objects stay open (`additionalProperties` is not restricted): legacy clients ignore what they do
 * not know, and the test against real answers checks every property named here.
 */
import { FLAG_VALUES, type JsonSchema, type ParameterDoc } from './route-table.ts';
import { REF_FIELDS } from './shapes/resources.ts';

const string = { type: 'string' };
const integer = { type: 'integer' };
const boolean = { type: 'boolean' };
const strings = { type: 'array', items: string };
const integers = { type: 'array', items: integer };
const nullable = (type: string) => ({ type: [type, 'null'] });
const dateTime = { type: 'string', format: 'date-time' };

const object = (properties: Record<string, JsonSchema>, required: string[] = Object.keys(properties)) => ({
  type: 'object',
  properties,
  required,
});

/** `{$ref}` to a schema of `components.schemas`. */
export const ref = (name: keyof typeof componentSchemas) => ({ $ref: `#/components/schemas/${name}` });

const link = object({ href: string, icon: string, value: string });

const group = object(
  {
    oid: integer,
    nom: string,
    description: string,
    ouvert: boolean,
    public: boolean,
    gestionnaires: { ...integers, description: 'oids of the managers' },
    gestionnairesNames: { ...strings, description: '"Prénom Nom" of each manager (format=full)' },
    dateCreation: dateTime,
  },
  ['oid', 'nom', 'description', 'ouvert', 'public', 'gestionnaires', 'dateCreation'],
);

const refFields = {
  aliasOf: { ...string, description: 'the source’s rid for an alias, else the resource’s own rid' },
  titre: string,
  resume: string,
  description: string,
  commentaires: string,
  type: string,
  categories: integers,
  public: { ...boolean, description: 'public and published' },
  cle: { ...string, description: 'read key; only on resources that are not public' },
  enfants: { description: 'trees only' },
  parametres: { description: '`sequenceModele` only' },
};
const rights = { type: 'string', pattern: '^R?W?D?$', description: 'R, W, D: read, update, delete' };

const resource = object(
  {
    oid: integer,
    rid: string,
    origine: string,
    idOrigine: string,
    aliasOf: nullable('string'),
    cle: nullable('string'),
    type: string,
    titre: string,
    resume: string,
    description: string,
    commentaires: string,
    parametres: {},
    enfants: { description: 'trees only' },
    niveaux: strings,
    categories: integers,
    typePedagogiques: integers,
    typeDocumentaires: integers,
    relations: {
      type: 'array',
      items: { type: 'array', prefixItems: [integer, string], minItems: 2, maxItems: 2 },
      description: '[predicate, rid] pairs',
    },
    auteurs: { ...strings, description: 'pids of the authors' },
    auteursParents: strings,
    contributeurs: strings,
    groupes: strings,
    groupesAuteurs: strings,
    langue: string,
    publie: boolean,
    restriction: integer,
    indexable: boolean,
    dateCreation: dateTime,
    dateMiseAJour: dateTime,
    version: integer,
    inc: integer,
    archiveOid: nullable('integer'),
    _droits: { ...rights, description: 'with droits=1' },
    _auteurs: { ...strings, description: 'format=full: "Prénom Nom" of each author' },
    _contributeurs: { ...strings, description: 'format=full' },
    _relations: {
      type: 'array',
      items: object({ predicate: integer, rid: string, titre: nullable('string'), type: nullable('string') }),
      description: 'format=full',
    },
    _enfants: { type: 'array', description: 'format=full' },
  },
  [
    'oid',
    'rid',
    'origine',
    'idOrigine',
    'type',
    'titre',
    'categories',
    'relations',
    'auteurs',
    'publie',
    'restriction',
    'dateCreation',
    'dateMiseAJour',
  ],
);

/** Schemas of `components.schemas`, referred to by `ref(name)`. */
export const componentSchemas = {
  Failure: {
    ...object({ success: { const: false }, error: { ...string, description: 'message for users (French)' } }),
    description: 'Every failure of the legacy envelope; the status says which kind.',
  },
  Link: link,
  Group: group,
  Resource: resource,
  Ref: object({ ...refFields, _droits: rights }, [...REF_FIELDS, '_droits']),
  /** A list item: a Ref (default), light fields, or the resource (format); rights in `$droits`. */
  ListItem: {
    type: 'object',
    properties: { oid: { type: ['integer', 'string'] }, titre: string, type: string, $droits: rights },
    required: ['titre', 'type', '$droits'],
    description:
      'A Ref (default), the light fields (oid, titre, type, resume, rid, description, commentaires) or the resource, as `format` asks; an item the caller may not read is a placeholder of type `error`.',
  },
  ListPage: object(
    {
      query: { type: 'object', description: 'the filters applied, index → values' },
      queryOptions: object({
        start: integer,
        nb: integer,
        skip: integer,
        limit: integer,
        orderBy: nullable('string'),
        order: string,
      }),
      total: integer,
      liste: { type: 'array', items: { $ref: '#/components/schemas/ListItem' } },
      nextUrl: { ...string, description: 'when the page is full' },
      warnings: strings,
    },
    ['query', 'queryOptions', 'total', 'liste'],
  ),
  AuthorsPage: {
    type: 'object',
    properties: { total: integer, nextUrl: string, prevUrl: string, warnings: strings },
    required: ['total'],
    // Pids hold a `/` (origin/id): the other keys cannot.
    patternProperties: {
      '/': object({
        pid: string,
        label: string,
        liste: { type: 'array', items: { $ref: '#/components/schemas/ListItem' } },
      }),
    },
    description: 'One entry per author pid, beside total, nextUrl, prevUrl and warnings.',
  },
  SavedResource: object(
    {
      oid: integer,
      warnings: { ...strings, description: 'inconsistencies that did not justify a rejection' },
    },
    ['oid'],
  ),
  Deleted: object({ deleted: { ...string, description: 'the id as passed (deprecated)' } }),
  JstreeNode: {
    type: 'object',
    properties: {
      text: string,
      id: string,
      children: {},
      a_attr: { type: 'object' },
      li_attr: { type: 'object' },
    },
    required: ['text'],
  },
  ConfigCheckFailure: object({ success: { const: false }, errors: strings, warnings: strings }),
} satisfies Record<string, JsonSchema>;

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

/**
 * The indexes of a list filter, and those a list may be ordered by (one value per resource): the
 * lists module's, which test/unit/api-schemas.test.ts holds these to (REST imports no module).
 */
export const LIST_INDEXES = [
  'titre',
  'oid',
  'rid',
  'origine',
  'idOrigine',
  'type',
  'langue',
  'auteurs',
  'contributeurs',
  'niveaux',
  'categories',
  'typePedagogiques',
  'typeDocumentaires',
  'groupes',
  'groupesAuteurs',
  'publie',
  'restriction',
  'aliasOf',
  'dateCreation',
  'dateMiseAJour',
  'fulltext',
];
export const SORTABLE_INDEXES = [
  'titre',
  'oid',
  'rid',
  'origine',
  'idOrigine',
  'type',
  'langue',
  'publie',
  'restriction',
  'aliasOf',
  'dateCreation',
  'dateMiseAJour',
];

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
