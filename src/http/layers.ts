/**
 * Fewer layers in Express's stack. Express tries every layer on every request, in order: a path
 * match, and for a mounted middleware a rewrite of `req.url` and back. A token read was tried
 * against some thirty layers before the REST router (the documentation's and the OAI provider's
 * routers, entered by every request, and the request pipeline's eight middlewares, each mounted on
 * two or three paths): Express's router took 7.6% of its CPU, 4.8% now (docs/performance.md).
 */
import type { RequestHandler } from 'express';

/**
 * One layer running `handlers` in turn, as Express would run them mounted one after the other on
 * the same path: an error (passed to `next` or thrown) skips the rest and goes to Express's error
 * handlers; `next('route')` goes on to the next handler, as it does between middlewares.
 */
export function inSequence(handlers: readonly RequestHandler[]): RequestHandler {
  return (req, res, done) => {
    let index = 0;
    const next = (error?: unknown): void => {
      if (error !== undefined && error !== null && error !== 'route') {
        done(error);
        return;
      }
      const handler = handlers[index++];
      if (!handler) {
        done();
        return;
      }
      try {
        // Express's handlers of a body parser or CORS return nothing; none returns a promise here.
        handler(req, res, next);
      } catch (thrown) {
        done(thrown);
      }
    };
    next();
  };
}

/**
 * `handler` (a router) entered only by requests whose path is one of `prefixes` or lies under one
 * (as Express matches paths: whatever the case, with or without a trailing slash); the others pass
 * it at the cost of one comparison instead of trying each of its routes. `req.url` is left as it is,
 * so the router's own paths stay absolute.
 */
export function under(prefixes: readonly string[], handler: RequestHandler): RequestHandler {
  const lower = prefixes.map((prefix) => prefix.toLowerCase());
  const matches = (path: string) => {
    const asked = path.toLowerCase();
    return lower.some(
      (prefix) => asked === prefix || (asked.startsWith(prefix) && asked[prefix.length] === '/'),
    );
  };
  return (req, res, next) => (matches(req.path) ? handler(req, res, next) : next());
}
