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

/** The stored fields of a resource (`relations` as `[predicate, rid]` pairs, `enfants` only for trees). */
export function legacyFields(resource: Result) {
  const {
    __typename,
    ref,
    droits,
    authorNames,
    contributorNames,
    resolvedRelations,
    relations,
    enfants,
    ...fields
  } = resource;
  return {
    ...fields,
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
          _auteurs: resource.authorNames,
          _contributeurs: resource.contributorNames,
          _relations: resource.resolvedRelations,
          _enfants: resource.enfants ?? [],
        }
      : {}),
  };
}
