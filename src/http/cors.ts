/**
 * CORS of `/api`, `/groupe` and `/graphql`: credentials for the configured labs' origins only, and
 * `/public/` answers, the same for everyone, to any origin without credentials. A lab page may send
 * the service's own headers and read the request id and the `Warning` of its answer.
 */
import cors from 'cors';
import type { Config } from '../config.ts';
import { CSRF_PREVENTION_HEADER } from '../security/cross-site.ts';

/** Methods announced by OPTIONS on routes that name none. */
export const DEFAULT_METHODS = 'GET,POST,DELETE,OPTIONS';

/**
 * The CORS middleware announcing `allowMethods`. With `answerPreflight` false, OPTIONS requests
 * continue to the route table, whose rows announce their own methods.
 */
export type CorsFactory = (allowMethods?: string, answerPreflight?: boolean) => ReturnType<typeof cors>;

/** Origins (scheme://host:port) of the configured labs: the only ones allowed credentials. */
export function labOrigins(config: Config): Set<string> {
  return new Set(config.labs.map((lab) => new URL(lab.baseUrl).origin));
}

export function labCors(config: Config): CorsFactory {
  const origins = labOrigins(config);
  return (allowMethods, answerPreflight = true) =>
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
}
