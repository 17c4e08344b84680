/**
 * createApp(): the Express application. Request flow, in the order the surfaces are mounted:
 *
 *   HTTP → metrics, request id and log line (src/logging/request-log.ts) → security headers
 *        (helmet) → compression
 *        → `/`, /healthz, /readyz (src/http/probes.ts)
 *        → /api/docs, /api/openapi.json (src/rest/api-docs.ts)
 *        → /oai: the OAI-PMH data provider (src/oai/mount.ts)
 *        → /metrics
 *        → /api, /groupe, /graphql: CORS → body parsers (size limits for every content type)
 *          → hostile-input check → session (src/http/request-pipeline.ts)
 *          → /graphql: Yoga (src/http/graphql-endpoint.ts; a plain JSON POST: Yoga's public
 *            getResultForParams and JSON result processor without its HTTP wrapping,
 *            src/gateway/plain-post.ts)
 *          → /api, /groupe: route table → named operation → Yoga's enveloped pipeline → same
 *            resolvers (src/rest/router.ts)
 *        → errors no surface answered (src/http/errors.ts)
 *
 * Cross-site request forgery, input limits and rate limits are enforced in the GraphQL pipeline
 * that both transports share (src/security/), not per route.
 */
import { randomBytes } from 'node:crypto';
import express, { type Express } from 'express';
import type { Plugin } from 'graphql-yoga';
import { createSessionStore } from './auth/session-store.ts';
import { assertFitForEnvironment, type Config } from './config.ts';
import { coreServices, createContextFactory, type Services } from './context.ts';
import { db } from './db/client.ts';
import { isUniqueViolation } from './db/errors.ts';
import { createOperationRunner, type OperationRunner } from './gateway/operation-runner.ts';
import { schema } from './gateway/schema.ts';
import { createGraphQLServer } from './gateway/yoga.ts';
import { compressAnswers } from './http/compression.ts';
import { labCors } from './http/cors.ts';
import { mountErrorHandlers } from './http/errors.ts';
import { mountGraphQL } from './http/graphql-endpoint.ts';
import { isPolled, mountProbes } from './http/probes.ts';
import { parseQueryString } from './http/query-string.ts';
import { mountRequestPipeline } from './http/request-pipeline.ts';
import { securityHeaders } from './http/security-headers.ts';
import { lazySessions } from './http/sessions.ts';
import { createLogger, type Logger } from './logging/logger.ts';
import { logRequests } from './logging/request-log.ts';
import { loadHarvestOperations } from './oai/graphql-source.ts';
import { mountOai } from './oai/mount.ts';
import { oaiPathItem } from './oai/openapi.ts';
import { oaiSettings } from './oai/settings.ts';
import { createMetrics, metricsHandler, observeRequests } from './observability/metrics.ts';
import { mountApiDocs } from './rest/api-docs.ts';
import { loadRestOperations } from './rest/operations.ts';
import { mountRest } from './rest/router.ts';
import { createAbuseLimits } from './security/abuse-limits.ts';

export interface AppOptions {
  logger?: Logger;
  /** Plugins appended to Yoga's (a deployment's tracing, say; tests of the plain POST path). */
  graphqlPlugins?: Plugin[];
}

export interface App {
  app: express.Express;
  services: Services;
  /**
   * Runs the OAI-PMH data provider's operations (src/oai/operations.graphql) through the pipeline
   * the REST routes use; src/oai/graphql-source.ts makes the HarvestSource of a request with it.
   */
  runHarvestOperation: OperationRunner;
  /** `/graphql` requests answered by the plain POST path (src/gateway/plain-post.ts). */
  plainPostsServed(): number;
  close(): Promise<void>;
}

export async function createApp(config: Config, options: AppOptions = {}): Promise<App> {
  assertFitForEnvironment(config);
  const logger = options.logger ?? createLogger(config.logLevel);
  const services: Services = {
    ...coreServices(config, logger),
    abuse: await createAbuseLimits(config, logger),
    // Collected only where someone may read them.
    metrics: config.metrics.bearerToken ? createMetrics() : undefined,
  };
  const gateway = createGateway(services, options.graphqlPlugins);
  const corsFor = labCors(config);
  const sessionStore = createSessionStore(config);
  const secret = await resolveSessionSecret(config);
  const harvest = oaiSettings(config, secret);

  const app = expressApp(config);
  app.use(observeRequests(services.metrics));
  app.use(logRequests(app, logger, isPolled));
  app.use(securityHeaders());
  app.use(compressAnswers());
  mountProbes(app, config, services.database);
  mountApiDocs(app, config, {
    operations: gateway.operations,
    schema: () => gateway.yoga.getEnveloped().schema,
    oaiPathItem: oaiPathItem(harvest.repositoryIdentifier),
  });
  mountOai(app, harvest, gateway.runHarvestOperation);
  if (services.metrics) app.get('/metrics', metricsHandler(services.metrics, config.metrics));
  mountRequestPipeline(app, config, corsFor, lazySessions(config, secret, sessionStore));
  mountGraphQL(app, gateway);
  mountRest(app, gateway.operations, gateway.runOperation, corsFor);
  mountErrorHandlers(app, services.database);

  return {
    app,
    services,
    runHarvestOperation: gateway.runHarvestOperation,
    plainPostsServed: gateway.plainPost.served,
    close: async () => {
      await services.subscriptions.close();
      services.database.stop();
      await sessionStore.shutdown();
      await services.abuse.close();
    },
  };
}

/**
 * The GraphQL server, and the runners of the named operations that the REST routes and the OAI-PMH
 * provider send through its pipeline. Both sets are validated once here and trusted (compiled at
 * their first run); GraphiQL shows the REST ones as examples.
 */
function createGateway(services: Services, extraPlugins: Plugin[] | undefined) {
  const createContext = createContextFactory(services);
  const operations = loadRestOperations(schema);
  const harvestOperations = loadHarvestOperations(schema);
  const server = createGraphQLServer(services, createContext, {
    exampleOperations: operations,
    trustedDocuments: [...operations.values(), ...harvestOperations.values()],
    extraPlugins,
  });
  return {
    ...server,
    operations,
    runOperation: createOperationRunner(server.yoga, operations),
    runHarvestOperation: createOperationRunner(server.yoga, harvestOperations),
  };
}

/**
 * The configured session secret, or one generated once and stored in the database so that every
 * instance sharing it signs cookies alike.
 */
export async function resolveSessionSecret(config: Config): Promise<string> {
  if (config.sessionSecret) return config.sessionSecret;
  const key = 'sessionSecret';
  try {
    await db.serviceSetting.create({ data: { key, value: randomBytes(32).toString('base64url') } });
  } catch (error) {
    // Another instance stored one first: everyone uses that one.
    if (!isUniqueViolation(error)) throw error;
  }
  return (await db.serviceSetting.findUniqueOrThrow({ where: { key } })).value;
}

/** Express, with what the service changes of its settings. */
function expressApp(config: Config): Express {
  const app = express();
  app.disable('x-powered-by');
  // ETags cost a hash of every body; only the cacheable /public/ routes set one (src/rest/router.ts).
  app.set('etag', false);
  app.set('trust proxy', config.http.trustProxy);
  // Express's 'extended' parser (qs), with a short way for plain `key=value` query strings.
  app.set('query parser', parseQueryString);
  return app;
}
