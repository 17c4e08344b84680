/**
 * Stopping as a supervisor does it, under the documented start command (`npm start`): SIGTERM to
 * npm (a container runtime whose main process is npm), to the whole process group (a terminal,
 * systemd's default), or to the service's own process. Each time, requests in flight (logins
 * waiting 1.5 s on a slow lab) are answered in full, new connections are refused, the outbox worker
 * and the database are closed, "shutting down" and "stopped" are logged, and every process of the
 * group exits 0.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, dropTestDatabase, provider } from '../setup/test-databases.ts';
import { type FakeLab, labUser, startFakeLab } from '../support/fake-lab.ts';
import { refused } from '../support/ports.ts';
import {
  configFile,
  isAlive,
  type ServerProcess,
  serviceProcesses,
  startServer,
} from '../support/server-process.ts';

const IN_FLIGHT = 6;
const LAB_DELAY_MS = 1500;

let lab: FakeLab;
const databases: string[] = [];

beforeAll(async () => {
  lab = await startFakeLab('labStop');
});

afterAll(async () => {
  await lab.close();
  for (const url of databases) await dropTestDatabase(url);
});

async function startUnderNpm(): Promise<{ server: ServerProcess; port: number; service: number }> {
  const database = await createTestDatabase('stop');
  databases.push(database);
  const config = {
    baseId: 'stop',
    baseUrl: 'http://stop.test/',
    listeMax: 100,
    labs: [lab.config()],
    http: { labTimeoutMs: 4000 },
    lifecycle: { shutdownGraceMs: 6000 },
  };
  // `--ignore-scripts` skips prestart (the build): the run's global set-up built dist/ already.
  const server = startServer(
    { CONFIG_FILE: configFile(config), DATABASE_URL: database },
    { command: ['npm', 'start', '--silent', '--ignore-scripts'] },
  );
  const port = await server.serving;
  const [service] = serviceProcesses(server.child.pid as number);
  if (service === undefined) throw new Error('no service process under npm');
  return { server, port, service };
}

const signals = {
  'npm (what a container runtime signals when npm is its main process)': (server: ServerProcess) =>
    process.kill(server.child.pid as number, 'SIGTERM'),
  'the process group (a terminal, systemd)': (server: ServerProcess) =>
    process.kill(-(server.child.pid as number), 'SIGTERM'),
  'the service process itself': (_server: ServerProcess, service: number) => process.kill(service, 'SIGTERM'),
};

describe(`SIGTERM with requests in flight (${provider})`, () => {
  for (const [target, signal] of Object.entries(signals)) {
    it(`to ${target}: requests finish, the service stops cleanly and exits 0`, async () => {
      const { server, port, service } = await startUnderNpm();
      const seen = lab.received.length;
      const logins = Array.from({ length: IN_FLIGHT }, () =>
        fetch(`http://127.0.0.1:${port}/api/connexion`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ origine: lab.baseUrl, token: lab.slowTokenFor(labUser(), LAB_DELAY_MS) }),
        }).then(
          async (response) => ({ status: response.status, body: await response.json() }),
          (error: Error) => ({ status: 0, body: { error: error.message } }),
        ),
      );
      // Every login is at the lab: in flight inside the service.
      while (lab.received.length < seen + IN_FLIGHT) await new Promise((done) => setTimeout(done, 20));
      const signalled = Date.now();
      signal(server, service);

      await server.waitForLog((line) => line.msg === 'shutting down');
      expect(await refused(port)).toBe(true);
      const answers = await Promise.all(logins);
      expect(answers.map((answer) => answer.status)).toEqual(Array(IN_FLIGHT).fill(200));
      expect(answers.every((answer) => answer.body.success === true)).toBe(true);

      expect(await server.exited).toBe(0);
      const stopped = await server.waitForLog((line) => line.msg === 'stopped', 1000);
      expect(stopped).toMatchObject({ finished: IN_FLIGHT, cut: 0 });
      expect(isAlive(service)).toBe(false);
      console.log(
        `${provider}, SIGTERM to ${target.split(' (')[0]}: ${stopped.finished} finished, ${stopped.cut} reset, stopped after ${Date.now() - signalled} ms`,
      );
    }, 30_000);
  }
});
