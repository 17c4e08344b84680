/**
 * The session store: express-session data in the service's own database (@quixo3/prisma-session-store),
 * shared by every instance. express-session "touches" the store on every request of a logged-in
 * user to push the expiry back: a database write per read. Touches are throttled per session so
 * that a busy reader costs one write per interval; the expiry moves by at most that interval less.
 */
import { PrismaSessionStore } from '@quixo3/prisma-session-store';
import type { Config } from '../config.ts';
import { db } from '../db/client.ts';

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
  return store;
}
