/**
 * What the request log line and the metrics need to know about a request that only later stages
 * learn: the GraphQL operation it ran, the kind of caller it turned out to be, and whether a token
 * it presented was refused. One mutable object per request, attached at the start; the REST layer
 * may hand the GraphQL pipeline a derived request (`Object.create(req)`), which still reaches this
 * object through its prototype.
 */
import type { IncomingMessage } from 'node:http';

export type CallerKind = 'anonymous' | 'session' | 'token';

export interface RequestFacts {
  /** The operation name; `anonymous` for an unnamed GraphQL operation. */
  operation?: string;
  caller?: CallerKind;
  /** `refused` when the request presented an `X-ApiToken` that is not recognised. */
  apiToken?: 'refused';
}

const FACTS = Symbol('requestFacts');

type WithFacts = IncomingMessage & { [FACTS]?: RequestFacts };

/** Attaches the facts object of a new request (first middleware). */
export function startRequestFacts(req: IncomingMessage): RequestFacts {
  const facts: RequestFacts = {};
  (req as WithFacts)[FACTS] = facts;
  return facts;
}

/** The request's facts; a throwaway object for a request that never passed `startRequestFacts`. */
export function requestFacts(req: IncomingMessage | undefined): RequestFacts {
  return (req as WithFacts | undefined)?.[FACTS] ?? {};
}
