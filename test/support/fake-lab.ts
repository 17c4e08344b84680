/**
 * A small fake lab on loopback: answers `POST api/utilisateur/check-token` as a real lab does,
 * with a behaviour chosen per token (a user, a refusal, garbage, a 500, or silence).
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface LabUser {
  oid: string | number;
  nom: string;
  prenom: string;
  mail?: string;
  type?: number;
}

type Behaviour =
  | { kind: 'user'; user: LabUser; delayMs?: number }
  | { kind: 'refuse'; error: string }
  | { kind: 'raw'; status: number; body: string; contentType?: string }
  | { kind: 'silent' };

export interface ReceivedRequest {
  method: string;
  path: string;
  contentType: string | undefined;
  token: string | null;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

let tokenCounter = 0;

export async function startFakeLab(baseId = 'labA') {
  const behaviours = new Map<string, Behaviour>();
  const received: ReceivedRequest[] = [];
  const server = createServer(async (req, res) => {
    const body = await readBody(req);
    const token = new URLSearchParams(body).get('token');
    received.push({
      method: req.method ?? '',
      path: req.url ?? '',
      contentType: req.headers['content-type'],
      token,
    });
    if (req.method !== 'POST' || req.url !== '/api/utilisateur/check-token') {
      res.writeHead(404).end();
      return;
    }
    const behaviour = (token && behaviours.get(token)) || { kind: 'refuse', error: 'Token inconnu' };
    switch (behaviour.kind) {
      case 'user':
        if (behaviour.delayMs) await new Promise((done) => setTimeout(done, behaviour.delayMs));
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ ok: true, utilisateur: behaviour.user }));
        return;
      case 'refuse':
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: behaviour.error }));
        return;
      case 'raw':
        res.writeHead(behaviour.status, { 'content-type': behaviour.contentType ?? 'text/html' });
        res.end(behaviour.body);
        return;
      case 'silent':
        // Never answers: the service must give up on its own (the socket closes with the server).
        return;
    }
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;

  const define = (behaviour: Behaviour) => {
    const token = `token-${++tokenCounter}-${Math.random().toString(36).slice(2)}`;
    behaviours.set(token, behaviour);
    return token;
  };

  return {
    baseId,
    baseUrl: `http://127.0.0.1:${port}/`,
    name: `Lab ${baseId}`,
    received,
    /** A token the lab vouches for, naming `user`. */
    tokenFor: (user: LabUser) => define({ kind: 'user', user }),
    /** Like tokenFor, answered after `delayMs`: a request in flight for that long. */
    slowTokenFor: (user: LabUser, delayMs: number) => define({ kind: 'user', user, delayMs }),
    refusingToken: (error = 'Token expiré') => define({ kind: 'refuse', error }),
    rawToken: (status: number, body: string, contentType?: string) =>
      define({ kind: 'raw', status, body, contentType }),
    silentToken: () => define({ kind: 'silent' }),
    /** The lab entry of the service configuration. */
    config() {
      return { baseId: this.baseId, baseUrl: this.baseUrl, name: this.name };
    },
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

export type FakeLab = Awaited<ReturnType<typeof startFakeLab>>;

let userCounter = 0;

/** A lab user with a unique id. `type: 1` is a teacher (formateur), anything else a pupil. */
export function labUser(overrides: Partial<LabUser> = {}): LabUser {
  userCounter += 1;
  return {
    oid: `u${userCounter}x${Math.random().toString(36).slice(2, 8)}`,
    nom: `Nom${userCounter}`,
    prenom: `Prénom${userCounter}`,
    mail: `user${userCounter}@example.test`,
    type: 1,
    ...overrides,
  };
}
