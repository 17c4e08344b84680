/**
 * The GraphQL server: Yoga over the Pothos schema, with the shared context factory, masking of
 * unexpected errors, and the protections every operation passes through, whichever transport
 * brought it (the REST layer executes through this same pipeline):
 *   - limits on depth, aliases, cost, tokens and directives (graphql-armor), and a depth limit of
 *     its own for introspection (src/gateway/introspection-depth.ts);
 *   - input that cannot be valid refused before execution (src/security/input-limits.ts);
 *   - state-changing operations refused when a browser was made to send them by another site
 *     (src/security/cross-site.ts);
 *   - no "Did you mean …" in any error message (they map the schema for a prober);
 *   - introspection and GraphiQL (served without a CDN) can each be turned off.
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import { EnvelopArmor } from '@escape.tech/graphql-armor';
import {
  type DocumentNode,
  type ExecutionResult,
  GraphQLError,
  NoSchemaIntrospectionCustomRule,
} from 'graphql';
import { createYoga, maskError, type Plugin, type YogaLogger, type YogaServerInstance } from 'graphql-yoga';
import { authenticateApiToken } from '../auth/api-tokens.ts';
import type { Context, createContextFactory, Services } from '../context.ts';
import { serviceUnavailableError } from '../db/availability.ts';
import { countReturnedErrors, useOperationObservation } from '../observability/metrics.ts';
import { graphqlRequestVerdict, type TransportFacts, useCrossSitePolicy } from '../security/cross-site.ts';
import { useInputLimits } from '../security/input-limits.ts';
import { useExecution } from './execution.ts';
import { type GraphiQLPage, graphiqlPage, TOKEN_HEADER_HINT } from './graphiql.ts';
import { exampleTabsSource } from './graphiql-examples.ts';
import { useIntrospectionDepthLimit } from './introspection-depth.ts';
import { createPlainPostHandler, httpHooksOf, pluginMarkers } from './plain-post.ts';
import { usePublicResponseCache } from './response-cache.ts';
import { schema } from './schema.ts';

export type ServerContext = { req: IncomingMessage; res: ServerResponse } & TransportFacts;
export type Yoga = YogaServerInstance<ServerContext, Context>;

function yogaLogger(services: Services): YogaLogger {
  const log = services.logger.child({ component: 'graphql' });
  return {
    // Yoga logs at debug level on every request: the line is made only if it will be written.
    debug: (...args) => {
      if (log.isLevelEnabled('debug')) log.debug(args.map(String).join(' '));
    },
    info: (...args) => log.info(args.map(String).join(' ')),
    warn: (...args) => log.warn(args.map(String).join(' ')),
    error: (...args) => {
      // An outage is logged once by the availability monitor, not as a stack per request.
      if (args.some((a) => services.database.report(a))) return;
      log.error({ err: args.find((a) => a instanceof Error) }, args.map(String).join(' '));
    },
  };
}

const SUGGESTION = /\s*Did you mean [^?]*\?/g;

/**
 * The error without its "Did you mean …" suggestion: a copy, since an error's message may be
 * read-only (errors of compiled execution were).
 */
function withoutSuggestion<E extends Error>(error: E): E {
  const message = error.message.replace(SUGGESTION, '');
  if (message === error.message) return error;
  const { message: _message, ...descriptors } = Object.getOwnPropertyDescriptors(error);
  const copy = Object.create(Object.getPrototypeOf(error), descriptors) as E;
  Object.defineProperty(copy, 'message', { value: message, writable: true, configurable: true });
  return copy;
}

/**
 * Removes "Did you mean …" from every message, from validation (unknown fields, arguments, types)
 * as well as from execution (variable coercion: "Did you mean the enum value …").
 */
function useNoSuggestions(): Plugin {
  return {
    onValidate:
      () =>
      ({ result }) => {
        const errors = result as Error[];
        errors.forEach((error, index) => {
          errors[index] = withoutSuggestion(error);
        });
      },
    onExecute: () => ({
      onExecuteDone: ({ result, setResult }) => {
        if (Symbol.asyncIterator in result) return;
        const { errors } = result as ExecutionResult;
        if (errors?.some((error) => error.message.includes('Did you mean')))
          setResult({ ...(result as ExecutionResult), errors: errors.map(withoutSuggestion) });
      },
    }),
  };
}

/** Schema introspection refused (`__schema`, `__type`), for deployments that turn it off. */
function useNoIntrospection(): Plugin {
  return {
    onValidate: ({ addValidationRule }) => {
      addValidationRule(NoSchemaIntrospectionCustomRule);
    },
  };
}

/**
 * `/graphql` over HTTP: a cookie caller's request must be one a page of another site cannot send
 * without a CORS preflight (see `graphqlRequestVerdict`). The REST layer does not pass here.
 * Returns the refusal, or undefined.
 */
function graphqlRequestPolicy(services: Services) {
  const { session } = services.config;
  return async (req: IncomingMessage): Promise<GraphQLError | undefined> => {
    const token = await authenticateApiToken(req, services.config);
    const verdict = graphqlRequestVerdict(req, session.cookieName, token);
    if (verdict.allowed) return undefined;
    return new GraphQLError(`Requête refusée : ${verdict.reason}`, {
      extensions: { code: 'CROSS_SITE_REQUEST', http: { status: 403 } },
    });
  };
}

function useGraphQLRequestPolicy(
  refusal: ReturnType<typeof graphqlRequestPolicy>,
): Plugin<object, ServerContext> {
  return {
    async onRequestParse({ serverContext }) {
      const req = serverContext?.req;
      if (!req) return;
      const refused = await refusal(req);
      if (refused) throw refused;
    },
  };
}

export interface GraphQLServer {
  yoga: Yoga;
  /** The GraphiQL page, when enabled: its policy is set on the response before Yoga serves it. */
  graphiql: GraphiQLPage | undefined;
  /** `/graphql`'s plain JSON POSTs, answered by Yoga's own code without its HTTP wrapping. */
  plainPost: ReturnType<typeof createPlainPostHandler>;
}

export interface GraphQLServerOptions {
  /**
   * Named operations GraphiQL opens on as example tabs (operation name → a document holding it):
   * the composition passes those the REST routes run, so that each one works as shown.
   */
  exampleOperations: ReadonlyMap<string, DocumentNode>;
  /** Plugins added after the service's: a deployment's (createApp's `graphqlPlugins`), a test's. */
  extraPlugins?: Plugin[];
  /**
   * The service's own documents (the REST layer's): compiled at their first execution, where a
   * client's document is compiled once it has run a few times (src/gateway/execution.ts).
   */
  trustedDocuments?: Iterable<DocumentNode>;
}

export function createGraphQLServer(
  services: Services,
  createContext: ReturnType<typeof createContextFactory>,
  options: GraphQLServerOptions,
): GraphQLServer {
  const limits = services.config.graphql;
  const armor = new EnvelopArmor({
    // Introspection has a depth limit of its own (useIntrospectionDepthLimit).
    maxDepth: { n: limits.maxDepth },
    maxAliases: { n: limits.maxAliases },
    costLimit: { maxCost: limits.maxCost },
    maxTokens: { n: limits.maxTokens },
    maxDirectives: { n: limits.maxDirectives },
    // Replaced by useNoSuggestions, which also covers execution errors.
    blockFieldSuggestion: { enabled: false },
  });
  if (services.metrics) countReturnedErrors(schema);
  const graphiql = limits.graphiql
    ? graphiqlPage(
        { title: 'Resource Repository — GraphiQL', headers: TOKEN_HEADER_HINT },
        exampleTabsSource(options.exampleOperations, services.config.baseUrl),
      )
    : undefined;
  const requestPolicy = graphqlRequestPolicy(services);
  const requestPolicyPlugin = useGraphQLRequestPolicy(requestPolicy);
  const markers = pluginMarkers();
  const yoga = createYoga<ServerContext, Context>({
    schema,
    graphqlEndpoint: '/graphql',
    context: ({ req, res }) => createContext({ req, res }),
    graphiql: graphiql ? graphiql.options : false,
    renderGraphiQL: async () => (graphiql ? (await graphiql.rendered()).html : ''),
    landingPage: false,
    // CORS is Express's job, with one policy for /api and /graphql.
    cors: false,
    maskedErrors: {
      isDev: limits.exposeInternalErrors,
      // A database outage is an expected condition with a code of its own, not an internal error.
      maskError: (error, message, isDev) =>
        services.database.report(error)
          ? serviceUnavailableError(error instanceof GraphQLError ? error : undefined)
          : maskError(error, message, isDev),
    },
    logging: yogaLogger(services),
    plugins: [
      markers.first,
      // First: operation names reach the request log line, and cached answers are timed too.
      useOperationObservation(services.metrics),
      ...armor.protect().plugins,
      useIntrospectionDepthLimit(limits.maxIntrospectionDepth),
      ...(limits.introspection ? [] : [useNoIntrospection()]),
      // Suggestions stay only where internal errors are shown anyway (development).
      ...(limits.exposeInternalErrors ? [] : [useNoSuggestions()]),
      requestPolicyPlugin,
      // A forged request is refused as such, whatever its input.
      useCrossSitePolicy(services.config),
      useInputLimits(services.config.input),
      // After the checks above (a refused operation runs nothing), before the response cache
      // (which wraps it, and hands it the documents it derives).
      useExecution(schema, { trusted: options.trustedDocuments }),
      // Last: a cached answer is served only to a request every check above let through.
      usePublicResponseCache(services.config.responseCache),
      ...(options.extraPlugins ?? []),
      markers.last,
    ],
  });
  const httpHooks = httpHooksOf(markers.between(), new Set([requestPolicyPlugin]));
  if (httpHooks.length > 0) {
    services.logger.warn(
      { component: 'graphql', hooks: httpHooks },
      `plain POST path of /graphql off: a plugin has HTTP-level hooks (${httpHooks.join(', ')}), so every ` +
        "request goes through Yoga's HTTP handling, about a fifth more CPU per request (docs/performance.md)",
    );
  }
  const plainPost = createPlainPostHandler(yoga, {
    requestPolicy: async (req) => !(await requestPolicy(req)),
    httpHooks,
  });
  return { yoga, graphiql, plainPost };
}
