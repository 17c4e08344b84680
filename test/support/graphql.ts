/** GraphQL calls over HTTP, through the same app and cookies as REST calls. */
import type { Test } from 'supertest';
import type TestAgent from 'supertest/lib/agent.js';

type Caller = { post(url: string): Test } | TestAgent;

export interface GraphQLResponse<T = Record<string, unknown>> {
  data?: T;
  errors?: { message: string; extensions?: { code?: string } }[];
}

// biome-ignore lint/suspicious/noExplicitAny: tests read response data of any shape.
export async function graphql<T = Record<string, any>>(
  caller: Caller,
  query: string,
  variables: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Promise<GraphQLResponse<T>> {
  const response = await caller.post('/graphql').set(headers).send({ query, variables });
  if (response.status !== 200) {
    throw new Error(`GraphQL HTTP ${response.status}: ${JSON.stringify(response.body)}`);
  }
  return response.body;
}

/** The `code` of a field's error: a result-union member's, or a thrown error's. */
export function errorCode(response: GraphQLResponse, field: string): string | undefined {
  const member = (response.data as Record<string, { code?: string } | null> | undefined)?.[field];
  return member?.code ?? response.errors?.[0]?.extensions?.code;
}
