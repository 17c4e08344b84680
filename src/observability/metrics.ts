/**
 * Prometheus metrics (prom-client), one registry per service instance (tests build many apps in
 * one process; the global registry would refuse the second registration). Nothing here adds a
 * database statement to a request: request metrics are in-memory counters, and the outbox and
 * pool gauges are read when Prometheus scrapes (one statement per scrape, none on SQLite's pool).
 *
 * Label values are bounded: HTTP routes are route-table patterns, never raw paths; GraphQL
 * operation names are those of the first `MAX_OPERATION_NAMES` seen, the rest `other`; error
 * codes are the closed vocabulary of src/errors.ts.
 */
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { type GraphQLSchema, getOperationAST, isObjectType } from 'graphql';
import { type Plugin, useErrorHandler } from 'graphql-yoga';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { Config } from '../config.ts';
import { db, poolStatistics } from '../db/client.ts';
import { type DomainError, ERROR_STATUS, type ErrorCode } from '../errors.ts';
import { requestFacts, startRequestFacts } from '../logging/request-facts.ts';

export type Transport = 'rest' | 'graphql';

/** Client-chosen operation names are kept up to this many distinct values. */
export const MAX_OPERATION_NAMES = 200;

const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export interface Metrics {
  registry: Registry;
  observeRequest(method: string, route: string, status: number, seconds: number): void;
  observeOperation(operation: string, transport: Transport, seconds: number): void;
  countError(code: string | undefined, transport: Transport): void;
}

const errorCodeOf = (code: unknown): ErrorCode =>
  typeof code === 'string' && code in ERROR_STATUS ? (code as ErrorCode) : 'INTERNAL';

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requests = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP requests by method, route pattern and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const operations = new Histogram({
    name: 'graphql_operation_duration_seconds',
    help: 'GraphQL operations (REST routes run named ones) by operation name and transport',
    labelNames: ['operation', 'transport'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const errors = new Counter({
    name: 'errors_total',
    help: 'Errors answered, by code of src/errors.ts and transport',
    labelNames: ['code', 'transport'] as const,
    registers: [registry],
  });
  // Gauges read when scraped; the registry holds them.
  new Gauge({
    name: 'outbox_messages',
    help: 'Messages to peers in the outbox, by status (pending: not yet delivered; failed: given up)',
    labelNames: ['status'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      try {
        const rows = await db.outboxMessage.groupBy({ by: ['status'], _count: { _all: true } });
        // The usual statuses are always exported, at 0 when absent.
        for (const status of ['pending', 'failed', 'delivered']) this.set({ status }, 0);
        for (const row of rows) this.set({ status: row.status }, row._count._all);
      } catch {
        // Database unreachable: no outbox figures in this scrape (the others are still worth having).
      }
    },
  });
  new Gauge({
    name: 'db_pool_connections',
    help: 'PostgreSQL pool connections: total, idle, and waiting (queued clients)',
    labelNames: ['state'] as const,
    registers: [registry],
    collect() {
      const stats = poolStatistics();
      this.reset();
      if (!stats) return;
      this.set({ state: 'total' }, stats.total);
      this.set({ state: 'idle' }, stats.idle);
      this.set({ state: 'waiting' }, stats.waiting);
    },
  });

  const names = new Set<string>();
  const boundedName = (operation: string) => {
    if (names.has(operation)) return operation;
    if (names.size >= MAX_OPERATION_NAMES) return 'other';
    names.add(operation);
    return operation;
  };

  return {
    registry,
    observeRequest: (method, route, status, seconds) =>
      requests.observe({ method, route, status: String(status) }, seconds),
    observeOperation: (operation, transport, seconds) =>
      operations.observe({ operation: boundedName(operation), transport }, seconds),
    countError: (code, transport) => errors.inc({ code: errorCodeOf(code), transport }),
  };
}

type ExpressLike = IncomingMessage & { route?: { path?: unknown }; baseUrl?: string; method: string };

/**
 * First middleware: starts the request's facts (src/logging/request-facts.ts) and, with
 * metrics on, times the request. The route label is the matched route's pattern.
 */
export function observeRequests(metrics: Metrics | undefined) {
  return (req: IncomingMessage, res: ServerResponse, next: () => void) => {
    startRequestFacts(req);
    if (metrics) {
      const started = performance.now();
      res.once('close', () => {
        const request = req as ExpressLike;
        const pattern = request.route?.path;
        const route = typeof pattern === 'string' ? `${request.baseUrl ?? ''}${pattern}` : 'unmatched';
        metrics.observeRequest(request.method, route, res.statusCode, (performance.now() - started) / 1000);
      });
    }
    next();
  };
}

interface ExecutionContext {
  req?: IncomingMessage & { originalUrl?: string };
  services?: { metrics?: Metrics };
}

/** REST routes reach the pipeline under /api and /groupe, GraphQL under /graphql. */
export function transportOf(context: ExecutionContext | undefined): Transport {
  return context?.req?.originalUrl?.startsWith('/graphql') ? 'graphql' : 'rest';
}

/**
 * Yoga plugin: records the operation name in the request's facts (for the log line) and, with
 * metrics on, times execution and counts thrown errors, from both transports. First in the
 * plugin list, so that answers from the response cache are timed too.
 */
export function useOperationObservation(metrics: Metrics | undefined): Plugin {
  const observe: Plugin = {
    onExecute({ args }) {
      const context = args.contextValue as ExecutionContext;
      const operation =
        args.operationName ?? getOperationAST(args.document, args.operationName)?.name?.value ?? 'anonymous';
      requestFacts(context.req).operation = operation;
      if (!metrics) return;
      const started = performance.now();
      return {
        onExecuteDone() {
          metrics.observeOperation(operation, transportOf(context), (performance.now() - started) / 1000);
        },
      };
    },
  };
  if (!metrics) return observe;
  const thrown = useErrorHandler(({ errors, context, phase }) => {
    // In the execution phase `context` holds the execution arguments.
    const execution = (context as { contextValue?: ExecutionContext }).contextValue;
    const transport = transportOf(execution ?? (context as ExecutionContext));
    for (const error of errors) {
      const code = (error as { extensions?: { code?: unknown } }).extensions?.code;
      // Documents that do not parse or validate are bad input, whatever graphql-js calls them.
      metrics.countError(
        phase === 'parse' || phase === 'validate' ? 'INVALID_INPUT' : String(code),
        transport,
      );
    }
  });
  return { ...observe, onPluginInit: ({ addPlugin }) => addPlugin(thrown as Plugin) };
}

const watched = new WeakSet<GraphQLSchema>();

/**
 * Typed errors a root field returns (members of its result union) never reach the execution
 * result's `errors`: counted where the root field resolves. Wraps root resolvers once per schema.
 */
export function countReturnedErrors(schema: GraphQLSchema): void {
  if (watched.has(schema)) return;
  watched.add(schema);
  for (const type of [schema.getQueryType(), schema.getMutationType()]) {
    if (!isObjectType(type)) continue;
    for (const field of Object.values(type.getFields())) {
      const resolve = field.resolve;
      if (!resolve) continue;
      const note = (result: unknown, context: ExecutionContext) => {
        // Duck-typed: the errors plugin hands on the error in a form `instanceof` does not recognise.
        const code = (result as Partial<DomainError> | null)?.code;
        if (typeof code === 'string' && code in ERROR_STATUS) {
          context.services?.metrics?.countError(code, transportOf(context));
        }
        return result;
      };
      field.resolve = (source, args, context: ExecutionContext, info) => {
        const result = resolve(source, args, context, info);
        return typeof (result as PromiseLike<unknown> | undefined)?.then === 'function'
          ? (result as PromiseLike<unknown>).then((value) => note(value, context))
          : note(result, context);
      };
    }
  }
}

/** A bearer token compared in constant time. */
function bearerMatches(header: string | undefined, token: string): boolean {
  const presented = Buffer.from(header?.startsWith('Bearer ') ? header.slice(7) : '');
  const expected = Buffer.from(token);
  return presented.length === expected.length && timingSafeEqual(presented, expected);
}

/** `GET /metrics`: the registry in Prometheus' text format, for `Authorization: Bearer <metrics.bearerToken>`. */
export function metricsHandler(metrics: Metrics, config: Config['metrics']) {
  return async (req: IncomingMessage, res: ServerResponse) => {
    if (!config.bearerToken || !bearerMatches(req.headers.authorization, config.bearerToken)) {
      res.statusCode = 401;
      res.setHeader('WWW-Authenticate', 'Bearer realm="metrics"');
      res.setHeader('Content-Type', 'application/json; charset=utf-8');
      res.end(JSON.stringify({ success: false, error: 'Authentification requise' }));
      return;
    }
    const body = await metrics.registry.metrics();
    res.setHeader('Content-Type', metrics.registry.contentType);
    res.setHeader('Cache-Control', 'no-store');
    res.end(body);
  };
}
