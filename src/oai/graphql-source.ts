/**
 * The HarvestSource of the service: each method runs one named operation of operations.graphql
 * through the Yoga pipeline, as the REST layer runs its own (src/gateway/operation-runner.ts), so the harvest
 * root fields and their rules decide everything a harvester sees, to the last field: the answers
 * are the contract's types (errors aside, thrown).
 */
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DocumentNode, ExecutionResult, GraphQLSchema } from 'graphql';
import { loadOperations } from '../gateway/operations.ts';
import type { HarvestPageRequest, HarvestSelection, HarvestSource } from './harvest-source.ts';
import type { OperationName, OperationResults, OperationVariables } from './operations.generated.ts';

const operationsDir = dirname(fileURLToPath(import.meta.url));

/** The OAI operations (operations.graphql), validated against the schema as the REST ones are. */
export function loadHarvestOperations(schema: GraphQLSchema): Map<string, DocumentNode> {
  return loadOperations(schema, operationsDir);
}

/**
 * Runs one of the OAI operations for the request being answered (the caller binds its server
 * context: `(name, variables) => runOperation(name, variables, { req, res })`).
 */
export type HarvestOperationRunner = (
  name: string,
  variables: Record<string, unknown>,
) => Promise<ExecutionResult>;

/** An answer the operations never give to arguments the protocol layer has checked. */
export class HarvestSourceError extends Error {
  override name = 'HarvestSourceError';
  constructor(
    message: string,
    readonly code?: string,
  ) {
    super(message);
  }
}

/** An error member of a result union (the documents select `...HarvestErrorFields` on each). */
type ErrorMember = { __typename: `${string}Error`; code: string; message: string };
const isError = (member: { __typename: string }): member is ErrorMember =>
  member.__typename.endsWith('Error');

/**
 * The source of the service's harvest. The operations' results are the contract's types as they
 * come (src/oai/operations.generated.ts, generated from the documents): the schema resolves every
 * field, `rid`, `publicUrl` and the address included, so nothing is mapped here.
 */
export function createGraphQLHarvestSource(runOperation: HarvestOperationRunner): HarvestSource {
  async function result<N extends OperationName>(
    name: N,
    variables: OperationVariables[N],
  ): Promise<OperationResults[N]> {
    const answer = await runOperation(name, variables);
    if (answer.errors?.length) {
      throw new HarvestSourceError(`${name}: ${answer.errors.map((error) => error.message).join('; ')}`);
    }
    // The document of `name` is the one its type was generated from (npm run codegen:check).
    return (answer.data as { result: OperationResults[N] }).result;
  }

  const failure = (name: OperationName, error: ErrorMember) =>
    new HarvestSourceError(`${name}: ${error.message}`, error.code);

  const selectionVariables = (selection: HarvestSelection) => ({
    from: selection.from?.toISOString() ?? null,
    until: selection.until?.toISOString() ?? null,
    set: selection.set ?? null,
  });

  return {
    earliestDatestamp: () => result('OaiEarliestDatestamp', {}),

    sets: () => result('OaiSets', {}),

    async page(request: HarvestPageRequest) {
      const variables = {
        ...selectionVariables(request),
        after: request.afterOid ?? null,
        limit: request.limit,
      };
      if (!request.withMetadata) {
        const page = await result('OaiHeaders', variables);
        if (isError(page)) throw failure('OaiHeaders', page);
        return { records: page.records.map((header) => ({ header, resource: null })), hasMore: page.hasMore };
      }
      const page = await result('OaiRecords', variables);
      if (isError(page)) throw failure('OaiRecords', page);
      // A record is its header, with its metadata beside.
      return {
        records: page.records.map((record) => ({ header: record, resource: record.resource })),
        hasMore: page.hasMore,
      };
    },

    async count(selection: HarvestSelection) {
      const count = await result('OaiCount', selectionVariables(selection));
      if (isError(count)) throw failure('OaiCount', count);
      return count.total;
    },

    async record(oid: number) {
      const record = await result('OaiRecord', { oid });
      return record && { header: record, resource: record.resource };
    },
  };
}
