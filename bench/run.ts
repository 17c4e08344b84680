/**
 * `npm run bench`: list performance at 10k and 100k resources. For each scenario, median latency
 * and requests/second through REST, through the equivalent GraphQL operation, and through the
 * floor baseline (the same SQL with the bare driver in a bare HTTP handler), then the ratios and
 * the targets of issue 5. Seeded databases are cached under data/bench (SQLite) or as
 * rrs_bench_<size> databases (BENCH_DATABASE=postgresql).
 *
 * Environment: BENCH_DATABASE (sqlite | postgresql), BENCH_SECONDS (per measurement, default 5),
 * BENCH_CONNECTIONS (default 4), BENCH_SIZES (default 10000,100000).
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { cpus } from 'node:os';
import autocannon from 'autocannon';
import pg from 'pg';
import { scenarios } from './scenarios.ts';

const providerName = process.env.BENCH_DATABASE ?? 'sqlite';
const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 4);
const sizes = (process.env.BENCH_SIZES ?? '10000,100000').split(',').map(Number);
const postgresServer = process.env.TEST_POSTGRES_URL ?? 'postgresql://postgres@127.0.0.1:5432/test';
const SEED_VERSION = 2;

async function databaseFor(size: number): Promise<string> {
  const persons = Math.max(50, Math.round(size / 20));
  const groups = Math.max(10, Math.round(size / 200));
  if (providerName === 'sqlite') {
    mkdirSync('data/bench', { recursive: true });
    const url = `file:./data/bench/v${SEED_VERSION}-${size}.db`;
    if (!existsSync(url.slice('file:'.length))) seed(url, size, persons, groups);
    return url;
  }
  const name = `rrs_bench_v${SEED_VERSION}_${size}`;
  const admin = new pg.Client({ connectionString: postgresServer });
  await admin.connect();
  const exists = (await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount;
  if (!exists) await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(postgresServer);
  url.pathname = `/${name}`;
  if (!exists) seed(url.toString(), size, persons, groups);
  return url.toString();
}

function seed(url: string, size: number, persons: number, groups: number) {
  console.log(`seeding ${size} resources (${persons} persons, ${groups} groups)…`);
  execFileSync('node_modules/.bin/tsx', ['bench/seed.ts', String(size), String(persons), String(groups)], {
    env: { ...process.env, DATABASE_URL: url },
    stdio: 'inherit',
  });
}

async function startServer(
  url: string,
): Promise<{ child: ChildProcess; appPort: number; floorPort: number; statements: Record<string, number> }> {
  const child = spawn('node_modules/.bin/tsx', ['bench/serve.ts'], {
    env: { ...process.env, DATABASE_URL: url },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (chunk) => {
      output += chunk;
      const line = output.split('\n').find((l) => l.startsWith('{'));
      if (line) resolve({ child, ...JSON.parse(line) });
    });
    child.on('exit', (code) => reject(new Error(`bench server exited with ${code}`)));
  });
}

interface Measure {
  median: number;
  rps: number;
}

async function measure(options: autocannon.Options): Promise<Measure> {
  // A short warm-up, then the measurement.
  await autocannon({ ...options, duration: 1, connections });
  const result = await autocannon({ ...options, duration: seconds, connections });
  if (result.non2xx > 0 || result.errors > 0)
    throw new Error(`${options.url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return { median: result.latency.p50, rps: result.requests.average };
}

const rows: string[][] = [];
const medians = new Map<string, number>();
const ratios: string[] = [];
for (const size of sizes) {
  const url = await databaseFor(size);
  const server = await startServer(url);
  try {
    for (const scenario of scenarios) {
      const rest = await measure({ url: `http://127.0.0.1:${server.appPort}${scenario.rest}` });
      const graphql = await measure({
        url: `http://127.0.0.1:${server.appPort}/graphql`,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(scenario.graphql),
      });
      const floor = await measure({
        url: `http://127.0.0.1:${server.floorPort}/${encodeURIComponent(scenario.name)}`,
      });
      medians.set(`${size}:${scenario.name}`, rest.median);
      const restGraphql = rest.median / graphql.median;
      const restFloor = rest.median / floor.median;
      rows.push([
        String(size),
        scenario.name,
        String(server.statements[scenario.name]),
        `${rest.median} ms / ${rest.rps.toFixed(0)}`,
        `${graphql.median} ms / ${graphql.rps.toFixed(0)}`,
        `${floor.median} ms / ${floor.rps.toFixed(0)}`,
        restGraphql.toFixed(2),
        restFloor.toFixed(2),
      ]);
      ratios.push(
        `${size} ${scenario.name}: REST/GraphQL ${restGraphql <= 1.15 ? 'met' : 'MISSED'}, REST/floor ${restFloor <= 3 ? 'met' : 'MISSED'}`,
      );
    }
  } finally {
    server.child.kill('SIGTERM');
  }
}

const header = [
  'resources',
  'scenario',
  'SQL',
  'REST median / req/s',
  'GraphQL median / req/s',
  'floor median / req/s',
  'REST/GraphQL',
  'REST/floor',
];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
console.log(
  `\n${providerName}, ${cpus().length} cores, ${connections} connections, ${seconds} s per measurement (latency: medians)\n`,
);
console.log(line(header));
console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
for (const row of rows) console.log(line(row));
console.log('\nTargets: REST/GraphQL ≤ 1.15, REST/floor ≤ 3, 100k median within 1.3× of 10k');
for (const ratio of ratios) console.log(`  ${ratio}`);
if (sizes.includes(10000) && sizes.includes(100000)) {
  for (const scenario of scenarios) {
    const growth = medians.get(`100000:${scenario.name}`)! / medians.get(`10000:${scenario.name}`)!;
    console.log(
      `  ${scenario.name}: 100k/10k median ${growth.toFixed(2)} ${growth <= 1.3 ? 'met' : 'MISSED'}`,
    );
  }
}
