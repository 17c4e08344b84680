/**
 * The session middleware (express-session over the service's store, src/auth/session-store.ts),
 * run only where a session can exist. `/public/` routes ignore the session (API document): no
 * statement is spent reading it. A request without the session cookie has no session to read:
 * express-session would only make up an empty one (an id, a cookie, two hashes: a measurable share
 * of a token read's CPU) and keep nothing, so it runs only if the request logs someone in
 * (`startSession`, src/auth/session.ts).
 */
import type { RequestHandler } from 'express';
import session, { type Store } from 'express-session';
import type { SessionStarter } from '../auth/session.ts';
import type { Config } from '../config.ts';

export function lazySessions(config: Config, secret: string, store: Store): RequestHandler {
  const sessions = session({
    name: config.session.cookieName,
    secret,
    store,
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
  const sessionCookie = `${config.session.cookieName}=`;
  return (req, res, next) => {
    if (req.path.startsWith('/public/')) return next();
    if (req.headers.cookie?.includes(sessionCookie)) return sessions(req, res, next);
    (req as SessionStarter).startSession = () =>
      new Promise<void>((resolve, reject) =>
        sessions(req, res, (error?: unknown) => (error ? reject(error) : resolve())),
      );
    next();
  };
}
