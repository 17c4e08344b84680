/**
 * Legacy bodies of the peer and lab routes as their typed GraphQL inputs (PeerListenerInput,
 * ExternalUpdateInput, DeferPostInput). Only the wire format is checked here: a value the typed
 * variable cannot hold (not text, not a list, outside an enum, absent where the input requires it)
 * would be refused by GraphQL's coercion in words that mean nothing to a legacy client, so it is
 * refused here with the legacy message, every such problem at once. What the values mean (an empty
 * baseId, a rid's form, a Ref's fields, an event id's length, where a post may go) is for the
 * services to check: GraphQL clients reach them too.
 */
import { InvalidInputError, messages } from '../errors.ts';

type Body = Record<string, unknown>;

const isText = (value: unknown): value is string => typeof value === 'string';

function refuse(problems: string[]): void {
  if (problems.length > 0) throw new InvalidInputError(problems);
}

/**
 * The values of the PeerListenerAction enum, which legacy peers send as text; a test holds this
 * list to the schema's enum.
 */
export const PEER_LISTENER_ACTIONS: readonly string[] = ['add', 'remove'];

/** `POST /api/ressource/registerListener` → PeerListenerInput (other properties are dropped). */
export function listenerInput({ action, baseId, rids }: Body): Body {
  const problems: string[] = [];
  if (!isText(action) || !PEER_LISTENER_ACTIONS.includes(action))
    problems.push('action : doit valoir « add » ou « remove »');
  if (!isText(baseId)) problems.push('baseId : obligatoire');
  // GraphQL would take a lone rid for a list of one: legacy peers always sent a list.
  if (!Array.isArray(rids) || !rids.every(isText)) problems.push('rids : doit être une liste de rids');
  refuse(problems);
  return { action, baseId, rids };
}

/** `POST /api/ressource/externalUpdate` → ExternalUpdateInput (other properties are dropped). */
export function externalUpdateInput({ ref, eventId }: Body): Body {
  const problems: string[] = [];
  // The Ref travels as JSON: any value fits the variable but none. Whether it is a Ref is the service's rule.
  if (ref === undefined || ref === null) problems.push('ref : obligatoire (un Ref)');
  if (eventId !== undefined && eventId !== null && !isText(eventId))
    problems.push('eventId : doit être un texte');
  refuse(problems);
  return eventId === undefined ? { ref } : { ref, eventId };
}

/**
 * `POST /api/deferPost` → DeferPostInput: the body is the payload but for `deferUrl`. Pages post
 * it with `sendBeacon` as text/plain at unload, so `text` may hold the JSON.
 */
export function deferPostInput(body: Body, text: string | undefined): Body {
  let posted: unknown = body;
  if (text !== undefined) {
    try {
      posted = JSON.parse(text);
    } catch {
      throw new InvalidInputError(messages.invalidJson);
    }
  }
  if (typeof posted !== 'object' || posted === null || Array.isArray(posted)) {
    throw new InvalidInputError('Le corps de la requête doit être un objet');
  }
  const { deferUrl, ...payload } = posted as Body;
  // A deferUrl that is not text travels as none, which the service reports as missing.
  return { deferUrl: isText(deferUrl) ? deferUrl : null, payload };
}
