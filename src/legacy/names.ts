/**
 * The resource fields the legacy format names otherwise than the schema, in one table for every
 * reader and writer of that format: REST bodies and answers, transfer files, and peers' resources.
 */

/** GraphQL name → legacy name, for the fields whose names differ. */
export const LEGACY_NAMES: Readonly<Record<string, string>> = {
  authors: 'auteurs',
  contributors: 'contributeurs',
  readerGroups: 'groupes',
  authorGroups: 'groupesAuteurs',
};

/** Legacy name → GraphQL name. */
export const FIELD_OF_LEGACY: Readonly<Record<string, string>> = Object.fromEntries(
  Object.entries(LEGACY_NAMES).map(([field, legacy]) => [legacy, field]),
);

/**
 * A legacy resource (a peer's `reponseRessource`) under the schema's names, relations as
 * `{predicate, rid}`. Values are left as they are, whatever their shape: a wrong one is for the
 * save's validation to report, in the service's words.
 */
export function withSchemaNames(json: Record<string, unknown>): Record<string, unknown> {
  const renamed: Record<string, unknown> = { ...json };
  // The legacy name wins over the schema's, should a body carry both.
  for (const [legacy, field] of Object.entries(FIELD_OF_LEGACY)) {
    if (!Object.hasOwn(renamed, legacy)) continue;
    renamed[field] = renamed[legacy];
    delete renamed[legacy];
  }
  if (Array.isArray(renamed.relations)) {
    renamed.relations = renamed.relations.map((pair) =>
      Array.isArray(pair) && pair.length === 2 ? { predicate: pair[0], rid: pair[1] } : pair,
    );
  }
  return renamed;
}
