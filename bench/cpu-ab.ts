/**
 * CPU time per request of the service process, targets alternated in one run (noise-resistant on a
 * shared machine): `tsx bench/cpu-ab.ts`. Env: CPU_DATABASE_URL, CPU_SCENARIO (name part), CPU_REQUESTS
 * (per sample), CPU_ROUNDS, CPU_CONNECTIONS, CPU_TARGETS (rest,graphql), CPU_PROFILE (a dir: --cpu-prof),
 * CPU_BASELINE (another checkout of the service, node_modules and src/generated in place: its
 * targets, named `rest@base` and `graphql@base`, alternate with this one's), CPU_POSTGRAPHILE=1 (the
 * PostGraphile anchor of bench/anchors.ts, its process measured alike: target `postgraphile`),
 * CPU_EXPRESS_LIMIT=1 (the Express limit anchor on the token full read: target `express-limit`).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { type Anchor, startAnchors } from './anchors.ts';
import { publicOid } from './databases.ts';
import { median } from './median.ts';
import { scenariosFor } from './scenarios.ts';
import { buildOnce } from './service-build.ts';
import { npmStartRuntime } from './service-process.ts';

// Once, before any server: every server of the run measures the same build.
buildOnce();

const url = process.env.CPU_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/rrs_bench_v4_10000';
const only = process.env.CPU_SCENARIO ?? 'full (token)';
const amount = Number(process.env.CPU_REQUESTS ?? 3000);
const rounds = Number(process.env.CPU_ROUNDS ?? 6);
const connections = Number(process.env.CPU_CONNECTIONS ?? 4);

const oid = await publicOid(url);
const scenario = scenariosFor(oid).find((s) => s.name.includes(only))!;

// As npm start runs the service: its node options and environment (bench/service-process.ts).
const runtime = npmStartRuntime();
const nodeArgs = [...runtime.nodeOptions, '--import', 'tsx'];
if (process.env.CPU_PROFILE)
  nodeArgs.push(
    '--cpu-prof',
    `--cpu-prof-dir=${process.env.CPU_PROFILE}`,
    '--cpu-prof-interval',
    process.env.CPU_PROFILE_INTERVAL ?? '1000',
  );

interface Server {
  child: ChildProcess;
  port: number;
}

async function start(cwd: string): Promise<Server> {
  // On this Node.js, as the anchor (bench/anchors.ts): PATH's `node` may be another runtime.
  const child = spawn(process.execPath, [...nodeArgs, 'bench/serve.ts'], {
    cwd,
    env: {
      ...process.env,
      ...runtime.env,
      DATABASE_URL: url,
      BENCH_OID: String(oid),
      BENCH_RECORDED: recordedFile,
    },
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
  return { child, port };
}

// The floor server of bench/serve.ts replays nothing here.
const recordedFile = join(mkdtempSync(join(tmpdir(), 'rrs-cpu-')), 'recorded.json');
writeFileSync(recordedFile, '{}');
const servers: Record<string, Server> = { '': await start(process.cwd()) };
if (process.env.CPU_BASELINE) servers['@base'] = await start(process.env.CPU_BASELINE);

/** Nanoseconds the process's threads have run (all threads: GC and libuv too). */
function cpuNs(pid: number): number {
  let total = 0;
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    try {
      total += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // The thread ended between the listing and the read: its time is gone with it.
    }
  }
  return total;
}

const options: Record<string, autocannon.Options & { pid: number }> = {};
for (const [suffix, { child, port }] of Object.entries(servers)) {
  const pid = child.pid!;
  options[`rest${suffix}`] = {
    pid,
    url: `http://127.0.0.1:${port}${scenario.rest}`,
    headers: scenario.headers,
  };
  options[`graphql${suffix}`] = {
    pid,
    url: `http://127.0.0.1:${port}/graphql`,
    method: 'POST',
    headers: { 'content-type': 'application/json', ...scenario.headers },
    body: JSON.stringify(scenario.graphql),
  };
}
const targets = (process.env.CPU_TARGETS ?? 'rest,graphql')
  .split(',')
  .flatMap((target) => Object.keys(servers).map((suffix) => `${target}${suffix}`));
const anchors = await startAnchors(url, {
  postgraphile: process.env.CPU_POSTGRAPHILE ? 5679 : undefined,
  expressLimit: process.env.CPU_EXPRESS_LIMIT && scenario.expressLimit ? 5803 : undefined,
});
for (const line of anchors.missing) process.stderr.write(`not installed, ${line}\n`);
const anchor: Anchor | undefined = anchors.postgraphile;
const document = anchor && scenario.postgraphile ? anchor.documents?.[scenario.postgraphile] : undefined;
if (anchor && document) {
  options.postgraphile = {
    pid: anchor.child.pid!,
    url: `http://127.0.0.1:${anchor.port}/graphql`,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      query: document.query,
      variables: document.variables ? { ...document.variables, oid } : undefined,
    }),
  };
  targets.push('postgraphile');
}
const expressLimit = anchors.expressLimit;
if (expressLimit && scenario.expressLimit) {
  options['express-limit'] = {
    pid: expressLimit.child.pid!,
    url: `http://127.0.0.1:${expressLimit.port}${scenario.expressLimit}`,
  };
  targets.push('express-limit');
}
/** The anchors' targets: each service target is compared with every one measured. */
const ANCHOR_TARGETS = ['postgraphile', 'express-limit'];
const samples: Record<string, number[]> = {};
for (const t of targets) {
  const { pid: _pid, ...target } = options[t]!;
  await autocannon({ ...target, amount, connections });
}
for (let r = 0; r < rounds; r++) {
  for (const t of targets) {
    const { pid, ...target } = options[t]!;
    const before = cpuNs(pid);
    const result = await autocannon({ ...target, amount, connections });
    const ms = (cpuNs(pid) - before) / 1e6 / amount;
    if (result.non2xx || result.errors)
      throw new Error(`${t}: ${result.non2xx} non-2xx ${result.errors} errors`);
    samples[t] = [...(samples[t] ?? []), ms];
    process.stderr.write(`${t} ${ms.toFixed(3)} ms/req (${Math.round(result.requests.average)} req/s)\n`);
  }
}
for (const t of targets) {
  const v = samples[t]!;
  console.log(
    `${scenario.name} ${t}: median ${median(v).toFixed(3)} ms/req, min ${Math.min(...v).toFixed(3)}, max ${Math.max(...v).toFixed(3)}`,
  );
}
/** CPU of REST over that of GraphQL, per round: GraphQL's speed as a share of REST's. */
for (const suffix of Object.keys(servers)) {
  const rest = samples[`rest${suffix}`];
  const graphql = samples[`graphql${suffix}`];
  if (!rest || !graphql) continue;
  const ratios = rest.map((a, i) => a / graphql[i]!);
  console.log(
    `cpu rest${suffix}/graphql${suffix} per round: ${ratios.map((x) => x.toFixed(2)).join(' ')} (median ${median(ratios).toFixed(2)})`,
  );
}
/** An anchor's CPU over each target's, per round: the target's speed as a share of the anchor's. */
for (const name of ANCHOR_TARGETS.filter((t) => options[t])) {
  const anchorSamples = samples[name]!;
  for (const t of targets.filter((target) => !ANCHOR_TARGETS.includes(target))) {
    const ratios = anchorSamples.map((a, i) => a / samples[t]![i]!);
    console.log(
      `cpu ${name}/${t} per round: ${ratios.map((x) => x.toFixed(2)).join(' ')} (median ${median(ratios).toFixed(2)})`,
    );
  }
}
const started = [anchors.postgraphile, anchors.expressLimit].filter((a): a is Anchor => a !== undefined);
for (const { child } of [...Object.values(servers), ...started]) {
  child.kill('SIGINT');
  await new Promise((r) => child.once('exit', r));
}
