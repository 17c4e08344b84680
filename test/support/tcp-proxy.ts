/**
 * A TCP proxy on loopback in front of the shared PostgreSQL server, that a test can cut (every
 * connection reset, new ones refused: the database is gone for the service) and restore on the
 * same port. Outages are made this way rather than by stopping PostgreSQL, which other test runs
 * on the machine share.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';
import { reservePort } from './ports.ts';

export async function startTcpProxy(targetUrl: string) {
  const target = new URL(targetUrl);
  const port = await reservePort();
  const sockets = new Set<Socket>();
  let server: Server | null = null;

  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  };

  const listen = () =>
    new Promise<void>((resolve, reject) => {
      const listening = createServer((client) => {
        const upstream = connect(Number(target.port || 5432), target.hostname);
        track(client);
        track(upstream);
        client.once('close', () => upstream.destroy());
        upstream.once('close', () => client.destroy());
        client.pipe(upstream).pipe(client);
      });
      listening.once('error', reject);
      listening.listen(port, '127.0.0.1', () => {
        server = listening;
        resolve();
      });
    });

  await listen();
  return {
    port,
    /** `url` (a database on the target server) reached through the proxy. */
    through(url: string): string {
      const proxied = new URL(url);
      proxied.hostname = '127.0.0.1';
      proxied.port = String(port);
      return proxied.toString();
    },
    /** The database disappears: established connections are reset, new ones refused. */
    async cut(): Promise<void> {
      const closing = server;
      server = null;
      const closed = new Promise((done) => (closing ? closing.close(done) : done(undefined)));
      for (const socket of sockets) socket.resetAndDestroy();
      await closed;
    },
    /** The database is back, on the same address. */
    restore: listen,
    close: async function close() {
      await this.cut();
    },
  };
}

export type TcpProxy = Awaited<ReturnType<typeof startTcpProxy>>;
