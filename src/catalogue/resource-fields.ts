/**
 * The scalar fields of a resource, declared once: what each one is, where it goes and who writes
 * it. What lists them derives from here (the read model's columns, the GraphQL Resource and
 * ResourceInput fields, the stored columns and their defaults, copies, the importer's row and its
 * comparison…); test/schema/resource-fields.test.ts checks it against what cannot derive from it
 * (the Prisma schemas, the REST fragment, legacy JSON and OpenAPI schema, the harvest triggers of both
 * databases), so a field added or forgotten anywhere fails a test instead of compiling.
 *
 * The multi-valued fields (authors, groups, categories, levels, relations…) live in join tables,
 * each with rules of its own; they are not catalogued here.
 */

/** How a value is stored and compared (src/read-model/dialect.ts binds and decodes by it). */
export type FieldKind = 'text' | 'int' | 'boolean' | 'date' | 'json';

export interface ResourceFieldSpec {
  /** What it is, for the GraphQL schema (and what a caller gives, when `input` says more). */
  description: string;
  /** Its description as an input of a write, when it differs (what is required, what is accepted). */
  input?: string;
  kind: FieldKind;
  /** Whether the column may hold NULL. */
  nullable: boolean;
  /**
   * Which documents of the read model carry it: every one (a list's summary, and what the rights
   * depend on), or those with the `detail` part (src/read-model/documents.ts).
   */
  part: 'summary' | 'detail';
  /**
   * Who writes it: the caller (a save's body, an import's record), or the service (the oid, the
   * read key, the counters, the dates, the archive). `identity`: the caller too, but it designates
   * the resource (the origin pair), so it is not content: a copy does not take it, and an import that
   * found the resource by it does not compare it.
   */
  writer: 'caller' | 'identity' | 'service';
  /** What a resource holds when its body leaves the field out (caller fields; none: required or null). */
  default?: string | number | boolean | Record<string, never>;
  /** A change of it archives the state before and bumps `version`, or bumps the minor `inc`. */
  bumps?: 'version' | 'inc';
  /**
   * Conditions may use it (src/read-model/conditions.ts): `list` when it is also an index of the
   * lists' API, which callers filter and order on under its name (src/modules/lists/filters.ts);
   * `service` when only the service's own conditions use it (the read key, indexable).
   */
  filterable?: 'list' | 'service';
  /** This repository's own: left out of export files, never taken from an import (an archive's oid). */
  local?: true;
  /**
   * Part of what harvesters receive (src/read-model/harvest.ts): `restamps` when a change of it gives
   * the record a new datestamp (the harvest triggers of both databases compare it), `carried` when
   * it is only read (a change alone does not tell harvesters).
   */
  harvest?: 'restamps' | 'carried';
}

export const RESOURCE_FIELDS = {
  oid: {
    description: 'Id of the resource in this repository.',
    input: 'The resource to update.',
    kind: 'int',
    nullable: false,
    part: 'summary',
    writer: 'service',
    filterable: 'list',
  },
  origine: {
    description: 'Where the resource comes from (with `idOrigine`: its id there).',
    input: 'Origin of the resource (with `idOrigine`: its id there).',
    kind: 'text',
    nullable: false,
    part: 'detail',
    writer: 'identity',
    bumps: 'version',
    filterable: 'list',
  },
  idOrigine: {
    description: 'Id of the resource in its origin.',
    input: 'Id in the origin. REST also accepts a non-negative integer (sent here as text).',
    kind: 'text',
    nullable: false,
    part: 'detail',
    writer: 'identity',
    bumps: 'version',
    filterable: 'list',
  },
  titre: {
    description: 'Title.',
    input: 'Title; required to create.',
    kind: 'text',
    nullable: false,
    part: 'summary',
    writer: 'caller',
    default: '',
    bumps: 'inc',
    filterable: 'list',
    harvest: 'restamps',
  },
  resume: {
    description: 'Summary.',
    kind: 'text',
    nullable: false,
    part: 'summary',
    writer: 'caller',
    default: '',
    bumps: 'inc',
    harvest: 'restamps',
  },
  description: {
    description: 'Description.',
    kind: 'text',
    nullable: false,
    part: 'summary',
    writer: 'caller',
    default: '',
    bumps: 'inc',
    harvest: 'restamps',
  },
  commentaires: {
    description: 'Comments for editors.',
    kind: 'text',
    nullable: false,
    part: 'summary',
    writer: 'caller',
    default: '',
    bumps: 'inc',
  },
  type: {
    description: 'Resource type (`arbre`, `url`, `em`, …).',
    input: 'Resource type (`arbre`, `url`, `em`, …); `error` is reserved.',
    kind: 'text',
    nullable: false,
    part: 'summary',
    writer: 'caller',
    filterable: 'list',
    harvest: 'restamps',
  },
  langue: {
    description: 'Language code (`fra`, …).',
    kind: 'text',
    nullable: false,
    part: 'detail',
    writer: 'caller',
    default: 'fra',
    filterable: 'list',
    harvest: 'restamps',
  },
  publie: {
    description: 'Published: visible beyond its authors (see `restriction`).',
    input: 'Published.',
    kind: 'boolean',
    nullable: false,
    part: 'summary',
    writer: 'caller',
    default: false,
    filterable: 'list',
    harvest: 'carried',
  },
  restriction: {
    description:
      'Who may read it once published: 0 anyone, 1 correction, 2 members of `readerGroups`, 3 authors only.',
    input: '0 public, 1 correction, 2 the groups of `readerGroups`, 3 private (authors only).',
    kind: 'int',
    nullable: false,
    part: 'summary',
    writer: 'caller',
    default: 0,
    filterable: 'list',
    harvest: 'carried',
  },
  indexable: {
    description:
      'Listed by searches (`searchResources`, `resourceConnection`, `authorsResources`, `searchChanged`; REST `/api/liste`, `/api/liste/auteurs`) and harvested (OAI-PMH). False for a resource replaced by another but still used: searches then list it to its authors only (as `myResources`), and it stays readable by oid, rid, origin or key by whoever may read it.',
    input:
      'Listed by searches and harvested (default true); false for a resource replaced by another but still used: searches then list it to its authors only, and it stays readable by id.',
    kind: 'boolean',
    nullable: false,
    part: 'detail',
    writer: 'caller',
    default: true,
    filterable: 'service',
    harvest: 'carried',
  },
  // Only the address of a `url` resource (its `adresse`) is harvested, and restamps.
  parametres: {
    description: 'Type-specific parameters, free-form (each exercise engine or model defines its own).',
    input:
      'Free-form: each resource type (exercise engines, models) defines its own parameters, so no schema can describe them here.',
    kind: 'json',
    nullable: true,
    part: 'detail',
    writer: 'caller',
    default: {},
    bumps: 'version',
    harvest: 'restamps',
  },
  enfants: {
    description: 'Trees only: the children, Ref-like objects nested through their own `enfants`.',
    input:
      'Trees only: the children, Ref-like objects nested through their own `enfants`. Kept as JSON because children carry any Ref property and the tree validation reports each bad child by position.',
    kind: 'json',
    nullable: true,
    part: 'detail',
    writer: 'caller',
    bumps: 'version',
  },
  aliasOf: {
    description: 'For an alias: the rid of the resource it stands for.',
    input: 'The rid this resource is an alias of; null: none.',
    kind: 'text',
    nullable: true,
    part: 'summary',
    writer: 'caller',
    filterable: 'list',
    harvest: 'carried',
  },
  cle: {
    description: 'Read key: anyone holding it may read the resource (`cle/<key>` ids).',
    kind: 'text',
    nullable: true,
    part: 'detail',
    writer: 'service',
    filterable: 'service',
  },
  version: {
    description: 'Incremented by each save that changes the content.',
    kind: 'int',
    nullable: false,
    part: 'detail',
    writer: 'service',
  },
  inc: {
    description: 'Incremented by each save (concurrency check of legacy clients).',
    kind: 'int',
    nullable: false,
    part: 'detail',
    writer: 'service',
  },
  archiveOid: {
    description: 'The archived copy of the previous version, if any.',
    kind: 'int',
    nullable: true,
    part: 'detail',
    writer: 'service',
    local: true,
  },
  dateCreation: {
    description: 'Creation time.',
    kind: 'date',
    nullable: false,
    part: 'detail',
    writer: 'service',
    filterable: 'list',
    harvest: 'restamps',
  },
  dateMiseAJour: {
    description: 'Time of the last change.',
    kind: 'date',
    nullable: false,
    part: 'detail',
    writer: 'service',
    filterable: 'list',
    harvest: 'carried',
  },
  licence: {
    description:
      'The licence it is published under: an SPDX licence expression (`CC-BY-SA-4.0`, `CC-BY-4.0 OR MIT`) ' +
      'or the http(s) URL of a licence; null when none is stated. Harvesters receive it (`dc:rights`, LOM `rights`).',
    input:
      'The licence: an SPDX licence expression or an http(s) URL, at most 255 characters; null: none stated.',
    kind: 'text',
    nullable: true,
    part: 'detail',
    writer: 'caller',
    bumps: 'inc',
    filterable: 'list',
    harvest: 'restamps',
  },
} as const satisfies Record<string, ResourceFieldSpec>;

export type ResourceFieldName = keyof typeof RESOURCE_FIELDS;

/**
 * Columns of Resource that are not fields: kept by the database's triggers for the list order index
 * (the list_tags migration), never written nor read as such by the service.
 */
export const DATABASE_KEPT_COLUMNS = ['levelTags', 'categoryTags'] as const;

/** The catalogue as a list of `[name, spec]`, in declaration order (the Prisma model's order). */
export const resourceFields = Object.entries(RESOURCE_FIELDS) as [ResourceFieldName, ResourceFieldSpec][];

/** A field's default, a copy of an object one (so that no write shares it); undefined: none. */
export function fieldDefault(field: ResourceFieldSpec): unknown {
  return typeof field.default === 'object' ? { ...field.default } : field.default;
}

/** Names of the fields whose spec passes `test`, in declaration order. */
export function fieldsWhere(test: (spec: ResourceFieldSpec) => boolean): ResourceFieldName[] {
  return resourceFields.filter(([, spec]) => test(spec)).map(([name]) => name);
}

type ValueOf<K extends FieldKind> = K extends 'text'
  ? string
  : K extends 'int'
    ? number
    : K extends 'boolean'
      ? boolean
      : K extends 'date'
        ? Date
        : unknown;

/** A field's value as the database client gives it (Prisma's row). */
export type FieldValue<N extends ResourceFieldName> = (typeof RESOURCE_FIELDS)[N] extends {
  kind: infer K extends FieldKind;
  nullable: infer Nullable;
}
  ? ValueOf<K> | (Nullable extends true ? null : never)
  : never;

/** The fields a write's body may give: those a caller writes, and the oid that designates the resource. */
export const BODY_FIELDS: readonly ResourceFieldName[] = fieldsWhere(
  (field) => field.writer !== 'service',
).concat('oid');
