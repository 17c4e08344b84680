/**
 * The legacy JSON shapes, as JSON Schemas for the OpenAPI documents (REST's, src/rest/openapi.ts,
 * and the OAI provider's). Documentation only: nothing reads a body through these.
 * Objects stay open (`additionalProperties` is not restricted): legacy clients ignore what they do
 * not know, and the test against real answers checks every property named here.
 */
import { type FieldKind, RESOURCE_FIELDS } from '../catalogue/resource-fields.ts';
import { FIELDS_SINCE_LEGACY, REF_FIELDS } from './resource-json.ts';

/** A JSON Schema (2020-12, the dialect of OpenAPI 3.1). */
export type JsonSchema = Record<string, unknown>;

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
/** A scalar field's schema by its catalogue kind. */
const SCHEMA_OF_KIND: Record<FieldKind, JsonSchema> = {
  text: string,
  int: integer,
  boolean,
  date: dateTime,
  json: {},
};

/**
 * The catalogue's fields added since the legacy service, described from the catalogue (a new field
 * needs no line here); required unless the column may be null.
 */
const fieldsSince = FIELDS_SINCE_LEGACY.map((name) => {
  const { kind, nullable: mayBeNull, description } = RESOURCE_FIELDS[name];
  const schema = SCHEMA_OF_KIND[kind];
  const type = mayBeNull && typeof schema.type === 'string' ? nullable(schema.type) : {};
  return [name, { ...schema, ...type, description }] as const;
});

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
    ...Object.fromEntries(fieldsSince),
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
    ...fieldsSince.filter(([name]) => !RESOURCE_FIELDS[name].nullable).map(([name]) => name),
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
