/**
 * The query parser of the application: Express's "extended" parser (qs, `allowPrototypes`, what
 * the legacy routes were written against: `a[b]=1`, repeated keys as lists), with a short way for
 * the query strings almost every request has, a few plain `key=value` pairs (`format=full`,
 * `nb=25&type=em`), whose answer is qs's without running qs (about 2% of the CPU of a token read,
 * and the bench's lists all have one). Anything else, or any doubt, goes to qs: a key that is not
 * a plain name, a repeated key, brackets anywhere, `__proto__`, more pairs than qs reads.
 */
import type { RequestHandler } from 'express';
import qs from 'qs';

/** qs's default `parameterLimit`: the pairs it reads, the others being ignored. */
const QS_PARAMETER_LIMIT = 1000;
const PLAIN_PAIR = /^([A-Za-z0-9_-]+)(?:=(.*))?$/s;

/** A value as qs decodes it: `+` is a space, and a malformed escape leaves the text as it is. */
function decoded(value: string): string {
  const spaced = value.replaceAll('+', ' ');
  try {
    return decodeURIComponent(spaced);
  } catch {
    return spaced;
  }
}

/** The pairs of a query string of plain `key=value` pairs, else undefined (qs decides). */
function plainPairs(query: string): Record<string, string> | undefined {
  if (/[[\]]|%5[BD]/i.test(query)) return undefined;
  const parts = query.split('&');
  if (parts.length > QS_PARAMETER_LIMIT) return undefined;
  const pairs: Record<string, string> = {};
  for (const part of parts) {
    const match = PLAIN_PAIR.exec(part);
    if (!match) return undefined;
    const [, key, value] = match as unknown as [string, string, string | undefined];
    if (key === '__proto__' || Object.hasOwn(pairs, key)) return undefined;
    pairs[key] = value === undefined ? '' : decoded(value);
  }
  return pairs;
}

/** `app.set('query parser', parseQueryString)`: what Express's 'extended' setting gives. */
export function parseQueryString(query: string | null | undefined): Record<string, unknown> {
  if (!query) return {};
  return plainPairs(query) ?? qs.parse(query, { allowPrototypes: true });
}

/**
 * Keeps the request's parsed query: Express 5's `req.query` is a getter that parses the query
 * string again on every read (the hostile-input check and the REST route each read it). Defined on
 * the request itself, it shadows the getter for the rest of the request.
 */
export const keepParsedQuery: RequestHandler = (req, _res, next) => {
  Object.defineProperty(req, 'query', {
    value: req.query,
    writable: true,
    enumerable: true,
    configurable: true,
  });
  next();
};
