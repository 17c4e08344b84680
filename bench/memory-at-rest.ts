/**
 * Memory of the service as `npm start` runs it (its environment included), on a fresh SQLite
 * database: RSS at boot, after GraphiQL, after /api/docs and the files its page loads, and after
 * an idle while. Several starts (RSS varies by a few MB between starts of the same build), then
 * the medians. Builds nothing: run `npm run build` first.
 *
 *   npm run bench:memory                               dist/server.js, 5 starts
 *   npm run bench:memory -- dist/server.js /tmp/before/dist/server.js   alternates two builds
 *
 * MEMORY_RUNS (default 5), MEMORY_IDLE_SECONDS (default 10), MEMORY_DATABASE_URL (another database,
 * e.g. a PostgreSQL bench database; default: a new SQLite file per start under the temp dir).
 * A build copied elsewhere needs `node_modules`, `package.json` and `prisma` beside its `dist/`
 * (symbolic links to this checkout's do); every start runs from this checkout's folder.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const runs = Number(process.env.MEMORY_RUNS ?? 5);
const idleSeconds = Number(process.env.MEMORY_IDLE_SECONDS ?? 10);
const entries = process.argv.slice(2).length > 0 ? process.argv.slice(2) : ['dist/server.js'];
const start = (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: { start: string } }).scripts
  .start;
const BROWSER_ENCODINGS = 'gzip, deflate, br, zstd';

const PHASES = ['boot', 'graphiql', 'docs', 'rest'] as const;
type Phase = (typeof PHASES)[number];
/** Each phase's VmRSS, and at the end the anonymous and file-backed parts of it (MB). */
type Sample = Record<Phase, number> & { anon: number; file: number };

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

function status(pid: number): Record<string, number> {
  const fields: Record<string, number> = {};
  for (const line of readFileSync(`/proc/${pid}/status`, 'utf8').split('\n')) {
    const match = /^(\w+):\s+(\d+) kB/.exec(line);
    if (match) fields[match[1]!] = Number(match[2]) / 1024;
  }
  return fields;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function get(url: string, headers: Record<string, string> = {}): Promise<void> {
  const response = await fetch(url, { headers: { 'accept-encoding': BROWSER_ENCODINGS, ...headers } });
  await response.arrayBuffer();
  if (response.status !== 200) throw new Error(`${url}: ${response.status}`);
}

async function measure(entry: string): Promise<Sample> {
  const dir = mkdtempSync(join(tmpdir(), 'rrs-memory-'));
  const port = await freePort();
  const databaseUrl = process.env.MEMORY_DATABASE_URL ?? `file:${join(dir, 'service.db')}`;
  // npm start's command line with the entry swapped in, run in place of the shell: the pid is the service's.
  const child = spawn('sh', ['-c', start.replace('dist/server.js', entry)], {
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code) => reject(new Error(`${entry} exited with ${code}`))),
  );
  exited.catch(() => {});
  const base = `http://127.0.0.1:${port}`;
  try {
    for (let waited = 0; ; waited += 100) {
      const up = await fetch(`${base}/healthz`).then(
        (response) => response.ok,
        () => false,
      );
      if (up) break;
      if (waited > 60_000) throw new Error(`${entry} did not answer /healthz within 60 s`);
      await Promise.race([sleep(100), exited]);
    }
    const settle = () => Promise.race([sleep(1000), exited]);
    await settle();
    const boot = status(child.pid!).VmRSS!;
    await get(`${base}/graphql`, { accept: 'text/html' });
    await settle();
    const graphiql = status(child.pid!).VmRSS!;
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
    const docs = status(child.pid!).VmRSS!;
    await Promise.race([sleep(idleSeconds * 1000), exited]);
    const last = status(child.pid!);
    return { boot, graphiql, docs, rest: last.VmRSS!, anon: last.RssAnon!, file: last.RssFile! };
  } finally {
    child.kill('SIGTERM');
    await new Promise((done) => (child.exitCode === null ? child.once('exit', done) : done(null)));
    rmSync(dir, { recursive: true, force: true });
  }
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};
const mb = (value: number) => value.toFixed(0).padStart(5);

const samples = new Map<string, Sample[]>(entries.map((entry) => [entry, []]));
for (let run = 0; run < runs; run++) {
  for (const entry of entries) {
    const sample = await measure(entry);
    samples.get(entry)!.push(sample);
    console.log(
      `${entry} #${run + 1}: ${PHASES.map((phase) => `${phase} ${sample[phase].toFixed(0)}`).join(', ')} MB` +
        ` (at rest: anonymous ${sample.anon.toFixed(0)}, file ${sample.file.toFixed(0)})`,
    );
  }
}

const columns = ['boot', 'graphiql', 'docs', 'rest', 'anon', 'file'] as const;
console.log(
  `\nVmRSS in MB, medians of ${runs} starts (rest: after ${idleSeconds} s idle; anon/file: RssAnon, RssFile at rest)`,
);
console.log(`${'entry'.padEnd(40)}${columns.map((c) => c.padStart(9)).join('')}`);
for (const [entry, list] of samples) {
  console.log(
    `${entry.padEnd(40)}${columns.map((c) => `${mb(median(list.map((s) => s[c])))}    `).join('')}`,
  );
}
