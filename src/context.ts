/**
 * The per-request context, built by one factory for both transports: Yoga calls it for `/graphql`,
 * and the REST layer gets it through Yoga's enveloped pipeline. It resolves the caller once.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { authenticateApiToken, presentedToken } from './auth/api-tokens.ts';
import { resolveViewer } from './auth/authn.ts';
import { type SessionHandle, sessionHandle } from './auth/session.ts';
import { personFactsOf } from './auth/session-store.ts';
import type { Viewer } from './auth/viewer.ts';
import type { Config } from './config.ts';
import { DatabaseAvailability } from './db/availability.ts';
import { ping } from './db/client.ts';
import { HttpClient } from './lib/http-client.ts';
import { SubscriptionHub } from './lib/subscription-hub.ts';
import { addWarning } from './lib/warning.ts';
import type { Logger } from './logging/logger.ts';
import { requestFacts } from './logging/request-facts.ts';
import { type RequestLog, RequestLogger } from './logging/request-log.ts';
import type { Metrics } from './observability/metrics.ts';
import type { AbuseLimits } from './security/abuse-limits.ts';
import { isLoopbackRequest } from './security/loopback.ts';

/** Long-lived collaborators of one service instance. */
export interface Services {
  config: Config;
  http: HttpClient;
  logger: Logger;
  /** Failed-authentication limits (429 once an address or a subject has failed too often). */
  abuse: AbuseLimits;
  /** Whether the database answers; told of outages by whoever meets one. */
  database: DatabaseAvailability;
  /** Prometheus metrics, when configured (`metrics.bearerToken`). */
  metrics?: Metrics;
  /** Open GraphQL subscriptions: limits, and their end at shutdown. */
  subscriptions: SubscriptionHub;
}

/**
 * The services every caller of the domain needs, whatever the entry point (the HTTP app, the
 * command-line tool): outgoing HTTP limited to the configured labs and peers, the database's
 * availability, and the registry of GraphQL subscriptions. Abuse limits and metrics are the entry point's own.
 */
export function coreServices(
  config: Config,
  logger: Logger,
): Pick<Services, 'config' | 'logger' | 'http' | 'database' | 'subscriptions'> {
  const allowedBaseUrls = [...config.labs, ...config.peers].map((remote) => remote.baseUrl);
  return {
    config,
    logger,
    http: new HttpClient({
      allowedBaseUrls: () => allowedBaseUrls,
      maxResponseBytes: config.http.maxResponseBytes,
    }),
    database: new DatabaseAvailability(logger, ping),
    subscriptions: new SubscriptionHub(config.subscriptions, logger),
  };
}

export interface Context {
  requestId: string;
  log: RequestLog;
  config: Config;
  services: Services;
  viewer: Viewer;
  /** How the request authenticated itself, whatever the viewer turned out to be. */
  credentials: { apiToken: boolean };
  /** Where the request came from, worked out when first asked. */
  client: Client;
  session: SessionHandle;
  /** Resolves the caller again from the same credentials (after a login or logout). */
  identify(): Promise<Viewer>;
  /** Per-request memo for domain modules (see `memo`). */
  cache: Map<string, unknown>;
}

/**
 * Where a request came from. Its members are worked out on first read (walking the forwarding
 * headers costs every request that never asks: all but a login, a check of a pid, a subscription's
 * limit and the development login); they are getters of an object of their own because envelop
 * merges the context with `Object.assign`, which would read a getter of the context itself.
 */
export interface Client {
  /** The client's address (`req.ip`: honours `http.trustProxy`), for per-address limits. */
  readonly address: string;
  /** The request came from this machine, by its socket and whatever it forwards (src/security/loopback.ts). */
  readonly fromLoopback: boolean;
}

/** A class: an object literal with getters costs V8 some 0.6 µs to build, on every request, a class 0.03. */
class RequestClient implements Client {
  #address: string | undefined;
  #fromLoopback: boolean | undefined;
  constructor(private readonly req: IncomingMessage & { ip?: string }) {}
  get address(): string {
    this.#address ??= this.req.ip ?? this.req.socket?.remoteAddress ?? 'unknown';
    return this.#address;
  }
  get fromLoopback(): boolean {
    this.#fromLoopback ??= isLoopbackRequest(this.req);
    return this.#fromLoopback;
  }
}

/** Computes `compute()` once per request under `key`. */
export function memo<T>(context: Pick<Context, 'cache'>, key: string, compute: () => T): T {
  if (!context.cache.has(key)) context.cache.set(key, compute());
  return context.cache.get(key) as T;
}

export interface ContextSource {
  req: IncomingMessage;
  /** Where the answer is written, for its headers (absent outside HTTP). */
  res?: ServerResponse;
}

/**
 * Said to a caller whose `X-ApiToken` is not recognised: served as anonymous (the legacy
 * contract), it would otherwise see only answers it cannot explain (401, missing resources).
 */
export const UNRECOGNISED_TOKEN_WARNING = 'X-ApiToken not recognised: answered as an anonymous caller';

export function createContextFactory(services: Services) {
  return async function createContext({ req, res }: ContextSource): Promise<Context> {
    const request = req as IncomingMessage & { ip?: string };
    const session = sessionHandle(req as Parameters<typeof sessionHandle>[0]);
    const presented = presentedToken(req);
    const apiToken = await authenticateApiToken(req, services.config);
    const client = new RequestClient(request);
    if (presented && !apiToken) {
      requestFacts(req).apiToken = 'refused';
      // A wrong token is served as if absent, until this address or this token fails too often.
      // Saying so tells a prober nothing more than the answer as anonymous does, within the same
      // limit: only a token that was examined and counted gets the warning.
      const limited = await services.abuse.recordFailure({
        kind: 'apiToken',
        address: client.address,
        subject: presented,
      });
      if (limited) throw limited;
      if (res) addWarning(res, UNRECOGNISED_TOKEN_WARNING);
    }
    const identify = () => resolveViewer(apiToken, session, services.config);
    // The first resolution uses the person read with the session (src/auth/session-store.ts).
    const viewer = await resolveViewer(apiToken, session, services.config, personFactsOf(req));
    requestFacts(req).caller = apiToken ? 'token' : viewer.person ? 'session' : 'anonymous';
    return {
      requestId: String(request.id ?? ''),
      log: new RequestLogger(req, services.logger),
      config: services.config,
      services,
      viewer,
      credentials: { apiToken },
      client,
      session,
      identify,
      cache: new Map(),
    };
  };
}
