/**
 * The legacy routes: the Express router built from the route table, with the JSON 404 of `/api`,
 * and its place in the app.
 */
import etag from 'etag';
import { type Express, type Request, type Response, Router } from 'express';
import { type DocumentNode, type ExecutionResult, getOperationAST } from 'graphql';
import { RETRY_AFTER_SECONDS } from '../db/availability.ts';
import { DomainError, messages, statusOf } from '../errors.ts';
import type { OperationRunner } from '../gateway/operation-runner.ts';
import { type CorsFactory, DEFAULT_METHODS } from '../http/cors.ts';
import { addWarning } from '../lib/warning.ts';
import { failure, toLegacyResponse } from './legacy-response.ts';
import {
  type LegacyRoute,
  type OperationRoute,
  PUBLIC_CACHE_CONTROL,
  type RequestParts,
} from './route-table.ts';
import { legacyRoutes } from './routes/index.ts';

function requestParts(req: Request): RequestParts {
  const body = req.body && typeof req.body === 'object' && !Array.isArray(req.body) ? req.body : {};
  return {
    path: req.baseUrl + req.path,
    params: req.params as Record<string, string>,
    query: req.query as Record<string, unknown>,
    body,
    ...(typeof req.body === 'string' ? { text: req.body } : {}),
    ...(Array.isArray(req.body) ? { arrayBody: true as const } : {}),
    warnings: [],
  };
}

/** The request as an anonymous caller sends it: no session, no token. */
function withoutCredentials(req: Request): Request {
  const { cookie: _cookie, 'x-apitoken': _token, ...headers } = req.headers;
  return Object.create(req, { session: { value: undefined }, headers: { value: headers } });
}

/** Settles with `fallback` when `work` takes longer than `ms`. */
function withinTime<T>(work: Promise<T>, ms: number | undefined, fallback: T): Promise<T> {
  if (ms === undefined) return work;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(fallback), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

/** What a route answers: the legacy response, or what the row's `respond` made of it. */
type Answer = { status: number; body: unknown; headers?: Record<string, string> };

/** A public answer as sent: its JSON and weak ETag. */
interface PublicBody {
  json: string;
  etag: string;
}

/**
 * Public answers already written, by the execution result they were shaped from and the URL. The
 * response cache hands out the same result object for as long as it is current, so a repeated
 * anonymous read skips shaping, serializing and hashing; a change makes the cache compute a new
 * result, which has no entry here. Entries go with their result when the cache lets it go.
 */
const publicBodies = new WeakMap<ExecutionResult, Map<string, PublicBody>>();
/** URLs kept per result: the same resource asked with other query strings. */
const MAX_URLS_PER_RESULT = 8;

function publicBody(result: ExecutionResult, url: string, shape: () => Answer): PublicBody | Answer {
  const byUrl = publicBodies.get(result);
  const known = byUrl?.get(url);
  if (known) return known;
  const legacy = shape();
  if (legacy.status !== 200 || legacy.headers) return legacy;
  const json = JSON.stringify(legacy.body);
  const body = { json, etag: etag(json, { weak: true }) };
  if (!byUrl) publicBodies.set(result, new Map([[url, body]]));
  else if (byUrl.size < MAX_URLS_PER_RESULT) byUrl.set(url, body);
  return body;
}

function operationHandler(route: OperationRoute, runOperation: OperationRunner) {
  return async (req: Request, res: Response) => {
    const parts = requestParts(req);
    let variables: Record<string, unknown>;
    try {
      variables = route.variables ? route.variables(parts) : {};
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      res.status(statusOf(error.code)).json({ success: false, error: error.message });
      return;
    }
    const changesState = route.method !== 'get' || route.changesState === true;
    const answer = (result: ExecutionResult): Answer => {
      const legacy = toLegacyResponse(result, route, parts);
      return route.respond ? { ...route.respond(legacy), headers: legacy.headers } : legacy;
    };
    const caller = route.publicCache ? withoutCredentials(req) : req;
    const run = runOperation(route.operation, variables, { req: caller, res, changesState }).then(
      (result): PublicBody | Answer =>
        route.publicCache ? publicBody(result, req.originalUrl, () => answer(result)) : answer(result),
    );
    const sent = await withinTime(run, route.timeoutMs, failure(504, messages.timeout));
    for (const warning of parts.warnings) addWarning(res, warning);
    if (!('json' in sent)) return sendLegacy(res, sent);
    // With an ETag set, Express answers 304 itself when it matches If-None-Match.
    res.setHeader('Cache-Control', PUBLIC_CACHE_CONTROL);
    res.setHeader('ETag', sent.etag);
    res.status(200).type('json').send(sent.json);
  };
}

function sendLegacy(res: Response, { status, body, headers }: Answer): void {
  if (headers) res.set(headers);
  // Only a database outage answers 503: tell clients when to come back.
  if (status === 503) res.setHeader('Retry-After', String(RETRY_AFTER_SECONDS));
  res.status(status).json(body);
}

/**
 * OPTIONS answers OK with the route's methods. CORS headers are added when the origin is allowed;
 * otherwise the cors middleware passes on and we answer without them.
 */
function preflightHandler(corsFor: CorsFactory, allowMethods = DEFAULT_METHODS) {
  const withCors = corsFor(allowMethods);
  return (req: Request, res: Response) =>
    withCors(req, res, () => {
      res.setHeader('Access-Control-Allow-Methods', allowMethods);
      res.sendStatus(204);
    });
}

/**
 * The first two segments of a path, lower-cased (routes match whatever the case): every route of
 * the table starts with two fixed segments, so a request is tried only against the routes that
 * share its two, instead of walking the whole table (each route tried costs a match and, in the
 * router, a few allocations: a read of the last rows took 40 of them).
 */
function dispatchKey(path: string): string {
  const [, first = '', second = ''] = path.split('/', 3);
  return `/${first}/${second}`.toLowerCase();
}

/** `path`'s dispatch key, which must be two fixed segments (see dispatchKey). */
function routeKey(path: string, where: string): string {
  const segments = path.split('/').slice(1, 3);
  if (segments.length < 2 || !segments.every((segment) => /^[\w.-]+$/.test(segment)))
    throw new Error(`${where}: a route path starts with two fixed segments (dispatchKey)`);
  return dispatchKey(path);
}

export function buildLegacyRouter(
  routes: readonly LegacyRoute[],
  operations: ReadonlyMap<string, DocumentNode>,
  runOperation: OperationRunner,
  corsFor: CorsFactory,
): Router {
  // Routes by dispatch key, each group in the table's order (routes of two groups never match
  // the same path, so the order between groups does not matter).
  const groups = new Map<string, Router>();
  const groupOf = (path: string, where: string) => {
    const key = routeKey(path, where);
    const group = groups.get(key) ?? Router();
    groups.set(key, group);
    return group;
  };
  for (const route of routes) {
    for (const path of route.paths) {
      const where = `Route ${route.method.toUpperCase()} ${path}`;
      if (route.method === 'options') {
        groupOf(path, where).options(path, preflightHandler(corsFor, route.allowMethods));
        continue;
      }
      const document = operations.get(route.operation);
      if (!document) throw new Error(`${where} names unknown operation ${route.operation}`);
      // The table says which GETs change state; one that runs a mutation without saying so is a
      // mistake in the table (the cross-site policy checks mutations whatever the row says).
      if (
        route.method === 'get' &&
        !route.changesState &&
        getOperationAST(document)?.operation === 'mutation'
      ) {
        throw new Error(`${where} runs the mutation ${route.operation}: mark it changesState`);
      }
      groupOf(path, where)[route.method](path, operationHandler(route, runOperation));
    }
  }
  // `OPTIONS /api/*` passes to the CORS middleware (API document): last in each group too, before
  // the router would answer an OPTIONS that matched a route's path itself (200 and `Allow`).
  const preflightPaths = ['/api/{*rest}', '/groupe/{*rest}'];
  const preflight = preflightHandler(corsFor);
  for (const group of groups.values()) group.options(preflightPaths, preflight);
  const router = Router();
  router.use((req, res, next) => {
    const group = groups.get(dispatchKey(req.path));
    if (group) group(req, res, next);
    else next();
  });
  router.options(preflightPaths, preflight);
  router.use('/api', (_req, res) => {
    res.status(404).json({ success: false, error: messages.pageNotFound });
  });
  return router;
}

/** The legacy routes of the route table (src/rest/routes/), after the request pipeline. */
export function mountRest(
  app: Express,
  operations: ReadonlyMap<string, DocumentNode>,
  runOperation: OperationRunner,
  corsFor: CorsFactory,
): void {
  app.use(buildLegacyRouter(legacyRoutes, operations, runOperation, corsFor));
}
