/**
 * Loads named GraphQL operations from a folder of `.graphql` files (the legacy routes' in
 * src/rest/operations/, the OAI provider's in src/oai/), and validates them against the schema once,
 * at start-up: a broken document stops the service (and fails a test) instead of failing a request
 * later. Each is then run in process by the operation runner (operation-runner.ts).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type DefinitionNode, type DocumentNode, type GraphQLSchema, Kind, parse, validate } from 'graphql';

export class OperationDocumentError extends Error {
  override name = 'OperationDocumentError';
}

/**
 * Operation name → a document holding that operation and the fragments. Fragments are shared by
 * every file (fragments.graphql holds the common ones); all files are validated together.
 */
export function loadOperations(schema: GraphQLSchema, dir: string): Map<string, DocumentNode> {
  const definitions: DefinitionNode[] = [];
  const fileOf = new Map<DefinitionNode, string>();
  for (const file of readdirSync(dir).filter((name) => name.endsWith('.graphql'))) {
    try {
      for (const definition of parse(readFileSync(join(dir, file), 'utf8')).definitions) {
        definitions.push(definition);
        fileOf.set(definition, file);
      }
    } catch (error) {
      throw new OperationDocumentError(`${file}: ${(error as Error).message}`);
    }
  }
  const problems = validate(schema, { kind: Kind.DOCUMENT, definitions });
  if (problems.length > 0) {
    throw new OperationDocumentError(problems.map((p) => p.message).join('; '));
  }
  const fragments = definitions.filter((d) => d.kind === Kind.FRAGMENT_DEFINITION);
  const operations = new Map<string, DocumentNode>();
  for (const definition of definitions) {
    if (definition.kind !== Kind.OPERATION_DEFINITION) continue;
    const file = fileOf.get(definition);
    const name = definition.name?.value;
    if (!name) throw new OperationDocumentError(`${file}: every operation needs a name`);
    if (operations.has(name)) throw new OperationDocumentError(`${file}: operation ${name} is defined twice`);
    const rootFields = definition.selectionSet.selections;
    if (
      rootFields.length !== 1 ||
      rootFields[0]?.kind !== Kind.FIELD ||
      rootFields[0].alias?.value !== 'result'
    ) {
      throw new OperationDocumentError(`${file}: ${name} must select one root field aliased "result"`);
    }
    operations.set(name, { kind: Kind.DOCUMENT, definitions: [definition, ...fragments] });
  }
  return operations;
}
