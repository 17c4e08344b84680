/**
 * `npm run test:load`: a mixed workload against two instances sharing one PostgreSQL database and
 * one instance on SQLite, at once, on loopback. Passes (exit 0) with no 5xx, no socket error and
 * every acknowledged write found in the database afterwards; prints requests, errors, p50/p99 and
 * memory per instance.
 *
 * Environment: LOAD_SECONDS (default 20), LOAD_CONNECTIONS per instance (default 8).
 */
import {
  MARKER,
  missingWrites,
  newDatabase,
  rssMb,
  runLoad,
  startHarness,
  startInstance,
} from './workload.ts';

const seconds = Number(process.env.LOAD_SECONDS ?? 20);
const connections = Number(process.env.LOAD_CONNECTIONS ?? 8);

const harness = await startHarness();
let failed = false;
try {
  const shared = await newDatabase('postgresql');
  // The two PostgreSQL instances start together on a fresh database: one migrates.
  const instances = await Promise.all([
    startInstance('postgresql-a', shared, harness.lab),
    startInstance('postgresql-b', shared, harness.lab),
    startInstance('sqlite', await newDatabase('sqlite'), harness.lab),
  ]);
  const boot = instances.map((instance) => rssMb(instance.pid));
  console.log(`load: ${seconds} s, ${connections} connections per instance, writes titled ${MARKER}`);
  const results = await Promise.all(instances.map((instance) => runLoad(instance, seconds, connections)));
  for (const [i, result] of results.entries()) {
    const instance = instances[i]!;
    const missing = await missingWrites(instance);
    const bad = result.status5xx > 0 || result.errors > 0 || missing.length > 0;
    failed ||= bad;
    console.log(
      `${result.instance.padEnd(13)} ${String(result.requests).padStart(6)} requests (${result.rps}/s), ` +
        `${result.status5xx} 5xx, ${result.non2xx} non-2xx, ${result.errors} errors (${result.timeouts} time-outs), ` +
        `p50 ${result.p50} ms, p99 ${result.p99} ms; ${instance.acknowledged.size} writes acknowledged, ` +
        `${missing.length} missing; RSS ${boot[i]} → ${rssMb(instance.pid)} MB${bad ? '  ← FAILED' : ''}`,
    );
  }
} catch (error) {
  failed = true;
  console.error(error);
} finally {
  await harness.close();
}
console.log(failed ? 'load: FAILED' : 'load: passed');
process.exit(failed ? 1 : 0);
