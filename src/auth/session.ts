/**
 * The session as the domain sees it: who is logged in, and the two transitions (log in with a new
 * session id, log out by destroying the session). Backed by express-session; the store is in the
 * service's own database, so every instance behind a load balancer shares it.
 */
import type { Session, SessionData } from 'express-session';

declare module 'express-session' {
  interface SessionData {
    personOid: number;
    labBaseId: string | null;
  }
}

export interface SessionHandle {
  personOid(): number | undefined;
  labBaseId(): string | null;
  /** Starts a session for the person under a fresh id (no session fixation). */
  establish(personOid: number, labBaseId: string | null): Promise<void>;
  /** Ends the session: its data is deleted from the store. */
  destroy(): Promise<void>;
}

/**
 * A request that came without the session cookie has no session until it needs one
 * (src/http/sessions.ts): `startSession` gives it a new one, as the session middleware would have.
 */
export interface SessionStarter {
  startSession?: () => Promise<void>;
}

type RequestWithSession = { session?: Session & Partial<SessionData> } & SessionStarter;

export function sessionHandle(req: RequestWithSession): SessionHandle {
  return {
    personOid: () => req.session?.personOid,
    labBaseId: () => req.session?.labBaseId ?? null,
    establish: async (personOid, labBaseId) => {
      if (!req.session) await req.startSession?.();
      return new Promise((resolve, reject) => {
        const session = req.session;
        if (!session) return reject(new Error('sessions are not enabled on this request'));
        session.regenerate((error) => {
          if (error) return reject(error);
          // `regenerate` replaced req.session with a new object.
          const fresh = req.session as Session & Partial<SessionData>;
          fresh.personOid = personOid;
          fresh.labBaseId = labBaseId;
          fresh.save((saveError) => (saveError ? reject(saveError) : resolve()));
        });
      });
    },
    destroy: () =>
      new Promise((resolve, reject) => {
        if (!req.session) return resolve();
        req.session.destroy((error) => (error ? reject(error) : resolve()));
      }),
  };
}
