/**
 * `/graphql`'s plain POST: a JSON body `{ query, operationName?, variables?, extensions? }`, what
 * every GraphQL client sends. Yoga's HTTP handling (a Fetch API request wrapping Express's parsed
 * body in a Proxy, an abort controller and listeners per request, the URL parsed twice, each
 * request hook iterated through promise helpers) cost such a request about a fifth more CPU than
 * the REST route running the same operation (docs/performance.md). This path skips only that
 * wrapping: what Yoga decides is still decided by Yoga's own code.
 *
 *   - Yoga's own `getResultForParams` runs the operation: its `onParams` and `onExecutionResult`
 *     hooks, the parse and validation caches, the context, the executor, the error masking.
 *   - Yoga's own result processors choose the answer (`onResultProcess`, `processRegularResult`),
 *     and it is written as whatwg-node writes it.
 *   - The request-level hooks Yoga would run before that are the ones this module knows, each
 *     reproduced below: the health check, GraphiQL and unknown-route answers (none applies to a
 *     POST to `/graphql`), the request parsers (Express parsed the JSON body, as Yoga's adapter
 *     hands it over), the body size, batching and method checks, and the service's cookie-caller
 *     policy (`requestPolicy`, the same function as the Yoga plugin's).
 *
 * Anything else goes to Yoga: another method, content type or `Accept`, a query string, an odd
 * body (a batch, a non-string query, another parameter), a refused caller. And when the Yoga
 * instance has a request-level hook this module does not know (a plugin added to the list, a
 * Yoga version whose built-ins changed), the path is off: every request goes to Yoga. The proof
 * of sameness is test/integration/plain-post.test.ts: the same requests both ways, compared byte
 * for byte.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ExecutionResult } from 'graphql';

/** The hooks Yoga runs around an operation, outside getResultForParams and the result processors. */
const REQUEST_HOOKS = ['onRequest', 'onRequestParse', 'onResponse', 'onParams', 'onExecutionResult'] as const;

/**
 * Yoga 5.24's built-in request-level hooks, by a digest of their source, each with how many times
 * Yoga installs it: each is reproduced by `plainParams` below (onParams: its checks are met there).
 * A hook not listed, or listed but installed more often (a sixth request parser), turns the path
 * off. test/integration/plain-post.test.ts prints the digests when they change.
 */
export const KNOWN_BUILT_IN_HOOKS: ReadonlyMap<string, number> = new Map([
  // useHealthCheck: answers GET …/health; a POST to /graphql is not one.
  ['onRequest:1bd96e3846da', 1],
  // useGraphiQL (when enabled): answers a GET accepting text/html.
  ['onRequest:356e5b882da7', 1],
  // useUnhandledRoute: answers paths other than /graphql.
  ['onRequest:01630c70fbd9', 1],
  // useRequestParser, five times (GET, POST JSON, multipart, application/graphql, forms): only
  // POST JSON matches a JSON content type; Express parsed the body, as Yoga's adapter hands it over.
  ['onRequestParse:5e81d6f2bfa3', 5],
  // useLimitRequestBodySize: a Content-Length of digits, at most 25 MB (Express's limit is lower).
  ['onRequestParse:ef023b5b414a', 1],
  // useLimitBatching: no array body.
  ['onRequestParse:efd2460dba33', 1],
  // useCheckMethodForGraphQL: POST.
  ['onRequestParse:73f5aae8bdd9', 1],
  // useCheckGraphQLQueryParams: the body's keys and their types (run by getResultForParams, which
  // would reject, where Yoga answers 400, if they did not pass).
  ['onParams:e79f2303483a', 1],
]);

/** Yoga's default limit of a request body (useLimitRequestBodySize). */
const YOGA_MAX_BODY_BYTES = 25_000_000;

const digest = (hook: unknown) => createHash('sha256').update(String(hook)).digest('hex').slice(0, 12);

/**
 * A Yoga instance (the server adapter createYoga returns). Typed by what is read of it here, not
 * as src/gateway/yoga.ts's `Yoga`: that module builds this one's handler.
 */
type YogaInstance = object;

/** The request-level hooks of a Yoga instance, as `hook:digest`, and the plugins they come from. */
export function requestHooks(yoga: YogaInstance): { plugin: object; hook: string }[] {
  const plugins = (yoga as unknown as { plugins: (Record<string, unknown> | false | undefined)[] }).plugins;
  return plugins.flatMap((plugin) =>
    plugin
      ? REQUEST_HOOKS.flatMap((name) =>
          plugin[name] ? [{ plugin, hook: `${name}:${digest(plugin[name])}` }] : [],
        )
      : [],
  );
}

/**
 * Whether every request-level hook of the instance is one this module reproduces: Yoga's known
 * built-ins, and the plugins it is handed (`reproduced`), whose hooks it runs itself.
 */
export function reproducesEveryRequestHook(yoga: YogaInstance, reproduced: ReadonlySet<object>): boolean {
  if ((yoga as unknown as { instrumentation?: unknown }).instrumentation) return false;
  const installed = new Map<string, number>();
  for (const { plugin, hook } of requestHooks(yoga)) {
    if (!reproduced.has(plugin)) installed.set(hook, (installed.get(hook) ?? 0) + 1);
  }
  return [...installed].every(([hook, count]) => count <= (KNOWN_BUILT_IN_HOOKS.get(hook) ?? 0));
}

const PARAMS = new Set(['query', 'operationName', 'variables', 'extensions']);
const JSON_TYPES = new Set(['application/json', 'application/json; charset=utf-8']);
/** `Accept` values for which Yoga's processors answer `application/json` (and nothing else). */
const JSON_ACCEPTS = new Set([undefined, '*/*', 'application/json']);

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

interface Params {
  query: string;
  operationName?: string | null;
  variables?: Record<string, unknown> | null;
  extensions?: Record<string, unknown> | null;
}

/**
 * The body's GraphQL parameters, when the request is one Yoga would parse, check and answer as
 * this module does; otherwise undefined (Yoga serves it).
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

/** What the server instance offers beyond its typings (public properties of YogaServer). */
interface YogaInternals {
  fetchAPI: { Request: typeof Request };
  waitUntil: (promise: Promise<unknown>) => void;
  onResultProcessHooks: ((payload: Record<string, unknown>) => unknown)[];
  getResultForParams: (
    payload: { params: Params; request: Request },
    context: Record<string, unknown>,
  ) => Promise<ExecutionResult> | ExecutionResult;
}

type ResultProcessor = (
  result: unknown,
  fetchAPI: unknown,
  mediaType: string,
) => Response | Promise<Response>;

export interface PlainPostOptions {
  /** The service's own request hook, run here as Yoga runs it: whether the caller may go on. */
  requestPolicy: (req: IncomingMessage) => Promise<boolean>;
  /** The plugins whose request-level hooks `requestPolicy` reproduces. */
  reproduced: ReadonlySet<object>;
}

/**
 * The handler of plain POSTs: it answers and returns a promise, or returns undefined for Yoga to
 * serve the request (always, when the instance has a hook this module does not reproduce).
 */
export function createPlainPostHandler(yoga: YogaInstance, options: PlainPostOptions) {
  const enabled = reproducesEveryRequestHook(yoga, options.reproduced);
  // Read once: the adapter's proxy binds a new function at every read of a method.
  const { fetchAPI, waitUntil, onResultProcessHooks, getResultForParams } = yoga as unknown as YogaInternals;
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
  /** Whether the path is on (every request-level hook of the instance reproduced). */
  servePlainPost.enabled = enabled;
  return servePlainPost;

  async function answer(req: IncomingMessage, res: ServerResponse, params: Params) {
    // What Yoga's adapter builds from the Node request, without the body Express has read: the
    // context's `request` (a plugin may read its method or headers) and the result processors' input.
    const request = new fetchAPI.Request(`http://${req.headers.host ?? 'localhost'}${req.url}`, {
      method: 'POST',
      headers: req.headers as Record<string, string>,
    });
    const context = { req, res, waitUntil };
    const result = await getResultForParams({ params, request }, context);
    // No subscription gets here, and the schema has no @defer or @stream.
    if (Symbol.asyncIterator in result) throw new Error('plain POST: a streamed result');
    // Yoga's processResult, with the same hooks: the processor for what the request accepts.
    let processor: ResultProcessor | undefined;
    let mediaType = '*/*';
    let processed: unknown = result;
    const acceptableMediaTypes: string[] = [];
    for (const hook of onResultProcessHooks) {
      await hook({
        request,
        acceptableMediaTypes,
        result: processed,
        setResult: (next: unknown) => {
          processed = next;
        },
        resultProcessor: processor,
        setResultProcessor: (next: ResultProcessor, type: string) => {
          processor = next;
          mediaType = type;
        },
        serverContext: context,
      });
    }
    // JSON_ACCEPTS and a non-subscription result always find the JSON processor; anything else
    // would have needed Yoga's 406.
    if (!processor) throw new Error('plain POST: no result processor');
    const response = await processor(processed, fetchAPI, mediaType);
    await send(response, res);
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
