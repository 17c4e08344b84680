/**
 * Turns an operation's execution result into the legacy response: `{success: true, ...payload}`,
 * or `{success: false, error}` with the status of the error's code (src/errors.ts). This is the
 * only place REST looks at errors, and it adds no rule: it translates.
 */
import type { ExecutionResult, GraphQLError } from 'graphql';
import { messages, statusOf } from '../errors.ts';
import type { ErrorFieldsFragment } from '../legacy/operations.generated.ts';
import type { LegacyResponse, OperationRoute, RequestParts } from './route-table.ts';

export function failure(status: number, error: string): LegacyResponse {
  return { status, body: { success: false, error } };
}

/**
 * A variable that did not fit the operation, named as the legacy client knows it: the path inside a
 * posted object (`roles`, not `input.roles`), or the parameter. GraphQL's own wording (variable
 * names, types) means nothing to a legacy client.
 */
export function invalidParameterMessage(graphqlMessage: string): string {
  const variable = /^Variable "\$(\w+)"/.exec(graphqlMessage)?.[1];
  if (!variable) return messages.invalidParameters;
  const at = / at "([^"]+)"/.exec(graphqlMessage)?.[1];
  const name = at ? at.replace(/^input\.?/, '') || variable : variable;
  const missing = /was not provided|must not be null/.test(graphqlMessage);
  return `${messages.invalidParameters} : ${name} ${missing ? 'manquant' : 'invalide'}`;
}

function fromGraphQLError(error: GraphQLError, hasData: boolean, route: OperationRoute): LegacyResponse {
  const internal = route.internalErrorMessage ?? messages.internal;
  const code = error.extensions?.code;
  if (typeof code === 'string') {
    const status = statusOf(code);
    const response = failure(status, status === 500 ? internal : error.message);
    const retryAfter = error.extensions?.retryAfterSeconds;
    return typeof retryAfter === 'number'
      ? { ...response, headers: { 'Retry-After': String(retryAfter) } }
      : response;
  }
  // Without data the request failed before execution: its variables did not fit the operation.
  if (!hasData) return failure(400, invalidParameterMessage(error.message));
  return failure(500, internal);
}

/**
 * What is read of any operation's `result` before its row's own type applies (`shape`): whether it
 * is an error member, which selects `...ErrorFields`.
 */
type ResultMember = { __typename?: string } & Partial<ErrorFieldsFragment>;

export function toLegacyResponse(
  result: ExecutionResult,
  route: OperationRoute,
  request: RequestParts,
): LegacyResponse {
  const member = (result.data?.result ?? null) as ResultMember | null;
  const firstError = result.errors?.[0];
  if (firstError && (member === null || !result.data))
    return fromGraphQLError(firstError, Boolean(result.data), route);
  if (member === null) return failure(404, messages.notFound);
  // A member of a result union that implements `Error` (documents select `...ErrorFields`: code, message).
  if (
    typeof member.code === 'string' &&
    typeof member.message === 'string' &&
    member.__typename?.endsWith('Error')
  ) {
    return failure(statusOf(member.code), member.message);
  }
  if (firstError) return fromGraphQLError(firstError, true, route);
  // `member` is the result of the row's own operation (router.ts runs `route.operation`), the type
  // its `shape` takes; a row of the table is one of a union over operations, so no one type is named.
  const payload = route.shape ? route.shape(member as never, request) : {};
  return { status: route.status ?? 200, body: { success: true, ...payload } };
}
