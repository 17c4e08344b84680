/**
 * `npm run bench`: read speed at 10k and 100k resources (and 1M when BENCH_SIZES has it), side by
 * side in one run. For each scenario (bench/scenarios.ts), in alternating rounds: the legacy REST
 * request, the same GraphQL operation, the floor (the service's own SQL replayed with the bare
 * driver in a bare handler), and on PostgreSQL the three anchors (PostGraphile v5, the
 * one-statement limit and the Express limit; bench/anchors.ts). Then the ratios against the
 * targets, the statements per single read, the growth of the lists from each size to the next, and
 * the memory of the production start (`npm start`'s command, its environment included) at rest and
 * under a mixed load.
 *
 * Every process it starts (the service, the floor, the anchors) runs on the Node.js the bench runs
 * on, the project's (package.json's engines; `npm run` puts node_modules/.bin/node first in PATH).
 *
 * Environment: BENCH_DATABASE (sqlite | postgresql), BENCH_SIZES (default 10000,100000; 1000000
 * adds 1M, best seeded beforehand by `npm run seed:bench`), BENCH_SECONDS (per measurement,
 * default 4), BENCH_ROUNDS (default 4), BENCH_CONNECTIONS (default 10), BENCH_MEMORY_SECONDS
 * (default 30; 0 skips the memory run), BENCH_MEMORY_STARTS (starts of the memory run, default 3),
 * BENCH_MEMORY_SIZE (the database of the memory run: default the largest of BENCH_SIZES up to 100k,
 * where the memory targets apply and earlier runs measured).
 *
 * Erasure speed is measured apart, on a scratch database of its own: `npm run bench:erasure`
 * (bench/erasure.ts); on PostgreSQL it runs after the reads (BENCH_ERASURE=0: not).
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import semver from 'semver';
import { type Anchors, startAnchors, stopAnchors } from './anchors.ts';
import { type BenchProvider, benchDatabase, publicOid } from './databases.ts';
import { median } from './median.ts';
import { measureMemory, type Sample } from './memory.ts';
import { type Scenario, scenariosFor, type Targets } from './scenarios.ts';
import { buildOnce } from './service-build.ts';
import { npmStartRuntime } from './service-process.ts';

// A ratio between the service and an anchor on two different runtimes measures the runtimes (Node
// 22 ran PostGraphile twice as fast as Node 20: bench/README.md), so all run on this one, which
// must be the project's.
const engines: string = JSON.parse(readFileSync('package.json', 'utf8')).engines.node;
if (!semver.satisfies(process.version, engines)) {
  console.error(
    `The bench runs on Node.js ${process.version} (${process.execPath}); the project's is ${engines}: run it with npm run bench.`,
  );
  process.exit(1);
}

// Once, before any server: every server of the run measures the same build.
buildOnce();

const provider = (process.env.BENCH_DATABASE ?? 'sqlite') as BenchProvider;
const seconds = Number(process.env.BENCH_SECONDS ?? 4);
const rounds = Number(process.env.BENCH_ROUNDS ?? 4);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);
const memorySeconds = Number(process.env.BENCH_MEMORY_SECONDS ?? 30);
const memoryStarts = Number(process.env.BENCH_MEMORY_STARTS ?? 3);
const sizes = (process.env.BENCH_SIZES ?? '10000,100000').split(',').map(Number);
/** Only the scenarios whose name contains one of these texts (BENCH_ONLY='list|authors'), to iterate. */
const only = process.env.BENCH_ONLY?.split('|');
const selected = (scenarios: Scenario[]) =>
  only ? scenarios.filter((scenario) => only.some((part) => scenario.name.includes(part))) : scenarios;

interface BenchServer {
  child: ChildProcess;
  appPort: number;
  floorPort: number;
  statements: Record<string, { first: number; again: number }>;
}

/** Runs bench/serve.ts and resolves with the first JSON line it prints. */
function serve<T>(env: Record<string, string>): Promise<{ child: ChildProcess } & T> {
  // On the Node.js running the bench (process.execPath), with npm start's options and environment.
  const runtime = npmStartRuntime();
  const child = spawn(process.execPath, [...runtime.nodeOptions, '--import', 'tsx', 'bench/serve.ts'], {
    env: { ...process.env, ...runtime.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (chunk) => {
      output += chunk;
      // Complete lines only: the recording's line is long and comes in several chunks.
      const line = output
        .split('\n')
        .slice(0, -1)
        .find((l) => l.startsWith('{'));
      if (line) resolve({ child, ...JSON.parse(line) });
    });
    child.on('exit', (code) => reject(new Error(`bench server exited with ${code}`)));
  });
}

async function startBenchServer(url: string, oid: number): Promise<BenchServer> {
  const base = { DATABASE_URL: url, BENCH_OID: String(oid) };
  const { recorded, statements } = await serve<{
    recorded: unknown;
    statements: BenchServer['statements'];
  }>({ ...base, BENCH_RECORD: '1' });
  const file = join(mkdtempSync(join(tmpdir(), 'rrs-bench-')), 'recorded.json');
  writeFileSync(file, JSON.stringify(recorded));
  const server = await serve<{ appPort: number; floorPort: number }>({ ...base, BENCH_RECORDED: file });
  return { ...server, statements };
}

interface Measure {
  rps: number;
  /** Median latency, whole milliseconds (autocannon's histogram resolution). */
  p50: number;
  /** Mean latency in fractions of a millisecond: the ratios use it, as one millisecond of p50 is a large step for a short request. */
  mean: number;
}

async function measure(options: autocannon.Options): Promise<Measure> {
  // One request alone (a list's first request of a filter counts its total, kept afterwards: at 1M
  // about a second, which ten connections at once would turn into the round), a short warm-up,
  // then the measurement.
  await autocannon({ ...options, amount: 1, connections: 1 });
  await autocannon({ ...options, duration: 1, connections });
  const result = await autocannon({ ...options, duration: seconds, connections });
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(`${options.url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  }
  return { rps: result.requests.average, p50: result.latency.p50, mean: result.latency.mean };
}

/**
 * Waits until the database runs no statement of another session (PostgreSQL; at most 2 minutes).
 * When a measurement ends its connections close, but each server finishes the requests it took:
 * at 1M the floor's authors request counts twice (0.2 s each, every time), ten at once, and the
 * target measured next shared the database with them (REST's authors at 1M: 17 req/s and a mean
 * twice its median, against GraphQL's 39 on the same operation). Three quiet readings in a row: one
 * may fall between two statements of a request.
 */
async function databaseSettled(url: string): Promise<void> {
  if (provider !== 'postgresql') return;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const deadline = Date.now() + 120_000;
    for (let quiet = 0; quiet < 3 && Date.now() < deadline; ) {
      const { rows } = await client.query(
        "SELECT count(*)::int AS busy FROM pg_stat_activity WHERE datname = current_database() AND state = 'active' AND pid <> pg_backend_pid()",
      );
      quiet = rows[0].busy === 0 ? quiet + 1 : 0;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } finally {
    await client.end();
  }
}

/**
 * Writes the database's dirty pages out before a size is measured: a seed or a migration just
 * before leaves a checkpoint due, which would otherwise fall on whichever target is measured then.
 */
async function checkpoint(url: string): Promise<void> {
  if (provider !== 'postgresql') return;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('CHECKPOINT');
  } finally {
    await client.end();
  }
}

type Target = 'rest' | 'graphql' | 'floor' | 'postgraphile' | 'limit' | 'expressLimit';

/** The requests of a scenario for each target present. */
function requests(
  scenario: Scenario,
  oid: number,
  server: BenchServer,
  anchors: Omit<Anchors, 'missing'>,
): Partial<Record<Target, autocannon.Options>> {
  const json = { 'content-type': 'application/json' };
  const targets: Partial<Record<Target, autocannon.Options>> = {
    rest: { url: `http://127.0.0.1:${server.appPort}${scenario.rest}`, headers: scenario.headers },
    graphql: {
      url: `http://127.0.0.1:${server.appPort}/graphql`,
      method: 'POST',
      headers: { ...json, ...scenario.headers },
      body: JSON.stringify(scenario.graphql),
    },
    floor: { url: `http://127.0.0.1:${server.floorPort}/${encodeURIComponent(scenario.name)}` },
  };
  const document = scenario.postgraphile
    ? anchors.postgraphile?.documents?.[scenario.postgraphile]
    : undefined;
  if (anchors.postgraphile && document) {
    targets.postgraphile = {
      url: `http://127.0.0.1:${anchors.postgraphile.port}/graphql`,
      method: 'POST',
      headers: json,
      body: JSON.stringify({
        query: document.query,
        variables: document.variables ? { ...document.variables, oid } : undefined,
      }),
    };
  }
  if (anchors.limit && scenario.limit) {
    targets.limit = { url: `http://127.0.0.1:${anchors.limit.port}${scenario.limit}` };
  }
  if (anchors.expressLimit && scenario.expressLimit) {
    targets.expressLimit = { url: `http://127.0.0.1:${anchors.expressLimit.port}${scenario.expressLimit}` };
  }
  return targets;
}

interface Row {
  size: number;
  scenario: Scenario;
  statements: { first: number; again: number };
  results: Partial<Record<Target, Measure>>;
  /**
   * REST / anchor requests per second, for each anchor a target is set against, the median of
   * each round's ratio: the two are measured seconds apart within a round, so a slower minute of
   * the machine falls on both (the machine's speed moves between minutes of one run:
   * bench/README.md).
   */
  ratios: { [anchor in keyof Targets]?: number };
}

const rows: Row[] = [];
const notes: string[] = [];
for (const size of sizes) {
  const url = await benchDatabase(provider, size);
  const oid = await publicOid(url);
  const scenarios = selected(scenariosFor(oid));
  const server = await startBenchServer(url, oid);
  const anchors: Anchors =
    provider === 'postgresql'
      ? await startAnchors(url, { postgraphile: 5678, limit: 5801, expressLimit: 5802 })
      : { missing: ['anchors: PostgreSQL only (BENCH_DATABASE=postgresql)'] };
  notes.push(...anchors.missing);
  await checkpoint(url);
  try {
    for (const scenario of scenarios) {
      const targets = requests(scenario, oid, server, anchors);
      const samples: Partial<Record<Target, Measure[]>> = {};
      // Rounds alternate the targets, so a slower moment of the machine falls on all of them.
      for (let round = 0; round < rounds; round++) {
        for (const [target, options] of Object.entries(targets) as [Target, autocannon.Options][]) {
          const measured = await measure(options);
          await databaseSettled(url);
          samples[target] = [...(samples[target] ?? []), measured];
        }
      }
      const results = Object.fromEntries(
        Object.entries(samples).map(([target, list]) => [
          target,
          {
            rps: median(list.map((m) => m.rps)),
            p50: median(list.map((m) => m.p50)),
            mean: median(list.map((m) => m.mean)),
          },
        ]),
      );
      const ratios: Row['ratios'] = {};
      for (const anchor of ['postgraphile', 'expressLimit'] as const) {
        const [restRounds, anchorRounds] = [samples.rest, samples[anchor]];
        if (restRounds && anchorRounds)
          ratios[anchor] = median(
            restRounds.map((measured, round) => measured.rps / anchorRounds[round]!.rps),
          );
      }
      rows.push({ size, scenario, statements: server.statements[scenario.name]!, results, ratios });
      process.stderr.write(`  ${size} ${scenario.name}: done\n`);
    }
  } finally {
    server.child.kill('SIGTERM');
    stopAnchors(anchors);
  }
}

// ---------------------------------------------------------------------------------------------
// Memory of the production start, as `npm run bench:memory` measures it (bench/memory.ts): at rest
// after GraphiQL and /api/docs, where the target applies, then under the mixed load; the medians
// of a few starts, since RSS moves by a few MB from one start of the same build to the next.

let memory: { size: number; starts: number; rest: number; peak: number; after: number } | undefined;
if (memorySeconds > 0) {
  const size = Number(process.env.BENCH_MEMORY_SIZE ?? Math.max(...sizes.filter((n) => n <= 100_000)));
  const databaseUrl = await benchDatabase(provider, size);
  const samples: Sample[] = [];
  for (let start = 0; start < memoryStarts; start++) {
    samples.push(
      await measureMemory('dist/server.js', {
        databaseUrl,
        idleSeconds: 10,
        loadSeconds: memorySeconds,
        connections,
      }),
    );
  }
  const medianOf = (column: 'rest' | 'peak' | 'after') =>
    median(samples.map((sample) => sample[column] ?? 0));
  memory = {
    size,
    starts: memoryStarts,
    rest: medianOf('rest'),
    peak: medianOf('peak'),
    after: medianOf('after'),
  };
}

// ---------------------------------------------------------------------------------------------
// Report

const rate = (m: Measure | undefined) =>
  m ? `${m.rps.toFixed(0)} (${m.mean.toFixed(1)} / ${m.p50} ms)` : '—';
/** A ratio beside its target: `1.62× (≥ 1.5×: met)`; the target alone when an anchor was not run. */
const against = (ratio: number | undefined, target: number | undefined) => {
  const value = ratio === undefined ? '—' : `${ratio.toFixed(2)}×`;
  if (target === undefined) return value;
  const verdict = ratio === undefined ? '' : ratio >= target ? ': met' : ': MISSED';
  return `${value} (≥ ${target}×${verdict})`;
};
const label = (size: number) => (size >= 1_000_000 ? `${size / 1_000_000}M` : `${size / 1000}k`);
/** The list scenarios: their latency must not grow with the repository; the others read one resource. */
const isList = (scenario: Scenario) => scenario.rest.startsWith('/api/liste');

const header = [
  'resources',
  'scenario',
  'SQL',
  'REST req/s (mean / p50)',
  'GraphQL',
  'floor',
  'PostGraphile',
  'one-statement limit',
  'Express limit',
  'REST / PostGraphile (median of rounds, target)',
  'REST / Express limit (median of rounds, target)',
];
const table = rows.map(({ size, scenario, statements, results, ratios }) => {
  return [
    String(size),
    scenario.name,
    statements.first === statements.again
      ? String(statements.first)
      : `${statements.first}, then ${statements.again}`,
    rate(results.rest),
    rate(results.graphql),
    rate(results.floor),
    rate(results.postgraphile),
    rate(results.limit),
    rate(results.expressLimit),
    against(ratios.postgraphile, scenario.targets.postgraphile),
    against(ratios.expressLimit, scenario.targets.expressLimit),
  ];
});
const widths = header.map((h, i) => Math.max(h.length, ...table.map((r) => r[i]!.length)));
const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
console.log(
  `\n${provider}, Node.js ${process.versions.node}, ${cpus().length} cores, ${connections} connections, ${rounds} alternated rounds of ${seconds} s (medians)\n`,
);
console.log(line(header));
console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
for (const row of table) console.log(line(row));

// The same operation sent by a GraphQL client: the front ends the service exists for must not get
// a slower path than the legacy routes.
console.log(
  '\nGraphQL / REST on the same operation (inverse of the mean latency, median of the rounds; target ≥ 0.9):',
);
for (const { size, scenario, results } of rows) {
  if (!results.rest || !results.graphql) continue;
  const ratio = results.rest.mean / results.graphql.mean;
  console.log(`  ${size} ${scenario.name}: ${ratio.toFixed(2)} ${ratio >= 0.9 ? 'met' : 'MISSED'}`);
}
// Counted by bench/serve.ts on the first request (nothing cached) and on the same request again.
console.log('\nStatements per single read (first request, then the same again; target ≤ 2):');
for (const { size, scenario, statements } of rows.filter((row) => !isList(row.scenario))) {
  const worst = Math.max(statements.first, statements.again);
  console.log(
    `  ${size} ${scenario.name}: ${statements.first}, then ${statements.again} ${worst <= 2 ? 'met' : 'MISSED'}`,
  );
}
// From each size to the next (10k → 100k, 100k → 1M): ten times the rows each, the same target.
const measuredSizes = [...new Set(rows.map((row) => row.size))].sort((a, b) => a - b);
for (let i = 1; i < measuredSizes.length; i++) {
  const [small, large] = [measuredSizes[i - 1]!, measuredSizes[i]!];
  console.log(
    `\nGrowth ${label(small)} → ${label(large)}: mean latency of the REST request, median of the rounds (target ≤ 1.3 for lists):`,
  );
  for (const { scenario, results } of rows.filter((row) => row.size === large)) {
    const before = rows.find((row) => row.size === small && row.scenario.name === scenario.name);
    if (!before?.results.rest || !results.rest) continue;
    const growth = results.rest.mean / before.results.rest.mean;
    // The target is the lists' (a single read's cost does not depend on the repository's size).
    const verdict = !isList(scenario) ? 'no target' : growth <= 1.3 ? 'met' : 'MISSED';
    console.log(`  ${scenario.name}: ${growth.toFixed(2)} ${verdict}`);
  }
}
if (memory) {
  console.log(
    `\nMemory of npm start's service (${memory.size} resources, medians of ${memory.starts} starts): ` +
      `at rest after GraphiQL and /api/docs ${memory.rest.toFixed(0)} MB (target ≤ 150), ` +
      `under ${memorySeconds} s of mixed load at most ${memory.peak.toFixed(0)} MB (target ≤ 250), after ${memory.after.toFixed(0)} MB`,
  );
}
// Each size's run adds its own, the same.
for (const note of new Set(notes)) console.log(`note: ${note}`);
// Erasure (bench/erasure.ts), on PostgreSQL, where its target is set: a scratch database of its
// own, after the reads (BENCH_ERASURE=0 leaves it out).
if (provider === 'postgresql' && process.env.BENCH_ERASURE !== '0') {
  execFileSync('node_modules/.bin/tsx', ['bench/erasure.ts'], { stdio: 'inherit' });
}
