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

import { median } from './median.ts';
import { type Column, measureMemory, PHASES, type Sample } from './memory.ts';

const runs = Number(process.env.MEMORY_RUNS ?? 5);
const idleSeconds = Number(process.env.MEMORY_IDLE_SECONDS ?? 10);
const loadSeconds = Number(process.env.MEMORY_LOAD_SECONDS ?? 0);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);
const entries = process.argv.slice(2).length > 0 ? process.argv.slice(2) : ['dist/server.js'];

const mb = (value: number) => (value < 10 ? value.toFixed(2) : value.toFixed(0)).padStart(5);

const samples = new Map<string, Sample[]>(entries.map((entry) => [entry, []]));
for (let run = 0; run < runs; run++) {
  for (const entry of entries) {
    const sample = await measureMemory(entry, {
      databaseUrl: process.env.MEMORY_DATABASE_URL,
      idleSeconds,
      loadSeconds,
      connections,
    });
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
