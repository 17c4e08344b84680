/**
 * The service as `npm start` runs it (its environment and node options included), started on a
 * free loopback port for a measurement, and what /proc says about it. Builds nothing: run
 * `npm run build` first.
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { delimiter, dirname, join } from 'node:path';
import { BENCH_TOKEN } from './token.ts';

export const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** The /proc status fields given in kB, in MB (VmRSS, VmHWM, RssAnon, RssFile…). */
export function status(pid: number): Record<string, number> {
  const fields: Record<string, number> = {};
  for (const line of readFileSync(`/proc/${pid}/status`, 'utf8').split('\n')) {
    const match = /^(\w+):\s+(\d+) kB/.exec(line);
    if (match) fields[match[1]!] = Number(match[2]) / 1024;
  }
  return fields;
}

/** User and system CPU time of the process so far, in ms. */
export function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  // utime and stime: fields 14 and 15 of the line, in clock ticks (100 per second on Linux).
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** package.json's start script: the command line `npm start` runs. */
const startScript = (): string =>
  (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: { start: string } }).scripts.start;

/**
 * A configuration file in `dir` for the service started on a bench database: the bench's base id
 * and list maximum, and its API token, which the token scenarios present. Returns its path.
 */
export function benchConfigFile(dir: string): string {
  const file = join(dir, 'config.json');
  writeFileSync(
    file,
    JSON.stringify({
      baseId: 'bench',
      baseUrl: 'http://127.0.0.1/',
      listeMax: 1000,
      apiTokens: [BENCH_TOKEN],
    }),
  );
  return file;
}

/**
 * What `npm start` gives the Node.js it runs besides the script: its environment (the start
 * script's `NAME=${NAME:-default}` assignments, the environment's value winning as in the shell)
 * and node's options (`--max-semi-space-size=4`). The bench runs its service process with both,
 * so that what it measures is what `npm start` serves: V8's default young generation ran a list of
 * 500 at half the CPU of npm start's 4 MB one (docs/performance.md). `BENCH_NODE_OPTIONS` replaces
 * the options (empty: V8's defaults), to compare.
 */
export function npmStartRuntime(): { env: Record<string, string>; nodeOptions: string[] } {
  const start = startScript();
  const env: Record<string, string> = {};
  for (const [, name, fallback] of start.matchAll(/\b([A-Z_]+)=\$\{[A-Z_]+:-([^}]*)\}/g))
    env[name!] = process.env[name!] ?? fallback!;
  const command = /\bnode((?:\s+--?[\w-]+(?:=\S+)?)*)\s+dist\/server\.js/.exec(start);
  if (!command) throw new Error(`package.json's start script runs no \`node … dist/server.js\`: ${start}`);
  const options = process.env.BENCH_NODE_OPTIONS ?? command[1]!;
  return { env, nodeOptions: options.trim().split(/\s+/).filter(Boolean) };
}

export interface ServiceProcess {
  base: string;
  pid: number;
  /** Rejects when the process exits: race it against waits so that a crash ends the measurement. */
  exited: Promise<never>;
  stop(): Promise<void>;
}

/**
 * Starts `entry` (a script, after node's options if any, after NAME=value assignments if any: those
 * win over npm start's) with npm start's command line, run in place of the shell so that the pid
 * is the service's, and waits for /healthz.
 */
export async function startService(entry: string, environment: NodeJS.ProcessEnv): Promise<ServiceProcess> {
  const start = startScript();
  const port = await freePort();
  const words = entry.split(/\s+/);
  const assignments = words.filter((word) => /^[A-Z_]+=/.test(word));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    // The start script's `node` found first in PATH: the Node.js running this script (the
    // project's, under `npm run`), whatever else PATH holds.
    PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH}`,
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    ...environment,
    ...Object.fromEntries(
      assignments.map((word) => [word.slice(0, word.indexOf('=')), word.slice(word.indexOf('=') + 1)]),
    ),
  };
  const nodeArguments = words.filter((word) => !assignments.includes(word)).join(' ');
  // The start script's own variables (`${NAME:-default}`) give way to the entry's.
  const child = spawn('sh', ['-c', start.replace('dist/server.js', nodeArguments)], {
    env,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code) => reject(new Error(`${entry} exited with ${code}`))),
  );
  exited.catch(() => {});
  const stop = async () => {
    child.kill('SIGTERM');
    await new Promise((done) => (child.exitCode === null ? child.once('exit', done) : done(null)));
  };
  const base = `http://127.0.0.1:${port}`;
  try {
    for (let waited = 0; ; waited += 100) {
      const up = await fetch(`${base}/healthz`).then(
        (response) => response.ok,
        () => false,
      );
      if (up) break;
      // A first start on a large database applies migrations (and their back-fills) first.
      if (waited > 300_000) throw new Error(`${entry} did not answer /healthz within 300 s`);
      await Promise.race([sleep(100), exited]);
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { base, pid: child.pid!, exited, stop };
}
