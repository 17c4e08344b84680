/**
 * What a supervisor (or test/process/shutdown.test.ts) reads in the log is already true: when
 * "shutting down" is written, the listening socket is closed and a new connection is refused. Once
 * the line came before `server.close()`, and a connection made in between was accepted (CI, stop 42).
 */
import { createServer, type Server } from 'node:http';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { gracefulStop } from '../../src/lifecycle/graceful-shutdown.ts';
import { createLogger } from '../../src/logging/logger.ts';
import { refused } from '../support/ports.ts';

let server: Server | undefined;

afterEach(() => {
  server?.close();
  server = undefined;
});

describe('graceful stop', () => {
  it('logs "shutting down" only once new connections are refused, then "stopped" and exits 0', async () => {
    server = createServer((_req, res) => res.end('ok'));
    await new Promise<void>((done) => server?.listen(0, '127.0.0.1', done));
    const listening = server;
    const address = listening.address();
    if (address === null || typeof address === 'string') throw new Error('no port');

    const lines: { msg: string; listening: boolean }[] = [];
    let refusedAtLine: Promise<boolean> | undefined;
    const destination = new Writable({
      write(chunk, _encoding, done) {
        const line = JSON.parse(String(chunk)) as { msg: string };
        lines.push({ msg: line.msg, listening: listening.listening });
        // A client that reacts to the line at once, before the service runs another instruction.
        if (line.msg === 'shutting down') refusedAtLine = refused(address.port);
        done();
      },
    });
    let exitCode: number | undefined;
    const stop = gracefulStop({
      server: listening,
      logger: createLogger('info', destination),
      graceMs: 1000,
      afterDrain: async () => {},
      exit: (code) => {
        exitCode = code;
      },
    });

    await stop('SIGTERM');

    expect(lines.map((line) => line.msg)).toEqual(['shutting down', 'stopped']);
    expect(lines[0]?.listening).toBe(false);
    expect(await refusedAtLine).toBe(true);
    expect(exitCode).toBe(0);
  });

  it('a second signal changes nothing', async () => {
    server = createServer((_req, res) => res.end('ok'));
    await new Promise<void>((done) => server?.listen(0, '127.0.0.1', done));
    const messages: string[] = [];
    const destination = new Writable({
      write(chunk, _encoding, done) {
        messages.push((JSON.parse(String(chunk)) as { msg: string }).msg);
        done();
      },
    });
    const exits: number[] = [];
    const stop = gracefulStop({
      server,
      logger: createLogger('info', destination),
      graceMs: 1000,
      afterDrain: async () => {},
      exit: (code) => exits.push(code),
    });
    await Promise.all([stop('SIGTERM'), stop('SIGINT')]);
    expect(messages).toEqual(['shutting down', 'stopped']);
    expect(exits).toEqual([0]);
  });
});
