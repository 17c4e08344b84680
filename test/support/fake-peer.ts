/**
 * A fake remote (peer repository or lab) on loopback that records every request and answers as
 * told: accept (posts get `{success: true}`, reads what `serve` set, else a 404), fail (a 500),
 * stay silent, or answer every request with a given status and body (`{status, body}`: a 2xx
 * that says `success: false`, a 4xx). Started with `{token}`, it refuses, as a real peer does, a
 * request whose `X-ApiToken` is not that token: 401 `{success: false, error}`.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  // biome-ignore lint/suspicious/noExplicitAny: tests read posted bodies of any shape.
  body: any;
}

export type PeerBehaviour = 'accept' | 'fail' | 'silent' | { status: number; body: unknown };

export async function startFakePeer(baseId = 'peerX', options: { token?: string } = {}) {
  const received: RecordedRequest[] = [];
  let behaviour: PeerBehaviour = 'accept';
  const answers = new Map<string, { status: number; body: unknown }>();
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    let body: unknown = raw;
    try {
      body = JSON.parse(raw);
    } catch {}
    received.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body });
    if (behaviour === 'silent') return;
    const answer = (status: number, answered: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(answered));
    };
    if (options.token !== undefined && req.headers['x-apitoken'] !== options.token) {
      answer(401, { success: false, error: 'Jeton invalide' });
      return;
    }
    if (typeof behaviour === 'object') {
      answer(behaviour.status, behaviour.body);
      return;
    }
    const served = behaviour === 'accept' ? answers.get(req.url ?? '') : undefined;
    if (served) {
      res.writeHead(served.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(served.body));
      return;
    }
    if (req.method === 'GET' && behaviour === 'accept') {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ success: false, error: 'Ce contenu n’existe pas' }));
      return;
    }
    res.writeHead(behaviour === 'accept' ? 200 : 500, { 'content-type': 'application/json' });
    res.end(JSON.stringify(behaviour === 'accept' ? { success: true } : { success: false, error: 'panne' }));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    baseId,
    baseUrl: `http://127.0.0.1:${port}/`,
    received,
    behave(next: PeerBehaviour) {
      behaviour = next;
    },
    /** Answers `body` with `status` to requests for `path` (while accepting). */
    serve(path: string, status: number, body: unknown) {
      answers.set(path, { status, body });
    },
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

export type FakePeer = Awaited<ReturnType<typeof startFakePeer>>;
