/**
 * The session store: express-session data in the service's own database (@quixo3/prisma-session-store),
 * shared by every instance. express-session "touches" the store on every request of a logged-in
 * user to push the expiry back: a database write per read. Touches are throttled per session so
 * that a busy reader costs one write per interval; the expiry moves by at most that interval less.
 *
 * The library's `get` turns every database error into "no session" (`.catch(() => null)`), so during
 * an outage a logged-in caller would look logged out and get a silent 401. Ours reads the row
 * itself and passes errors on: express-session then fails the request, answered 503. It reads the
 * session's person (roles, groups) in the same statement, and hands them to the request (see
 * `personFactsOf`): a logged-in caller costs one statement to identify.
 */
import type { IncomingMessage } from 'node:http';
import { PrismaSessionStore } from '@quixo3/prisma-session-store';
import type { SessionData } from 'express-session';
import type { Config } from '../config.ts';
import { db } from '../db/client.ts';
import { loadSession, type PersonFacts } from '../read-model/person-facts.ts';

/** Where the session's person travels from the store to the request (never stored, never hashed). */
const PERSON_FACTS = Symbol('personFacts');

/**
 * The facts of the session's person, read with the session: undefined when the request has no
 * session from the store (then they are loaded when needed), null when the session has no person.
 */
export function personFactsOf(req: IncomingMessage): PersonFacts | null | undefined {
  return (req as { [PERSON_FACTS]?: PersonFacts | null })[PERSON_FACTS];
}

const TOUCH_INTERVAL_MS = 5 * 60 * 1000;
const MAX_TRACKED_SESSIONS = 10_000;

export function createSessionStore(config: Config): PrismaSessionStore {
  const store = new PrismaSessionStore(db as never, {
    checkPeriod: config.session.sweepIntervalSeconds * 1000 || undefined,
    dbRecordIdIsSessionId: true,
    logger: false,
  });
  const lastTouch = new Map<string, number>();
  const touch = store.touch;
  const throttled: typeof store.touch = async (sid, session, callback) => {
    const now = Date.now();
    if (now - (lastTouch.get(sid) ?? 0) < TOUCH_INTERVAL_MS) {
      callback?.();
      return;
    }
    if (lastTouch.size >= MAX_TRACKED_SESSIONS) lastTouch.clear();
    lastTouch.set(sid, now);
    return touch(sid, session, callback);
  };
  (store as { touch: typeof store.touch }).touch = throttled;
  // express-session builds the request's session from what `get` returned: the facts move to the request.
  const createSession = store.createSession.bind(store);
  store.createSession = (req, data) => {
    const facts = (data as { [PERSON_FACTS]?: PersonFacts | null })[PERSON_FACTS];
    (req as { [PERSON_FACTS]?: PersonFacts | null })[PERSON_FACTS] = facts;
    return createSession(req, data);
  };
  (store as { get: typeof store.get }).get = async (sid, callback) => {
    let data: SessionData | null;
    try {
      data = await readSession(sid);
    } catch (error) {
      callback?.(error);
      return;
    }
    callback?.(undefined, data ?? undefined);
  };
  return store;
}

/**
 * The live session data of `sid` with its person's facts, or null (absent or expired; an expired
 * row is deleted). One statement.
 */
async function readSession(sid: string): Promise<SessionData | null> {
  const stored = await loadSession(sid);
  if (!stored) return null;
  if (stored.expiresAt.getTime() <= Date.now()) {
    await db.session.deleteMany({ where: { sid } });
    return null;
  }
  const data = JSON.parse(stored.data) as SessionData;
  return Object.assign(data, { [PERSON_FACTS]: stored.person });
}
