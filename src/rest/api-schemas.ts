/**
 * The legacy JSON shapes, as JSON Schemas for the OpenAPI document (src/rest/openapi.ts), and the
 * query parameters several routes share. Documentation only: the routes never read these.
 * Objects stay open (`additionalProperties` is not restricted): legacy clients ignore what they do
 * not know, and the test against real answers checks every property named here.
 */
import type { JsonSchema, ParameterDoc } from './route-table.ts';
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
    description: '`ref`: a Ref (always with rights); `full`: names of authors, contributors, relations',
  },
  droits: { enum: ['1', 'true'], description: 'adds `_droits`' },
};

/** A resource in the format asked. */
export const resourceOrRef = { anyOf: [ref('Resource'), ref('Ref')] };

/** Arguments of the list routes (API document, "Lists"). */
export const listQuery: Record<string, ParameterDoc> = {
  json: { type: 'string', description: 'every other argument as one JSON object' },
  filters: {
    type: 'string',
    description: 'JSON array of `{index, values?}` (values OR-ed; none: every resource having the index)',
  },
  orderBy: { type: 'string', description: 'an index name' },
  order: { enum: ['asc', 'desc'] },
  start: { type: 'integer', minimum: 0, description: 'offset (also `skip`)' },
  nb: { type: 'integer', minimum: 1, description: 'page size (also `limit`); default 25, at most 500' },
  format: { enum: ['ref', 'light', 'full'] },
};

export const groupNameParam: Record<string, ParameterDoc> = {
  nom: { type: 'string', description: 'group name' },
};
export const oidParam: Record<string, ParameterDoc> = {
  oid: { type: 'string', pattern: '^\\d+$', description: 'resource oid' },
};
export const originParams: Record<string, ParameterDoc> = {
  origine: { type: 'string', description: 'origin (or the baseId of a rid)' },
  idOrigine: { type: 'string', description: 'id at the origin (or the oid of a rid)' },
};
