/**
 * CPU time per request of the service process, targets alternated in one run (noise-resistant on a
 * shared machine): `tsx bench/cpu-ab.ts`. Env: CPU_DATABASE_URL, CPU_SCENARIO (name part), CPU_REQUESTS
 * (per sample), CPU_ROUNDS, CPU_CONNECTIONS, CPU_TARGETS (rest,graphql), CPU_PROFILE (a dir: --cpu-prof).
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import pg from 'pg';
import { scenariosFor } from './scenarios.ts';

const url = process.env.CPU_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/rrs_bench_v4_10000';
const only = process.env.CPU_SCENARIO ?? 'full (token)';
const amount = Number(process.env.CPU_REQUESTS ?? 3000);
const rounds = Number(process.env.CPU_ROUNDS ?? 6);
const connections = Number(process.env.CPU_CONNECTIONS ?? 4);
const targets = (process.env.CPU_TARGETS ?? 'rest,graphql').split(',');

const client = new pg.Client({ connectionString: url });
await client.connect();
const oid = (
  await client.query(
    'SELECT oid FROM "Resource" WHERE publie = true AND restriction = 0 AND oid >= 5000 ORDER BY oid LIMIT 1',
  )
).rows[0].oid;
await client.end();
const scenario = scenariosFor(oid).find((s) => s.name.includes(only))!;

const nodeArgs = ['--import', 'tsx'];
if (process.env.CPU_PROFILE) nodeArgs.push('--cpu-prof', `--cpu-prof-dir=${process.env.CPU_PROFILE}`);
const child = spawn('node', [...nodeArgs, 'bench/serve.ts'], {
  env: { ...process.env, DATABASE_URL: url, BENCH_OID: String(oid), BENCH_RECORDED: '/tmp/perf/empty.json' },
  stdio: ['ignore', 'pipe', 'inherit'],
});
const port: number = await new Promise((resolve) => {
  let out = '';
  child.stdout!.on('data', (c) => {
    out += c;
    const line = out.split('\n').find((l) => l.startsWith('{'));
    if (line) resolve(JSON.parse(line).appPort);
  });
});

/** Nanoseconds the process's threads have run (all threads: GC and libuv too). */
function cpuNs(): number {
  let total = 0;
  for (const task of readdirSync(`/proc/${child.pid}/task`)) {
    try {
      total += Number(readFileSync(`/proc/${child.pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // The thread ended between the listing and the read: its time is gone with it.
    }
  }
  return total;
}

const options: Record<string, autocannon.Options> = {
  rest: { url: `http://127.0.0.1:${port}${scenario.rest}`, headers: scenario.headers },
  graphql: {
    url: `http://127.0.0.1:${port}/graphql`,
    method: 'POST',
    headers: { 'content-type': 'application/json', ...scenario.headers },
    body: JSON.stringify(scenario.graphql),
  },
};
const samples: Record<string, number[]> = {};
for (const t of targets) await autocannon({ ...options[t]!, amount: amount, connections });
for (let r = 0; r < rounds; r++) {
  for (const t of targets) {
    const before = cpuNs();
    const result = await autocannon({ ...options[t]!, amount, connections });
    const ms = (cpuNs() - before) / 1e6 / amount;
    if (result.non2xx || result.errors)
      throw new Error(`${t}: ${result.non2xx} non-2xx ${result.errors} errors`);
    samples[t] = [...(samples[t] ?? []), ms];
    process.stderr.write(`${t} ${ms.toFixed(3)} ms/req (${Math.round(result.requests.average)} req/s)\n`);
  }
}
const median = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)]!;
for (const t of targets) {
  const v = samples[t]!;
  console.log(
    `${scenario.name} ${t}: median ${median(v).toFixed(3)} ms/req, min ${Math.min(...v).toFixed(3)}, max ${Math.max(...v).toFixed(3)}`,
  );
}
if (targets.length === 2) {
  const ratios = samples[targets[0]!]!.map((a, i) => a / samples[targets[1]!]![i]!);
  console.log(
    `cpu ${targets[0]}/${targets[1]} per round: ${ratios.map((x) => x.toFixed(2)).join(' ')} (median ${median(ratios).toFixed(2)})`,
  );
}
child.kill('SIGINT');
await new Promise((r) => child.once('exit', r));
