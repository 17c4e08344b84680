/**
 * An app served on a real socket on every interface, so that a test can call it from loopback and
 * from another machine's point of view: through this machine's own non-loopback address (the
 * connection then comes from that address, as a remote caller's would). A machine without such an
 * address gets a server whose accepted sockets report a documentation address instead: the
 * service still reads it from the socket, as it would a remote caller's.
 */
import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import request from 'supertest';

/** An IPv4 address of this machine that is not loopback, if it has one. */
function ownNonLoopbackAddress(): string | undefined {
  for (const addresses of Object.values(networkInterfaces())) {
    for (const address of addresses ?? []) {
      if (!address.internal && address.family === 'IPv4') return address.address;
    }
  }
  return undefined;
}

export async function serveOnEveryInterface(app: RequestListener) {
  const remoteHost = ownNonLoopbackAddress();
  const server = createServer(app);
  if (!remoteHost) {
    server.on('connection', (socket) => {
      if (socket.localAddress?.endsWith('127.0.0.3')) {
        Object.defineProperty(socket, 'remoteAddress', { value: '203.0.113.7' });
      }
    });
  }
  await new Promise<void>((resolve) => server.listen(0, '::', resolve));
  const { port } = server.address() as AddressInfo;
  const at = (host: string) => `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  return {
    /** A client calling from loopback: `127.0.0.1` (seen as `::ffff:127.0.0.1`) or `::1`. */
    loopback: (host: '127.0.0.1' | '::1' = '127.0.0.1') => request.agent(at(host)),
    /** A client calling from an address that is not loopback. */
    remote: () => request.agent(at(remoteHost ?? '127.0.0.3')),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
