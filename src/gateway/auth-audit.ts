/**
 * Security by default: every Query and Mutation field must say who may call it (`authScopes`,
 * `public: true` included). Pothos keeps field options in `extensions.pothosOptions`.
 */
import type { GraphQLSchema } from 'graphql';

export function rootFieldsWithoutAuthScopes(schema: GraphQLSchema): string[] {
  const missing: string[] = [];
  for (const root of [schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()]) {
    if (!root) continue;
    for (const field of Object.values(root.getFields())) {
      const options = field.extensions?.pothosOptions as { authScopes?: unknown } | undefined;
      if (options?.authScopes === undefined) missing.push(`${root.name}.${field.name}`);
    }
  }
  return missing;
}
