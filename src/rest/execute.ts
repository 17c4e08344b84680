/**
 * Runs a named operation through Yoga's enveloped pipeline, as the SOFA plugin does: the same
 * context factory (so the same caller resolution), plugins and error masking as `/graphql`. The
 * raw schema and the services are never called from a REST handler.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { DocumentNode, ExecutionResult } from 'graphql';
import type { YogaServerInstance } from 'graphql-yoga';
import type { Context } from '../context.ts';

export type ServerContext = { req: IncomingMessage; res: ServerResponse };
export type Yoga = YogaServerInstance<ServerContext, Context>;

export function createOperationRunner(yoga: Yoga, operations: ReadonlyMap<string, DocumentNode>) {
  return async function runOperation(
    name: string,
    variables: Record<string, unknown>,
    serverContext: ServerContext,
  ): Promise<ExecutionResult> {
    const document = operations.get(name);
    if (!document) throw new Error(`Unknown operation ${name}`);
    const { contextFactory, execute, schema } = yoga.getEnveloped(serverContext);
    const contextValue = await contextFactory();
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
