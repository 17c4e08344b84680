/**
 * The memory of one start of the service as `npm start` runs it (its environment included): RSS at
 * boot, after GraphiQL, after /api/docs and the files its page loads, after an idle while (at rest,
 * where the target applies), and with `loadSeconds`, under the bench's mixed load on a seeded bench
 * database (peak RSS, RSS 3 s after it, the service's CPU time per request). Used by
 * `npm run bench:memory` (bench/memory-at-rest.ts) and by `npm run bench` (bench/run.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { publicOid } from './databases.ts';
import { scenariosFor } from './scenarios.ts';
import {
  benchConfigFile,
  cpuMs,
  type ServiceProcess,
  sleep,
  startService,
  status,
} from './service-process.ts';

const BROWSER_ENCODINGS = 'gzip, deflate, br, zstd';

export interface MemoryOptions {
  /** The database (default: a new SQLite file under the temp dir); the load needs a seeded bench database. */
  databaseUrl?: string;
  idleSeconds: number;
  /** 0: no load. */
  loadSeconds: number;
  connections: number;
}

export const PHASES = ['boot', 'graphiql', 'docs', 'rest'] as const;
type Phase = (typeof PHASES)[number];
/** Each phase's VmRSS, the anonymous and file-backed parts of it at rest, and the load's (MB; cpu: ms per request). */
export type Sample = Record<Phase, number> & {
  anon: number;
  file: number;
  peak?: number;
  after?: number;
  cpu?: number;
};
export type Column = keyof Sample;

async function get(url: string, headers: Record<string, string> = {}): Promise<void> {
  const response = await fetch(url, { headers: { 'accept-encoding': BROWSER_ENCODINGS, ...headers } });
  await response.arrayBuffer();
  if (response.status !== 200) throw new Error(`${url}: ${response.status}`);
}

async function load(
  base: string,
  pid: number,
  databaseUrl: string,
  { loadSeconds, connections }: MemoryOptions,
): Promise<{ peak: number; after: number; cpu: number }> {
  const { default: autocannon } = await import('autocannon');
  // The bench's mixed load: its scenarios over the database's chosen resource (as bench/run.ts).
  const scenarios = scenariosFor(await publicOid(databaseUrl));
  let peak = 0;
  const sampler = setInterval(() => {
    peak = Math.max(peak, status(pid).VmRSS!);
  }, 200);
  const cpuBefore = cpuMs(pid);
  const result = await autocannon({
    url: base,
    connections,
    duration: loadSeconds,
    requests: scenarios.map((scenario) => ({
      method: 'GET',
      path: scenario.rest,
      headers: scenario.headers,
    })),
  });
  const cpu = (cpuMs(pid) - cpuBefore) / result.requests.total;
  clearInterval(sampler);
  await sleep(3000);
  return { peak, after: status(pid).VmRSS!, cpu };
}

/** One start of `entry` (see bench/memory-at-rest.ts for what an entry may hold), measured. */
export async function measureMemory(entry: string, options: MemoryOptions): Promise<Sample> {
  const { idleSeconds, loadSeconds } = options;
  const dir = mkdtempSync(join(tmpdir(), 'rrs-memory-'));
  const databaseUrl = options.databaseUrl ?? `file:${join(dir, 'service.db')}`;
  const env: NodeJS.ProcessEnv = { DATABASE_URL: databaseUrl };
  // The bench's token scenarios need its API token.
  if (loadSeconds > 0) env.CONFIG_FILE = benchConfigFile(dir);
  let service: ServiceProcess | undefined;
  try {
    service = await startService(entry, env);
    const { base, pid, exited } = service;
    const settle = () => Promise.race([sleep(1000), exited]);
    await settle();
    const boot = status(pid).VmRSS!;
    await get(`${base}/graphql`, { accept: 'text/html' });
    await settle();
    const graphiql = status(pid).VmRSS!;
    await get(`${base}/api/docs`, { accept: 'text/html' });
    await Promise.all(
      [
        '/api/openapi.json',
        '/api/docs/swagger-ui-bundle.js',
        '/api/docs/swagger-ui.css',
        '/api/docs/init.js',
      ].map((path) => get(`${base}${path}`)),
    );
    await settle();
    const docs = status(pid).VmRSS!;
    await Promise.race([sleep(idleSeconds * 1000), exited]);
    const last = status(pid);
    const sample: Sample = {
      boot,
      graphiql,
      docs,
      rest: last.VmRSS!,
      anon: last.RssAnon!,
      file: last.RssFile!,
    };
    if (loadSeconds > 0) Object.assign(sample, await load(base, pid, databaseUrl, options));
    return sample;
  } finally {
    await service?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
