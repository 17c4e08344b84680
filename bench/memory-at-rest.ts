/**
 * Memory of the service as `npm start` runs it (its environment included), on a fresh SQLite
 * database: RSS at boot, after GraphiQL, after /api/docs and the files its page loads, and after
 * an idle while. Several starts (RSS varies by a few MB between starts of the same build), then
 * the medians. Builds nothing: run `npm run build` first.
 *
 *   npm run bench:memory                               dist/server.js, 5 starts
 *   npm run bench:memory -- dist/server.js /tmp/before/dist/server.js   alternates two builds
 *   npm run bench:memory -- dist/server.js 'MALLOC_MMAP_THRESHOLD_=32768 --some-v8-flag dist/server.js'
 *
 * An entry is the script node runs, after node's options if any, after environment variables
 * (NAME=value) if any: those win over npm start's and this script's.
 *
 * MEMORY_RUNS (default 5), MEMORY_IDLE_SECONDS (default 10), MEMORY_DATABASE_URL (another database,
 * e.g. a PostgreSQL bench database; default: a new SQLite file per start under the temp dir).
 * MEMORY_LOAD_SECONDS (default 0: none) then runs the bench's mixed load (bench/scenarios.ts,
 * BENCH_CONNECTIONS, default 10) on a seeded bench database (MEMORY_DATABASE_URL, from
 * `npm run seed:bench`) and reports its peak RSS, RSS 3 s after it and the service's CPU time per
 * request (from /proc).
 * A build copied elsewhere needs `node_modules`, `package.json` and `prisma` beside its `dist/`
 * (symbolic links to a checkout's do); every start runs from the current folder.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { median } from './median.ts';
import { cpuMs, type ServiceProcess, sleep, startService, status } from './service-process.ts';

const runs = Number(process.env.MEMORY_RUNS ?? 5);
const idleSeconds = Number(process.env.MEMORY_IDLE_SECONDS ?? 10);
const loadSeconds = Number(process.env.MEMORY_LOAD_SECONDS ?? 0);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);
const entries = process.argv.slice(2).length > 0 ? process.argv.slice(2) : ['dist/server.js'];
const BROWSER_ENCODINGS = 'gzip, deflate, br, zstd';

const PHASES = ['boot', 'graphiql', 'docs', 'rest'] as const;
type Phase = (typeof PHASES)[number];
/** Each phase's VmRSS, the anonymous and file-backed parts of it at rest, and the load's (MB; cpu: ms per request). */
type Sample = Record<Phase, number> & {
  anon: number;
  file: number;
  peak?: number;
  after?: number;
  cpu?: number;
};
type Column = keyof Sample;

async function get(url: string, headers: Record<string, string> = {}): Promise<void> {
  const response = await fetch(url, { headers: { 'accept-encoding': BROWSER_ENCODINGS, ...headers } });
  await response.arrayBuffer();
  if (response.status !== 200) throw new Error(`${url}: ${response.status}`);
}

/** The bench's mixed load: its scenarios over a public resource of the database (as bench/run.ts). */
async function mixedLoad(databaseUrl: string) {
  const { scenariosFor } = await import('./scenarios.ts');
  const sql =
    'SELECT oid FROM "Resource" WHERE publie = true AND restriction = 0 AND oid >= 5000 ORDER BY oid LIMIT 1';
  let oid: number;
  if (databaseUrl.startsWith('file:')) {
    const { default: Database } = await import('better-sqlite3');
    const database = new Database(databaseUrl.slice('file:'.length), { readonly: true });
    oid = (database.prepare(sql.replace('= true', '= 1')).get() as { oid: number }).oid;
    database.close();
  } else {
    const { default: pg } = await import('pg');
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    oid = (await client.query(sql)).rows[0].oid;
    await client.end();
  }
  return scenariosFor(oid);
}

async function load(
  base: string,
  pid: number,
  databaseUrl: string,
): Promise<{ peak: number; after: number; cpu: number }> {
  const { default: autocannon } = await import('autocannon');
  const scenarios = await mixedLoad(databaseUrl);
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

async function measure(entry: string): Promise<Sample> {
  const dir = mkdtempSync(join(tmpdir(), 'rrs-memory-'));
  const databaseUrl = process.env.MEMORY_DATABASE_URL ?? `file:${join(dir, 'service.db')}`;
  const env: NodeJS.ProcessEnv = { DATABASE_URL: databaseUrl };
  if (loadSeconds > 0) {
    // The bench's token scenarios need its API token.
    const { BENCH_TOKEN } = await import('./token.ts');
    env.CONFIG_FILE = join(dir, 'config.json');
    writeFileSync(
      env.CONFIG_FILE,
      JSON.stringify({
        baseId: 'bench',
        baseUrl: 'http://127.0.0.1/',
        listeMax: 1000,
        apiTokens: [BENCH_TOKEN],
      }),
    );
  }
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
    if (loadSeconds > 0) Object.assign(sample, await load(base, pid, databaseUrl));
    return sample;
  } finally {
    await service?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

const mb = (value: number) => (value < 10 ? value.toFixed(2) : value.toFixed(0)).padStart(5);

const samples = new Map<string, Sample[]>(entries.map((entry) => [entry, []]));
for (let run = 0; run < runs; run++) {
  for (const entry of entries) {
    const sample = await measure(entry);
    samples.get(entry)!.push(sample);
    console.log(
      `${entry} #${run + 1}: ${PHASES.map((phase) => `${phase} ${sample[phase].toFixed(0)}`).join(', ')} MB` +
        ` (at rest: anonymous ${sample.anon.toFixed(0)}, file ${sample.file.toFixed(0)})` +
        (sample.peak
          ? `; load: peak ${sample.peak.toFixed(0)}, after ${sample.after!.toFixed(0)}, ${sample.cpu!.toFixed(2)} ms CPU per request`
          : ''),
    );
  }
}

const columns: Column[] = ['boot', 'graphiql', 'docs', 'rest', 'anon', 'file'];
if (loadSeconds > 0) columns.push('peak', 'after', 'cpu');
console.log(
  `\nVmRSS in MB, medians of ${runs} starts (rest: after ${idleSeconds} s idle; anon/file: RssAnon, RssFile at rest` +
    `${loadSeconds > 0 ? `; peak/after: during ${loadSeconds} s of mixed load, 3 s after it; cpu: ms per request` : ''})`,
);
console.log(`${'entry'.padEnd(40)}${columns.map((c) => c.padStart(9)).join('')}`);
for (const [entry, list] of samples) {
  console.log(
    `${entry.padEnd(40)}${columns.map((c) => `${mb(median(list.map((s) => s[c] ?? 0)))}    `).join('')}`,
  );
}
