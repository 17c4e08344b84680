/**
 * Runs a named operation (operations.ts) in process through Yoga's enveloped pipeline, as the SOFA
 * plugin does: the same context factory (so the same caller resolution), plugins and error masking
 * as `/graphql`. The REST routes and the OAI provider reach the schema this way only: the raw
 * schema and the services are never called from their handlers.
 */
import { type DocumentNode, type ExecutionResult, GraphQLError } from 'graphql';
import type { ServerContext, Yoga } from './yoga.ts';

export function createOperationRunner(yoga: Yoga, operations: ReadonlyMap<string, DocumentNode>) {
  return async function runOperation(
    name: string,
    variables: Record<string, unknown>,
    serverContext: ServerContext,
  ): Promise<ExecutionResult> {
    const document = operations.get(name);
    if (!document) throw new Error(`Unknown operation ${name}`);
    const { contextFactory, execute, schema } = yoga.getEnveloped(serverContext);
    let contextValue: Awaited<ReturnType<typeof contextFactory>>;
    try {
      contextValue = await contextFactory();
    } catch (error) {
      // The caller could not be resolved (e.g. too many wrong tokens): answered like /graphql does.
      if (error instanceof GraphQLError) return { errors: [error] };
      throw error;
    }
    return (await execute({
      schema,
      document,
      operationName: name,
      variableValues: variables,
      contextValue,
    })) as ExecutionResult;
  };
}

export type OperationRunner = ReturnType<typeof createOperationRunner>;
