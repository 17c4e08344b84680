/**
 * Legacy resource bodies as the typed GraphQL inputs (ResourceInput, ResourceRelationsInput). A
 * body is checked by the resource module's own validator first (pure, no database), so an invalid
 * body gets the legacy message, every problem at once; what it accepts is then renamed to the
 * GraphQL fields (`auteurs` → `authors`, `[predicate, rid]` → `{predicate, rid}`). Unknown properties,
 * which a typed input cannot carry, come back as the validator's warnings.
 */
import { parseRelationsInput, parseResourceInput } from '../../modules/resources/resource-input.ts';
import { RESOURCE_INPUT_LEGACY_NAMES } from '../../modules/resources/resource-inputs.schema.ts';

/** Legacy property → GraphQL input field. */
const GRAPHQL_NAMES: Record<string, string> = Object.fromEntries(
  Object.entries(RESOURCE_INPUT_LEGACY_NAMES).map(([graphqlName, legacyName]) => [legacyName, graphqlName]),
);

function typedFields(fields: Record<string, unknown>): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(fields)) {
    input[GRAPHQL_NAMES[name] ?? name] =
      name === 'relations' && Array.isArray(value)
        ? (value as [number, string][]).map(([predicate, rid]) => ({ predicate, rid }))
        : value;
  }
  return input;
}

/** `POST /api/ressource`: the ResourceInput, and the warnings of unknown properties. */
export function resourceInput(body: unknown): { input: Record<string, unknown>; warnings: string[] } {
  const { fields, warnings } = parseResourceInput(body);
  return { input: typedFields(fields), warnings };
}

/** `POST /api/ressource/addRelations`: the ResourceRelationsInput (other properties are ignored). */
export function relationsInput(body: unknown): Record<string, unknown> {
  const { ref, fields } = parseRelationsInput(body);
  return { ...(ref === undefined ? {} : { ref }), ...typedFields(fields) };
}
