/**
 * Ports for processes that must be told their address before they start (peers naming each
 * other, a proxy restarted on the same port). Taken below Linux's ephemeral range (32768-60999),
 * where `listen(0)` and outgoing connections of every other test pick theirs, so a port checked
 * free here is not handed to someone else before its owner binds it.
 */
import { connect, createServer } from 'node:net';

const FIRST = 20_000;
const COUNT = 12_000;
const given = new Set<number>();

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

export async function reservePort(): Promise<number> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = FIRST + Math.floor(Math.random() * COUNT);
    if (!given.has(port) && (await isFree(port))) {
      given.add(port);
      return port;
    }
  }
  throw new Error('no free port found below the ephemeral range');
}

/** Whether a new TCP connection to `port` on this machine is refused (nothing listens there). */
export function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}
