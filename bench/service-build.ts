/**
 * The service's modules as the bench serves them: by default the build `npm start` runs (dist/,
 * compiled by tsc, rebuilt first when a source is newer, once per run), so that a speed measured is the one a
 * deployment gets; `BENCH_SOURCES=1` serves the sources through tsx instead, whose transform wraps
 * every function made at run time (closures made per request included) in a naming helper.
 * Every module comes from one tree: the database client is one module instance per tree.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const fromSources = process.env.BENCH_SOURCES === '1';
/** The checkout: a bench script may run from another folder (bench:plans finds its database from there). */
const root = fileURLToPath(new URL('..', import.meta.url));
/**
 * Builds dist/ if a source is newer, once for a whole run: the run's later processes (its servers,
 * started size after size) inherit `BENCH_BUILT` and skip the check, so that a source edited while
 * a run goes on does not change what its later servers measure. Named by checkout: a baseline
 * checkout's servers (`bench/cpu-ab.ts`'s CPU_BASELINE) still build their own tree.
 */
export function buildOnce(): void {
  if (fromSources || process.env.BENCH_BUILT === root) return;
  // Its output on stderr: a bench server's stdout carries its JSON line.
  execFileSync(process.execPath, [`${root}scripts/build.mjs`, '--if-stale'], {
    cwd: root,
    stdio: ['ignore', 2, 2],
  });
  process.env.BENCH_BUILT = root;
}

/** A module of the service by its path under src/ without extension (`db/client`). */
export function serviceModule<T>(path: string): Promise<T> {
  buildOnce();
  return import(fromSources ? `../src/${path}.ts` : `../dist/${path}.js`) as Promise<T>;
}
