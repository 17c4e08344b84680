/** The named operations the legacy routes run: the `.graphql` files of src/rest/operations/. */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { GraphQLSchema } from 'graphql';
import { loadOperations } from '../gateway/operations.ts';

const REST_OPERATIONS_DIR = join(dirname(fileURLToPath(import.meta.url)), 'operations');

export const loadRestOperations = (schema: GraphQLSchema) => loadOperations(schema, REST_OPERATIONS_DIR);
