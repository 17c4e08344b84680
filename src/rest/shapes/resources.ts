/**
 * Legacy JSON shapes of resources. A single resource carries its rights in `_droits`; list items
 * (nested) in `$droits`: the legacy transport never emitted a top-level key starting with `$`.
 */

// biome-ignore lint/suspicious/noExplicitAny: results are shaped by documents validated at start-up.
export type Result = Record<string, any>;
export type RightsKey = '_droits' | '$droits';

/** A Ref: its fields, `cle`/`enfants`/`parametres` only where they apply, and the rights. */
export function legacyRef(
  { droits, cle, enfants, parametres, ...ref }: Result,
  rightsKey: RightsKey = '_droits',
) {
  return {
    ...ref,
    ...(cle != null ? { cle } : {}),
    ...(enfants != null ? { enfants } : {}),
    ...(parametres != null ? { parametres } : {}),
    [rightsKey]: droits,
  };
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
  const { __typename, ref, droits, resolvedRelations, relations, enfants, ...fields } = resource;
  // Renamed in place: the legacy JSON keeps its property order.
  const renamed: Result = {};
  for (const [name, value] of Object.entries(fields)) {
    const legacy = Object.hasOwn(LEGACY_LISTS, name) ? LEGACY_LISTS[name] : undefined;
    if (legacy) renamed[legacy[0]] = (value as Result[]).map(legacy[1]);
    else renamed[name] = value;
  }
  return {
    ...renamed,
    ...(enfants != null ? { enfants } : {}),
    relations: relations.map((r: Result) => [r.predicate, r.rid]),
  };
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
