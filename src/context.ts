/**
 * The per-request context, built by one factory for both transports: Yoga calls it for `/graphql`,
 * and the REST layer gets it through Yoga's enveloped pipeline. It resolves the caller once.
 */
import type { IncomingMessage } from 'node:http';
import { resolveViewer } from './auth/authn.ts';
import { type SessionHandle, sessionHandle } from './auth/session.ts';
import type { Viewer } from './auth/viewer.ts';
import type { Config } from './config.ts';
import type { HttpClient } from './lib/http-client.ts';
import type { Logger } from './logger.ts';

/** Long-lived collaborators of one service instance. */
export interface Services {
  config: Config;
  http: HttpClient;
  logger: Logger;
}

export interface Context {
  requestId: string;
  log: Logger;
  config: Config;
  services: Services;
  viewer: Viewer;
  session: SessionHandle;
  /** Resolves the caller again from the same credentials (after a login or logout). */
  identify(): Promise<Viewer>;
  /** Per-request memo for domain modules (see `memo`). */
  cache: Map<string, unknown>;
}

/** Computes `compute()` once per request under `key`. */
export function memo<T>(context: Pick<Context, 'cache'>, key: string, compute: () => T): T {
  if (!context.cache.has(key)) context.cache.set(key, compute());
  return context.cache.get(key) as T;
}

export interface ContextSource {
  req: IncomingMessage;
}

export function createContextFactory(services: Services) {
  return async function createContext({ req }: ContextSource): Promise<Context> {
    const request = req as IncomingMessage & { id?: unknown; log?: Logger };
    const session = sessionHandle(req as Parameters<typeof sessionHandle>[0]);
    const header = req.headers['x-apitoken'];
    const identify = () =>
      resolveViewer(Array.isArray(header) ? header[0] : header, session, services.config);
    return {
      requestId: String(request.id ?? ''),
      log: request.log ?? services.logger,
      config: services.config,
      services,
      viewer: await identify(),
      session,
      identify,
      cache: new Map(),
    };
  };
}
