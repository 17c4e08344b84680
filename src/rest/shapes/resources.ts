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
/** The stored fields in the order of fragment `LegacyResource`, under their GraphQL names. */
const STORED_FIELDS = [
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

/**
 * The legacy lists of a resource, from the GraphQL fields that name each concept once (the
 * boundary of README "GraphQL and REST names"): GraphQL field → legacy property and its values.
 */
const LEGACY_LISTS: Record<string, [legacyName: string, value: (link: Result) => unknown]> = {
  authors: ['auteurs', (link) => link.person.pid],
  contributors: ['contributeurs', (link) => link.person.pid],
  readerGroups: ['groupes', (link) => link.group.nom],
  authorGroups: ['groupesAuteurs', (link) => link.group.nom],
};

/** The stored fields of a resource (`relations` as `[predicate, rid]` pairs, `enfants` only for trees). */
export function legacyFields(resource: Result) {
  const legacy: Result = {};
  for (const name of STORED_FIELDS) {
    const list = Object.hasOwn(LEGACY_LISTS, name) ? LEGACY_LISTS[name] : undefined;
    if (list) legacy[list[0]] = (resource[name] as Result[]).map(list[1]);
    else legacy[name] = resource[name];
  }
  if (resource.enfants != null) legacy.enfants = resource.enfants;
  legacy.relations = resource.relations.map((r: Result) => [r.predicate, r.rid]);
  return legacy;
}

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
