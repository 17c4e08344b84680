/**
 * `/graphql`'s plain POST: a JSON body `{ query, operationName?, variables?, extensions? }`, what
 * every GraphQL client sends. Yoga's HTTP handling (a Fetch API request wrapping Express's parsed
 * body, an abort controller and listeners per request, the URL parsed twice, each request hook
 * iterated through promise helpers) costs such a request about a fifth more CPU than the REST route
 * running the same operation (docs/performance.md). This path skips only that wrapping, through
 * Yoga's public API:
 *
 *   - `yoga.getResultForParams` runs the operation as Yoga's handler does: the plugins' `onParams`
 *     and `onExecutionResult` hooks, the parse and validation caches, the context, the executor,
 *     the error masking;
 *   - `processRegularResult`, Yoga's exported JSON result processor, makes the answer: the one
 *     Yoga chooses for the `Accept` values taken here (none, `*` `/` `*`, `application/json`).
 *
 * What Yoga decides at the HTTP level before that is, for the requests taken here, what the GraphQL
 * over HTTP specification says for a POST of JSON to the endpoint: `plainParams` takes only those
 * (another method, content type or `Accept`, a query string, a batch, an odd body, a refused caller:
 * Yoga serves it). test/integration/plain-post.test.ts sends the same requests both ways and
 * compares the answers byte for byte, so an upgrade of Yoga that answers otherwise fails there.
 *
 * Plugins with HTTP-level hooks (`HTTP_HOOKS`: they act on the request or the response, which this
 * path never builds) would be skipped: when the service's plugins, or a deployment's, or one they
 * add, have one, the path is off, every request goes to Yoga, and the start-up log says why.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type Plugin, processRegularResult, type YogaServerInstance } from 'graphql-yoga';

/**
 * Hooks Yoga runs around the HTTP exchange, outside `getResultForParams` (instrumentation: its
 * request and operation spans wrap what this path calls directly).
 */
export const HTTP_HOOKS = [
  'onRequest',
  'onRequestParse',
  'onResponse',
  'onResultProcess',
  'instrumentation',
] as const;

/**
 * Two markers to put around the service's plugins in Yoga's list. Envelop hands every plugin's
 * `onPluginInit` the list of all plugins (its documented payload), with those a plugin adds spliced
 * in right after it; so once Yoga is built, what lies between the markers is every plugin the
 * service and a deployment brought, with what they added, and none of Yoga's built-ins.
 */
export function pluginMarkers() {
  let all: readonly Plugin[] = [];
  const first: Plugin = {
    onPluginInit({ plugins }) {
      all = plugins as Plugin[];
    },
  };
  const last: Plugin = {};
  return {
    first,
    last,
    /** The plugins between the markers (read after Yoga is built). */
    between: (): readonly Plugin[] => all.slice(all.indexOf(first) + 1, all.indexOf(last)),
  };
}

/** The HTTP-level hooks of the plugins, but those of `reproduced` (whose work the path does itself). */
export function httpHooksOf(plugins: readonly Plugin[], reproduced: ReadonlySet<object>): string[] {
  const hooks = new Set<string>();
  for (const plugin of plugins) {
    if (reproduced.has(plugin)) continue;
    for (const hook of HTTP_HOOKS) if (plugin[hook as keyof Plugin]) hooks.add(hook);
  }
  return [...hooks];
}

const PARAMS = new Set(['query', 'operationName', 'variables', 'extensions']);
const JSON_TYPES = new Set(['application/json', 'application/json; charset=utf-8']);
/** `Accept` values for which Yoga's result processors answer `application/json`, and nothing else. */
const JSON_ACCEPTS = new Set([undefined, '*/*', 'application/json']);
/** Yoga's default limit of a request body (Express's is lower). */
const YOGA_MAX_BODY_BYTES = 25_000_000;

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

interface Params {
  query: string;
  operationName?: string;
  variables?: Record<string, unknown>;
  extensions?: Record<string, unknown>;
}

/**
 * The body's GraphQL parameters, when the request is one Yoga would parse, check and answer as
 * this path does; otherwise undefined (Yoga serves it).
 */
function plainParams(req: IncomingMessage & { body?: unknown }): Params | undefined {
  if (req.method !== 'POST' || req.url !== '/graphql') return undefined;
  // As written: Yoga's match of a content type is case-sensitive.
  if (!JSON_TYPES.has(req.headers['content-type'] ?? '')) return undefined;
  if (!JSON_ACCEPTS.has(req.headers.accept)) return undefined;
  const length = req.headers['content-length'];
  if (!length || !/^\d+$/.test(length) || Number(length) > YOGA_MAX_BODY_BYTES) return undefined;
  const { body } = req;
  if (!isPlainObject(body) || Object.keys(body).length === 0) return undefined;
  for (const key in body) if (!PARAMS.has(key)) return undefined;
  const { query, operationName, variables, extensions } = body;
  // A subscription's answer is a stream (or Yoga's 406): its operation needs the keyword.
  if (typeof query !== 'string' || query.includes('subscription')) return undefined;
  if (operationName != null && typeof operationName !== 'string') return undefined;
  if (variables != null && !isPlainObject(variables)) return undefined;
  if (extensions != null && !isPlainObject(extensions)) return undefined;
  return body as unknown as Params;
}

type NodeContext = { req: IncomingMessage; res: ServerResponse };

export interface PlainPostOptions {
  /** The service's own HTTP-level hook, run here as Yoga runs it: whether the caller may go on. */
  requestPolicy: (req: IncomingMessage) => Promise<boolean>;
  /** HTTP-level hooks of the plugins (`httpHooksOf`): any turns the path off. */
  httpHooks: readonly string[];
}

/**
 * The handler of plain POSTs: it answers and returns a promise, or returns undefined for Yoga to
 * serve the request (always, when a plugin has an HTTP-level hook).
 */
export function createPlainPostHandler(
  yoga: Pick<YogaServerInstance<NodeContext, object>, 'getResultForParams' | 'fetchAPI' | 'waitUntil'>,
  options: PlainPostOptions,
) {
  const enabled = options.httpHooks.length === 0;
  // Read once: the server adapter's proxy binds a new function at every read of a method.
  const { fetchAPI, getResultForParams, waitUntil } = yoga;
  let served = 0;
  function servePlainPost(
    req: IncomingMessage & { body?: unknown },
    res: ServerResponse,
    decline: () => unknown,
  ): Promise<unknown> | undefined {
    if (!enabled) return undefined;
    const params = plainParams(req);
    if (!params) return undefined;
    return options.requestPolicy(req).then((allowed) => {
      if (!allowed) return decline();
      served++;
      return answer(req, res, params);
    });
  }
  /** Requests answered here (the tests' evidence of which path a request took). */
  servePlainPost.served = () => served;
  /** Whether the path is on (no plugin has an HTTP-level hook). */
  servePlainPost.enabled = enabled;
  return servePlainPost;

  async function answer(req: IncomingMessage, res: ServerResponse, params: Params) {
    // What Yoga's adapter builds from the Node request, without the body Express has read: the
    // context's `request` (a plugin may read its method or headers).
    const request = new fetchAPI.Request(`http://${req.headers.host ?? 'localhost'}${req.url}`, {
      method: 'POST',
      headers: req.headers as Record<string, string>,
    });
    // As the adapter's server context: a plugin may hand background work to `waitUntil`.
    const context: NodeContext & Pick<typeof yoga, 'waitUntil'> = { req, res, waitUntil };
    const result = await getResultForParams({ params, request }, context);
    // No subscription gets here, and the schema has no @defer or @stream: one result.
    if (!result || Symbol.asyncIterator in result) throw new Error('plain POST: no single result');
    await send(processRegularResult(result, fetchAPI, 'application/json'), res);
  }
}

/** As whatwg-node's sendNodeResponse writes a response whose body is a string. */
async function send(response: Response, res: ServerResponse) {
  if (res.closed || res.destroyed || res.writableEnded) return;
  const body = await response.text();
  res.setHeaders(response.headers);
  res.writeHead(response.status, response.statusText);
  if (!res.write(body)) await new Promise((resolve) => res.once('drain', resolve));
  res.end();
}
