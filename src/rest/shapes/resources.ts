/**
 * Legacy JSON shapes of resources. A single resource carries its rights in `_droits`; list items
 * (nested) in `$droits`: the legacy transport never emitted a top-level key starting with `$`.
 */

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
 * The stored fields in the legacy order, under their GraphQL names (the legacy name where it
 * differs): `enfants` and `relations` come last, as the legacy service sent them.
 */
const STORED_FIELDS: ReadonlyArray<readonly [field: string, legacyName?: string]> = [
  ['oid'],
  ['rid'],
  ['origine'],
  ['idOrigine'],
  ['aliasOf'],
  ['cle'],
  ['type'],
  ['titre'],
  ['resume'],
  ['description'],
  ['commentaires'],
  ['parametres'],
  ['niveaux'],
  ['categories'],
  ['typePedagogiques'],
  ['typeDocumentaires'],
  ['authors', 'auteurs'],
  ['auteursParents'],
  ['contributors', 'contributeurs'],
  ['readerGroups', 'groupes'],
  ['authorGroups', 'groupesAuteurs'],
  ['langue'],
  ['publie'],
  ['restriction'],
  ['indexable'],
  ['dateCreation'],
  ['dateMiseAJour'],
  ['version'],
  ['inc'],
  ['archiveOid'],
];

/**
 * A resource's stored fields as the legacy JSON: the one place that JSON is built, for every route
 * (`ressource`, `full`, list items of `format=full`) and for transfer files. `resource` has the
 * GraphQL names with people by pid, groups by name and relations as `{predicate, rid}`
 * (`flatResource` gives them from an operation's result); `enfants` is sent only for trees.
 */
export function legacyResourceJson(resource: Result): Result {
  const legacy: Result = {};
  for (const [field, legacyName] of STORED_FIELDS) legacy[legacyName ?? field] = resource[field];
  if (resource.enfants != null) legacy.enfants = resource.enfants;
  legacy.relations = resource.relations.map((r: Result) => [r.predicate, r.rid]);
  return legacy;
}

/** An operation's Resource (links as `{position, person {pid}}`, `{position, group {nom}}`), flattened. */
export function flatResource(resource: Result): Result {
  return {
    ...resource,
    authors: resource.authors.map((link: Result) => link.person.pid),
    contributors: resource.contributors.map((link: Result) => link.person.pid),
    readerGroups: resource.readerGroups.map((link: Result) => link.group.nom),
    authorGroups: resource.authorGroups.map((link: Result) => link.group.nom),
  };
}

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
export const legacyFields = (resource: Result) => legacyResourceJson(flatResource(resource));

/** A resource in the requested format: `ressource` (default), `ref` or `full`. */
export function legacyResource(resource: Result, format: unknown) {
  if (format === 'ref') return legacyRef(resource.ref);
  return {
    ...legacyFields(resource),
    ...(resource.droits !== undefined ? { _droits: resource.droits } : {}),
    ...(format === 'full'
      ? {
          _auteurs: resource.authors.map((link: Result) => link.person.label),
          _contributeurs: resource.contributors.map((link: Result) => link.person.label),
          _relations: resource.resolvedRelations,
          _enfants: resource.enfants ?? [],
        }
      : {}),
  };
}
