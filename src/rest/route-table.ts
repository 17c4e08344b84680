/**
 * The shape of a legacy route. Each `/api` route is one row: method and paths, the named GraphQL
 * operation it runs (src/rest/operations/*.graphql), how the variables come from the request, how
 * the operation's result becomes the legacy JSON, and the success status. A row holds no rule of
 * its own: permissions and validation live in the GraphQL schema and its services.
 */
import { NotFoundError } from '../errors.ts';
import type { JsonSchema } from '../legacy/json-schemas.ts';
import type { OperationName, OperationResults } from '../legacy/operations.generated.ts';
import { parseId } from '../lib/integers.ts';

/** A legacy answer: status, JSON body, headers (src/rest/legacy-response.ts builds them). */
export interface LegacyResponse {
  status: number;
  body: Record<string, unknown>;
  headers?: Record<string, string>;
}

export interface RequestParts {
  /** The request path, without the query string. */
  path: string;
  params: Record<string, string>;
  query: Record<string, unknown>;
  body: Record<string, unknown>;
  /** A `text/plain` body, as sent (e.g. by `navigator.sendBeacon`). */
  text?: string;
  /** Set when the body was a JSON array, which `body` is not (it is then `{}`). */
  arrayBody?: true;
  /**
   * Inputs the legacy contract answers anyway without using them, each sent back as a `Warning`
   * header (src/lib/warning.ts): added where the value is replaced, by `ignore`.
   */
  warnings: string[];
}

/**
 * Records that `name`'s value was replaced (`used`: what was used instead, e.g. `'ref' (the
 * default)`); the answer carries it as a `Warning` header.
 */
export function ignore(parts: RequestParts, name: string, value: unknown, used: string): void {
  const shown = typeof value === 'string' ? value : JSON.stringify(value);
  parts.warnings.push(`${name}: '${shown}' ignored; ${used} used`);
}

/** A yes/no parameter (`droits=1`): `1` or `true`; absent, `0` or `false` are no, anything else too, with a warning. */
export function flag(parts: RequestParts, name: string, value: unknown): boolean {
  return ['1', 'true'].includes(oneOf(parts, name, value, FLAG_VALUES, '0', 'false (the default)'));
}

/** Values of a yes/no parameter, for the OpenAPI document. */
export const FLAG_VALUES = ['1', 'true', '0', 'false'];

/**
 * A parameter with a few known values (`format`, `children`…): `fallback` when absent, and when it
 * is none of them, with a warning.
 */
export function oneOf<T extends string>(
  parts: RequestParts,
  name: string,
  value: unknown,
  known: readonly T[],
  fallback: string,
  used = `'${fallback}' (the default)`,
): T | string {
  const given = text(value);
  if (given === undefined) return fallback;
  if ((known as readonly string[]).includes(given)) return given;
  ignore(parts, name, given, used);
  return fallback;
}

/**
 * What a row's `shape` receives: its operation's `result` (the type generated from its document,
 * src/legacy/operations.generated.ts), once legacy-response.ts has answered a null and the error
 * members (`...ErrorFields`, whose typenames end in `Error`).
 */
export type Shaped<N extends OperationName> = Exclude<
  NonNullable<OperationResults[N]>,
  { __typename: `${string}Error` }
>;

/** A row that runs the operation named `N`. */
export interface OperationRouteOf<N extends OperationName> {
  method: 'get' | 'post' | 'delete';
  /** Full Express paths (most start with `/api`; a few legacy routes do not). */
  paths: string[];
  /** Name of the operation; its single root field is aliased `result`. */
  operation: N;
  /** May throw a DomainError (e.g. an unparsable legacy argument): answered as any domain error. */
  variables?: (request: RequestParts) => Record<string, unknown>;
  /** Legacy payload from the operation's `result` (a success member); `success: true` is added. */
  shape?: (result: Shaped<N>, request: RequestParts) => Record<string, unknown>;
  status?: number;
  /**
   * A GET row that changes state (legacy links such as `/api/groupe/rejoindre/:nom`): checked
   * against cross-site requests like unsafe methods (src/security/cross-site.ts), even if its
   * operation were a query. Required on a GET row that runs a mutation; the router refuses to start
   * otherwise, so the table always shows which links change state.
   */
  changesState?: true;
  /** Message of an unexpected failure (500) on this route, instead of the generic one. */
  internalErrorMessage?: string;
  /**
   * `/public/` routes: run as an anonymous caller whatever the cookie or token (API document,
   * "Routes whose path contains /public/ ignore the session"), and let proxies cache the answer.
   */
  publicCache?: boolean;
  /** Answer a time-out error when the operation takes longer (the operation itself only reads). */
  timeoutMs?: number;
  /**
   * For the few routes whose clients expect another body than the legacy envelope (jstree: a bare
   * array, errors included): turns the envelope into the body actually sent.
   */
  respond?: (response: LegacyResponse) => { status: number; body: unknown };
  /**
   * What the OpenAPI document says of the route (src/rest/openapi.ts); it changes nothing the route
   * does. Every row of src/rest/routes/ has one (test/integration/api-docs.test.ts).
   */
  doc?: RouteDoc;
}

/**
 * A row that runs an operation: one member per operation name, so that a row's `operation` types
 * its `shape` (a row of the table is an object literal: its name picks its member).
 */
export type OperationRoute = { [N in OperationName]: OperationRouteOf<N> }[OperationName];

/** Values read from the configuration at start-up (src/rest/openapi.ts). */
export type Configured = 'repositories' | 'peers';

/**
 * A path or query parameter: its schema, with a `description`; `required` when the service refuses
 * a request without it; `json` when its value is JSON text, whose schema is then the parsed value's
 * (OpenAPI `content`); `configured` when its values are baseIds the configuration knows: of the
 * repositories (this one and its peers) or of the peers alone; their `enum`, read at start-up (also
 * in a body's schema).
 */
export type ParameterDoc = JsonSchema & {
  description?: string;
  required?: true;
  json?: true;
  configured?: Configured;
};

/**
 * Documentation of a row: what cannot be read from the row itself. Paths, path parameters,
 * methods, the operation and its variables, the callers allowed and the error statuses are derived
 * (src/rest/openapi.ts); the test of test/integration/openapi-responses.test.ts checks real
 * answers against the result.
 */
export interface RouteDoc {
  summary: string;
  description?: string;
  /** Path parameters, when a string named like the segment says too little. */
  params?: Record<string, ParameterDoc>;
  /** Query parameters the row's `variables` read. */
  query?: Record<string, ParameterDoc>;
  /** The body the row's `variables` read (sent as JSON or as a form). */
  body?: JsonSchema;
  /** The legacy payload sent beside `success: true` (an object schema); none: `{success: true}` alone. */
  payload?: JsonSchema;
  /** Bodies by status that replace the derived ones (rows with `respond`, whose bodies differ). */
  responses?: Record<number, JsonSchema>;
  /**
   * The messages of the 400 answers the route's input checks give (GraphQL variables, the service's
   * validation), in the 400 response's description and examples.
   */
  invalid?: string[];
  /**
   * Inputs the route answers anyway without using them (legacy contract), each named in a
   * `Warning: 299` header of the answer: what they are, for the header's description.
   */
  ignored?: string;
  /** The row's `respond` turns every failure into another answer: no derived error statuses. */
  noDerivedErrors?: true;
}

/** `Cache-Control` of `/public/` answers: shared caches may keep them briefly. */
export const PUBLIC_CACHE_CONTROL = 'public, max-age=60';

/** An OPTIONS row: answers the CORS preflight with the methods the legacy route announced. */
export interface PreflightRoute {
  method: 'options';
  paths: string[];
  allowMethods: string;
}

export type LegacyRoute = OperationRoute | PreflightRoute;

/** First value of a query or body parameter, as a string, or undefined. */
export function text(value: unknown): string | undefined {
  const first = Array.isArray(value) ? value[0] : value;
  return first === undefined || first === null ? undefined : String(first);
}

/**
 * A numeric path id (`/api/ressource/:oid`). A path segment that cannot be an id (`abc`, `-1`,
 * `1.5`, beyond the 32-bit range) names nothing: "not found", like any unknown id.
 */
export function pathId(value: string | undefined): number {
  const id = parseId(value);
  if (id === undefined) throw new NotFoundError();
  return id;
}
