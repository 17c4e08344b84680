/**
 * Legacy JSON shapes of resources. A single resource carries its rights in `_droits`; list items
 * (nested) in `$droits`: the legacy transport never emitted a top-level key starting with `$`.
 * Used by every writer of the legacy format: the REST routes, transfer files.
 */
import { type ResourceFieldName, resourceFields } from '../catalogue/resource-fields.ts';
import { LEGACY_NAMES } from './names.ts';

// biome-ignore lint/suspicious/noExplicitAny: results are shaped by documents validated at start-up.
export type Result = Record<string, any>;
export type RightsKey = '_droits' | '$droits';

/**
 * Property orders of the legacy JSON, which existing clients see. Imposed here rather than taken
 * from the GraphQL result, whose order for fields of conditional fragments depends on the executor.
 * A Ref's fields are also its required properties in the OpenAPI document (api-schemas.ts).
 */
export const REF_FIELDS = [
  'aliasOf',
  'titre',
  'resume',
  'description',
  'commentaires',
  'type',
  'categories',
  'public',
];
/**
 * The fields the legacy service sent, in its order, under their GraphQL names. A historical fact:
 * existing clients see this order, so it never changes.
 */
const LEGACY_ORDER = [
  'oid',
  'rid',
  'origine',
  'idOrigine',
  'aliasOf',
  'cle',
  'type',
  'titre',
  'resume',
  'description',
  'commentaires',
  'parametres',
  'niveaux',
  'categories',
  'typePedagogiques',
  'typeDocumentaires',
  'authors',
  'auteursParents',
  'contributors',
  'readerGroups',
  'authorGroups',
  'langue',
  'publie',
  'restriction',
  'indexable',
  'dateCreation',
  'dateMiseAJour',
  'version',
  'inc',
  'archiveOid',
];

/** The catalogue's fields the legacy service did not send: they follow its fields, in this order. */
export const FIELDS_SINCE_LEGACY: readonly ResourceFieldName[] = resourceFields
  .map(([name]) => name)
  .filter((name) => !LEGACY_ORDER.includes(name) && name !== 'enfants');

/**
 * The stored fields as the legacy JSON sends them (GraphQL name, legacy name): the legacy order,
 * then the catalogue's fields added since, in the catalogue's order, so that a new field needs no
 * line here. `enfants` and `relations` come last, as the legacy service sent them.
 */
const STORED_FIELDS: ReadonlyArray<readonly [field: string, legacyName: string]> = [
  ...LEGACY_ORDER,
  ...FIELDS_SINCE_LEGACY,
].map((field) => [field, LEGACY_NAMES[field] ?? field]);

/** An operation's links (`{position, person {pid}}`, `{position, group {nom}}`) as the legacy JSON names them. */
const LINK_NAMES: Readonly<Record<string, (link: Result) => unknown>> = {
  authors: (link) => link.person.pid,
  contributors: (link) => link.person.pid,
  readerGroups: (link) => link.group.nom,
  authorGroups: (link) => link.group.nom,
};

/**
 * A resource's stored fields as the legacy JSON: the one place that JSON is built, for every route
 * (`ressource`, `full`, list items of `format=full`) and for transfer files. `resource` has the
 * GraphQL names with relations as `{predicate, rid}`, and people by pid and groups by name, or, with
 * `links`, as an operation's result has them (`LINK_NAMES`); `enfants` is sent only for trees.
 * Built in one pass, in the legacy order: a read's answer is made of it.
 */
function storedJson(resource: Result, links: boolean): Result {
  const legacy: Result = {};
  for (const [field, legacyName] of STORED_FIELDS) {
    const name = links ? LINK_NAMES[field] : undefined;
    legacy[legacyName] = name ? resource[field].map(name) : resource[field];
  }
  if (resource.enfants != null) legacy.enfants = resource.enfants;
  legacy.relations = resource.relations.map((r: Result) => [r.predicate, r.rid]);
  return legacy;
}

/** A resource with people by pid and groups by name (a transfer file's), as legacy JSON. */
export const legacyResourceJson = (resource: Result): Result => storedJson(resource, false);

/** A Ref: its fields, `cle`/`enfants`/`parametres` only where they apply, and the rights. */
export function legacyRef(ref: Result, rightsKey: RightsKey = '_droits') {
  const legacy: Result = {};
  for (const name of REF_FIELDS) legacy[name] = ref[name];
  if (ref.cle != null) legacy.cle = ref.cle;
  if (ref.enfants != null) legacy.enfants = ref.enfants;
  if (ref.parametres != null) legacy.parametres = ref.parametres;
  legacy[rightsKey] = ref.droits;
  return legacy;
}

/** The stored fields of an operation's Resource, as legacy JSON. */
export const legacyFields = (resource: Result): Result => storedJson(resource, true);

/** A resource in the requested format: `ressource` (default), `ref` or `full`. */
export function legacyResource(resource: Result, format: unknown) {
  if (format === 'ref') return legacyRef(resource.ref);
  const legacy = legacyFields(resource);
  if (resource.droits !== undefined) legacy._droits = resource.droits;
  if (format === 'full') {
    legacy._auteurs = resource.authors.map((link: Result) => link.person.label);
    legacy._contributeurs = resource.contributors.map((link: Result) => link.person.label);
    legacy._relations = resource.resolvedRelations;
    legacy._enfants = resource.enfants ?? [];
  }
  return legacy;
}
