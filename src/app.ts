/**
 * createApp(): the Express application. Request flow:
 *
 *   HTTP → request id and log line (src/logging/request-log.ts) → security headers (helmet) → CORS
 *        → body parsers (size limits for every content type) → hostile-input check → session
 *        → /graphql: Yoga (a plain JSON POST: Yoga's public getResultForParams and JSON result
 *          processor without its HTTP wrapping, src/gateway/plain-post.ts)
 *        → /api: route table → named operation → Yoga's enveloped pipeline → same resolvers
 *
 * plus /healthz (process up) and /readyz (database reachable). Cross-site request forgery, input
 * limits and rate limits are enforced in that shared pipeline (src/security/), not per route.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import cors from 'cors';
import express, { type ErrorRequestHandler, type Request, type Response } from 'express';
import session from 'express-session';
import type { Plugin } from 'graphql-yoga';
import type { SessionStarter } from './auth/session.ts';
import { createSessionStore } from './auth/session-store.ts';
import { assertFitForEnvironment, type Config } from './config.ts';
import { coreServices, createContextFactory, type Services } from './context.ts';
import { db, ping } from './db/client.ts';
import { isUniqueViolation } from './db/errors.ts';
import { messages } from './errors.ts';
import { createOperationRunner, type OperationRunner } from './gateway/operation-runner.ts';
import { schema } from './gateway/schema.ts';
import { createGraphQLServer } from './gateway/yoga.ts';
import { compressAnswers } from './http/compression.ts';
import { answerDatabaseUnavailable } from './http/database-unavailable.ts';
import { sendGraphiQL } from './http/graphiql-page.ts';
import { parseQueryString } from './http/query-string.ts';
import { refuseHostileInput } from './http/request-hygiene.ts';
import { allowCrossOriginReads, securityHeaders } from './http/security-headers.ts';
import { createLogger, type Logger } from './logging/logger.ts';
import { logRequests } from './logging/request-log.ts';
import { metadataFormats } from './oai/formats/index.ts';
import { createGraphQLHarvestSource, loadHarvestOperations } from './oai/graphql-source.ts';
import { oaiPathItem } from './oai/openapi.ts';
import { createOaiRouter, OAI_PATH } from './oai/router.ts';
import { oaiSettings } from './oai/settings.ts';
import { createMetrics, metricsHandler, observeRequests } from './observability/metrics.ts';
import { apiDocsRouter } from './rest/api-docs.ts';
import { buildOpenApiDocument } from './rest/openapi.ts';
import { loadRestOperations } from './rest/operations.ts';
import { DEFAULT_METHODS } from './rest/route-table.ts';
import { buildLegacyRouter } from './rest/router.ts';
import { legacyRoutes, routeDomains } from './rest/routes/index.ts';
import { createAbuseLimits } from './security/abuse-limits.ts';
import { CSRF_PREVENTION_HEADER } from './security/cross-site.ts';

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

/** Origins (scheme://host:port) of the configured labs: the only ones allowed credentials. */
export function labOrigins(config: Config): Set<string> {
  return new Set(config.labs.map((lab) => new URL(lab.baseUrl).origin));
}

const isJson = (req: IncomingMessage) =>
  /^application\/(.+\+)?json\b/i.test(req.headers['content-type'] ?? '');

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

export async function createApp(config: Config, options: AppOptions = {}): Promise<App> {
  assertFitForEnvironment(config);
  const logger = options.logger ?? createLogger(config.logLevel);
  const services: Services = {
    ...coreServices(config, logger),
    abuse: await createAbuseLimits(config, logger),
    // Collected only where someone may read them.
    metrics: config.metrics.bearerToken ? createMetrics() : undefined,
  };
  const createContext = createContextFactory(services);
  // The named operations the REST routes run, validated once here; GraphiQL shows them as examples.
  const operations = loadRestOperations(schema);
  const harvestOperations = loadHarvestOperations(schema);
  const { yoga, graphiql, plainPost } = createGraphQLServer(services, createContext, {
    exampleOperations: operations,
    trustedDocuments: [...operations.values(), ...harvestOperations.values()],
    extraPlugins: options.graphqlPlugins,
  });
  const runOperation = createOperationRunner(yoga, operations);
  const runHarvestOperation = createOperationRunner(yoga, harvestOperations);

  const origins = labOrigins(config);
  // With `answerPreflight` false, OPTIONS requests continue to the route table, whose rows announce
  // their own methods.
  const corsFor = (allowMethods?: string, answerPreflight = true) =>
    cors((req, callback) => {
      const isPublic = ((req as { originalUrl?: string }).originalUrl ?? '').includes('/public/');
      const origin = req.headers.origin;
      callback(null, {
        // `/public/` answers are the same for everyone and may be cached by proxies.
        origin: isPublic ? '*' : origin !== undefined && origins.has(origin) ? origin : false,
        credentials: !isPublic,
        methods: allowMethods ?? DEFAULT_METHODS,
        allowedHeaders: ['Content-Type', 'X-ApiToken', 'X-Request-Id', CSRF_PREVENTION_HEADER],
        // Warning: what a lab page should know of its answer (src/lib/warning.ts).
        exposedHeaders: ['X-Request-Id', 'Warning'],
        maxAge: 600,
        preflightContinue: !answerPreflight,
      });
    });

  const sessionStore = createSessionStore(config);
  const secret = await resolveSessionSecret(config);
  const harvest = oaiSettings(config, secret);

  const app = express();
  app.disable('x-powered-by');
  // ETags cost a hash of every body; only the cacheable /public/ routes set one (src/rest/router.ts).
  app.set('etag', false);
  app.set('trust proxy', config.http.trustProxy);
  // Express's 'extended' parser (qs), with a short way for plain `key=value` query strings.
  app.set('query parser', parseQueryString);

  app.use(observeRequests(services.metrics));
  const quietPaths = new Set(['/healthz', '/readyz', '/metrics']);
  app.use(logRequests(app, logger, (url) => quietPaths.has(url)));
  app.use(securityHeaders());
  app.use(compressAnswers());

  // The address a newcomer opens first: what answers here and where, not Express's "Cannot GET /".
  app.get('/', (_req, res) => {
    res.json({
      service: 'Resource Repository Service',
      baseId: config.baseId,
      baseUrl: config.baseUrl,
      links: {
        graphql: '/graphql',
        apiDocs: '/api/docs',
        openApi: '/api/openapi.json',
        health: '/healthz',
        ready: '/readyz',
      },
    });
  });
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (req, res) => {
    try {
      await ping();
      res.json({ status: 'ok' });
    } catch (error) {
      // An outage is logged once by the availability monitor, not on every probe of a balancer.
      if (!services.database.report(error)) req.log.error({ err: error }, 'readiness check failed');
      res.status(503).json({ status: 'unavailable' });
    }
  });

  // The API documentation: static, the same for every caller (no session, no CORS, no body).
  app.use(
    apiDocsRouter((version) =>
      buildOpenApiDocument({
        domains: routeDomains,
        operations,
        schema: yoga.getEnveloped().schema,
        baseUrl: config.baseUrl,
        sessionCookie: config.session.cookieName,
        version,
        configured: {
          repositories: [config.baseId, ...config.peers.map((peer) => peer.baseId)],
          peers: config.peers.map((peer) => peer.baseId),
        },
        oai: { pathItem: oaiPathItem(harvest.repositoryIdentifier) },
      }),
    ),
  );

  // The OAI-PMH data provider (docs/oai-pmh.md): public XML for harvesters, the same for every
  // caller, so no session, no credentials and any origin. Each request's source runs the harvest
  // operations in that request's server context, as REST does: the gateway decides what is exposed.
  app.use(OAI_PATH, (_req, res, next) => {
    allowCrossOriginReads(res);
    next();
  });
  app.use(
    createOaiRouter({
      source: (req, res) =>
        createGraphQLHarvestSource((name, variables) => runHarvestOperation(name, variables, { req, res }), {
          baseUrl: config.baseUrl,
          baseId: config.baseId,
        }),
      formats: metadataFormats({ repositoryIdentifier: harvest.repositoryIdentifier }),
      settings: harvest,
    }),
  );
  if (services.metrics) app.get('/metrics', metricsHandler(services.metrics, config.metrics));

  // `/groupe/…`: three legacy group routes live outside `/api`.
  const served = ['/api', '/groupe', '/graphql'];
  app.use(served, corsFor(undefined, false));
  app.use(['/api', '/groupe'], (req, res, next) => {
    if (req.path.startsWith('/public/')) allowCrossOriginReads(res);
    next();
  });
  const limit = config.http.bodyLimit;
  app.use(served, express.json({ limit, type: ['application/json', 'application/*+json'] }));
  app.use(
    ['/api', '/groupe'],
    express.urlencoded({ limit, extended: true }),
    express.text({ limit, type: 'text/plain' }),
  );
  // Every other body Yoga accepts (application/graphql, forms, multipart) is read here, under the
  // same limit, and handed to Yoga as a Buffer.
  app.use('/graphql', express.raw({ limit, type: (req) => !isJson(req) }));
  app.use(served, refuseHostileInput(config.input));
  const sessions = session({
    name: config.session.cookieName,
    secret,
    store: sessionStore,
    resave: false,
    saveUninitialized: false,
    rolling: true,
    proxy: config.http.trustProxy !== false,
    cookie: {
      httpOnly: true,
      sameSite: config.session.sameSite,
      secure: config.session.secure,
      maxAge: config.session.maxAgeSeconds * 1000,
    },
  });
  // `/public/` routes ignore the session (API document): no statement is spent reading it. A
  // request without the session cookie has no session to read: express-session would only make up
  // an empty one (an id, a cookie, two hashes: a measurable share of a token read's CPU) and keep nothing, so
  // it runs only if the request logs someone in (src/auth/session.ts).
  const sessionCookie = `${config.session.cookieName}=`;
  app.use(served, (req, res, next) => {
    if (req.path.startsWith('/public/')) return next();
    if (req.headers.cookie?.includes(sessionCookie)) return sessions(req, res, next);
    (req as SessionStarter).startSession = () =>
      new Promise<void>((resolve, reject) =>
        sessions(req, res, (error?: unknown) => (error ? reject(error) : resolve())),
      );
    next();
  });

  app.all('/graphql', (req: Request, res: Response) => {
    // The request Yoga would answer with GraphiQL (a browser's GET): the page, compressed once.
    if (graphiql && req.method === 'GET' && req.headers.accept?.includes('text/html')) {
      return sendGraphiQL(graphiql, req, res);
    }
    const byYoga = () => yoga(req, res, { req, res });
    return plainPost(req, res, byYoga) ?? byYoga();
  });
  app.use(buildLegacyRouter(legacyRoutes, operations, runOperation, corsFor));

  const handleErrors: ErrorRequestHandler = (error, req, res, _next) => {
    if (res.headersSent) return;
    if (error?.type === 'entity.parse.failed') {
      res.status(400).json({ success: false, error: messages.invalidJson });
    } else if (error?.type === 'entity.too.large') {
      res.status(413).json({ success: false, error: messages.bodyTooLarge });
    } else if (typeof error?.status === 'number' && error.status >= 400 && error.status < 500) {
      res
        .status(error.status)
        .json({ success: false, error: String(error.expose ? error.message : 'Requête invalide') });
    } else {
      req.log.error({ err: error }, 'unexpected error');
      res.status(500).json({ success: false, error: messages.internal });
    }
  };
  app.use(answerDatabaseUnavailable(services.database), handleErrors);

  return {
    app,
    services,
    runHarvestOperation,
    plainPostsServed: plainPost.served,
    close: async () => {
      await services.subscriptions.close();
      services.database.stop();
      await sessionStore.shutdown();
      await services.abuse.close();
    },
  };
}
