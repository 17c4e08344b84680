/**
 * The one policy against cross-site request forgery, for both transports. A page on another site
 * can make a browser send requests here with its cookies (labs need `sameSite: "none"`), so every
 * request that changes state for a browser session is checked against where the browser says it
 * comes from:
 *
 *   - it changes state: a GraphQL mutation, or an operation REST runs for an unsafe method or a GET
 *     row marked `changesState` (legacy links such as `/api/groupe/rejoindre/:nom`);
 *   - for a browser session: the request carries the session cookie and no valid `X-ApiToken` (a
 *     browser cannot add that header cross-site), or it logs in (`login`: login CSRF would sign the
 *     victim's browser into the attacker's account, cookie or not);
 *   - from another site: `Origin` is neither this service nor a configured lab (`Origin: null`
 *     included); without `Origin`, `Sec-Fetch-Site: cross-site` unless the `Referer` shows a lab;
 *     without either, a `Referer` of another site.
 *
 * Callers that send none of these headers (scripts, peers) are not browsers and pass, as do
 * same-origin requests and navigations the user started (`Sec-Fetch-Site` same-origin, same-site,
 * none). The plugin runs in the Yoga pipeline that both `/graphql` and the REST layer execute
 * through, so REST rows cannot forget it.
 *
 * `/graphql` itself also requires, from cookie callers, a content type a page cannot send without
 * a CORS preflight, or Yoga's CSRF-prevention header (`graphqlRequestVerdict`); except a GET for an
 * event stream (an EventSource can send no header), whose origin is checked here instead, like any
 * subscription's: a subscription reads with the session's rights for as long as it lasts.
 */
import type { IncomingMessage } from 'node:http';
import { getOperationAST, Kind } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Config } from '../config.ts';
import { CrossSiteRequestError } from '../errors.ts';
import type { Logger } from '../logging/logger.ts';

export type Verdict = { allowed: true } | { allowed: false; reason: string };

const ALLOWED: Verdict = { allowed: true };
const refused = (reason: string): Verdict => ({ allowed: false, reason });

/** The header GraphQL clients send to show they are not a plain HTML form (Yoga's name). */
export const CSRF_PREVENTION_HEADER = 'x-graphql-yoga-csrf';

/** Content types an HTML form or a no-cors fetch can send without a preflight. */
const SIMPLE_CONTENT_TYPES = new Set([
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data',
]);

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function originOf(url: string): string | undefined {
  try {
    const origin = new URL(url).origin;
    return origin === 'null' ? undefined : origin;
  } catch {
    return undefined;
  }
}

export interface TrustedOrigins {
  /** This service's origins: its `baseUrl`, and the origin the request was addressed to. */
  own(req: IncomingMessage): ReadonlySet<string>;
  labs: ReadonlySet<string>;
}

export function trustedOrigins(config: Config): TrustedOrigins {
  const base = new URL(config.baseUrl).origin;
  return {
    // `protocol` is Express's (it honours `trust proxy`); a browser always sends the real Host, so
    // an Origin equal to it is this service, whatever name it is reached by.
    own: (req) => {
      const host = header(req, 'host');
      const protocol = (req as { protocol?: string }).protocol ?? 'http';
      return new Set(host ? [base, `${protocol}://${host}`] : [base]);
    },
    labs: new Set(config.labs.map((lab) => new URL(lab.baseUrl).origin)),
  };
}

/** Whether a state-changing browser request comes from a site allowed to make it. */
export function crossSiteVerdict(req: IncomingMessage, trusted: TrustedOrigins): Verdict {
  const origin = header(req, 'origin');
  if (origin !== undefined) {
    return trusted.own(req).has(origin) || trusted.labs.has(origin)
      ? ALLOWED
      : refused(`elle vient d’un autre site (Origin ${origin})`);
  }
  const referer = header(req, 'referer');
  const refererOrigin = referer === undefined ? undefined : originOf(referer);
  const fetchSite = header(req, 'sec-fetch-site');
  if (fetchSite !== undefined) {
    if (fetchSite !== 'cross-site') return ALLOWED;
    return refererOrigin && trusted.labs.has(refererOrigin)
      ? ALLOWED
      : refused('elle vient d’un autre site (Sec-Fetch-Site: cross-site)');
  }
  if (referer === undefined) return ALLOWED;
  return refererOrigin && (trusted.own(req).has(refererOrigin) || trusted.labs.has(refererOrigin))
    ? ALLOWED
    : refused(`elle vient d’un autre site (Referer ${refererOrigin ?? referer})`);
}

/** The request carries the session cookie: the browser session is in play. */
export function hasSessionCookie(req: IncomingMessage, cookieName: string): boolean {
  const cookies = header(req, 'cookie');
  if (!cookies) return false;
  return cookies.split(';').some((cookie) => cookie.trim().startsWith(`${cookieName}=`));
}

/**
 * `/graphql` requests of cookie callers: a POST with a content type that needs a CORS preflight
 * (JSON), or any request with the CSRF-prevention header. Anything else could come from a form or
 * an `<img>` on another site.
 */
export function graphqlRequestVerdict(
  req: IncomingMessage,
  cookieName: string,
  tokenCaller: boolean,
): Verdict {
  if (tokenCaller || !hasSessionCookie(req, cookieName)) return ALLOWED;
  if (header(req, CSRF_PREVENTION_HEADER) !== undefined) return ALLOWED;
  // Yoga runs no mutation over GET; where the stream's request comes from is checked at execution.
  if (req.method === 'GET' && wantsEventStream(req)) return ALLOWED;
  const contentType = header(req, 'content-type')?.split(';')[0]?.trim().toLowerCase();
  if (req.method === 'POST' && contentType && !SIMPLE_CONTENT_TYPES.has(contentType)) return ALLOWED;
  return refused(
    `une requête GraphQL avec cookie de session doit être un POST JSON ou porter l’en-tête ${CSRF_PREVENTION_HEADER}`,
  );
}

/** A request for Server-Sent Events (subscriptions, or a query answered as a stream). */
export function wantsEventStream(req: IncomingMessage): boolean {
  return /\btext\/event-stream\b/i.test(header(req, 'accept') ?? '');
}

/** What the REST layer adds to the server context of the operations it runs. */
export interface TransportFacts {
  /** The REST row changes state although its operation may be a query (an unsafe method, or marked). */
  changesState?: boolean;
}

/** What the policy reads of an operation's context (src/context.ts `Context`) and its transport. */
type ExecutionContext = TransportFacts & {
  req?: IncomingMessage;
  credentials: { apiToken: boolean };
  log: Pick<Logger, 'warn'>;
};

/** Root fields that start a session: checked even without a session cookie (login CSRF). */
const SESSION_STARTING_FIELDS = new Set(['login', 'devLogin']);

/**
 * Applies `crossSiteVerdict` to every state-changing operation, on both transports, and to every
 * subscription or event stream of a session (they read with its rights for as long as they last).
 */
export function useCrossSitePolicy(config: Config): Plugin {
  const trusted = trustedOrigins(config);
  const cookieName = config.session.cookieName;
  /** The refusal of a guarded operation from another site, or undefined. */
  const refusal = (
    context: ExecutionContext,
    req: IncomingMessage,
    startsSession: boolean,
  ): CrossSiteRequestError | undefined => {
    if (context.credentials.apiToken) return undefined;
    if (!startsSession && !hasSessionCookie(req, cookieName)) return undefined;
    const verdict = crossSiteVerdict(req, trusted);
    if (verdict.allowed) return undefined;
    context.log.warn(
      {
        origin: header(req, 'origin'),
        fetchSite: header(req, 'sec-fetch-site'),
        referer: header(req, 'referer'),
      },
      'cross-site request refused',
    );
    return new CrossSiteRequestError(verdict.reason);
  };
  return {
    onExecute({ args, setResultAndStopExecution }) {
      const context = args.contextValue as unknown as ExecutionContext;
      const req = context.req;
      if (!req) return;
      const operation = getOperationAST(args.document, args.operationName);
      if (!operation) return;
      const startsSession = operation.selectionSet.selections.some(
        (selection) => selection.kind === Kind.FIELD && SESSION_STARTING_FIELDS.has(selection.name.value),
      );
      const changesState = operation.operation === 'mutation' || context.changesState === true;
      if (!changesState && !wantsEventStream(req)) return;
      const refused = refusal(context, req, startsSession);
      if (refused) setResultAndStopExecution({ errors: [refused] });
    },
    onSubscribe({ args, setResultAndStopExecution }) {
      const context = args.contextValue as unknown as ExecutionContext;
      const req = context.req;
      if (!req) return;
      const refused = refusal(context, req, false);
      if (refused) setResultAndStopExecution({ errors: [refused] });
    },
  };
}
