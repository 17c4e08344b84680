/**
 * The shape of a legacy route. Each `/api` route is one row: method and paths, the named GraphQL
 * operation it runs (src/rest/operations/*.graphql), how the variables come from the request, how
 * the operation's result becomes the legacy JSON, and the success status. A row holds no rule of
 * its own: permissions and validation live in the GraphQL schema and its services.
 */
import type { LegacyResponse } from './legacy-response.ts';

export interface RequestParts {
  /** The request path, without the query string. */
  path: string;
  params: Record<string, string>;
  query: Record<string, unknown>;
  body: Record<string, unknown>;
  /** A `text/plain` body, as sent (e.g. by `navigator.sendBeacon`). */
  text?: string;
}

export interface OperationRoute {
  method: 'get' | 'post' | 'delete';
  /** Full Express paths (most start with `/api`; a few legacy routes do not). */
  paths: string[];
  /** Name of the operation; its single root field is aliased `result`. */
  operation: string;
  /** May throw a DomainError (e.g. an unparsable legacy argument): answered as any domain error. */
  variables?: (request: RequestParts) => Record<string, unknown>;
  /** Legacy payload from the operation's `result` (a success member); `success: true` is added. */
  // biome-ignore lint/suspicious/noExplicitAny: results are shaped by documents validated at start-up.
  shape?: (result: any, request: RequestParts) => Record<string, unknown>;
  status?: number;
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
}

/** `Cache-Control` of `/public/` answers: shared caches may keep them briefly. */
export const PUBLIC_CACHE_CONTROL = 'public, max-age=60';

/** Methods announced by OPTIONS on routes that name none. */
export const DEFAULT_METHODS = 'GET,POST,DELETE,OPTIONS';

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

/** A numeric path id as a number; anything else as written, so that GraphQL refuses it (400). */
export function pathInteger(value: string | undefined): number | string | undefined {
  return /^\d+$/.test(value ?? '') ? Number(value) : value;
}
