/**
 * `npm run test:soak`: one instance under a steady mixed workload for SOAK_MINUTES (default 10),
 * its resident memory sampled every 5 s. Reports RSS at boot, after the warm-up (SOAK_WARM_MINUTES,
 * default 2) and at the end (means over a minute). Passes (exit 0) when memory levels off: after
 * the warm-up, the mean of the second half exceeds the first half's by less than 5%, with no 5xx
 * and every acknowledged write in the database.
 *
 * Environment: SOAK_DATABASE (sqlite | postgresql, default sqlite), SOAK_RATE (requests/s, default
 * 120), SOAK_CONNECTIONS (default 16), LOG_LEVEL of the instance (default info, as in production),
 * SOAK_COMMAND to run something else than `node dist/server.js` (e.g. `node --max-old-space-size=256
 * dist/server.js`, or `node --import tsx src/server.ts` to measure the sources under tsx).
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

const minutes = Number(process.env.SOAK_MINUTES ?? 10);
const warmMinutes = Number(process.env.SOAK_WARM_MINUTES ?? Math.min(2, minutes / 3));
const provider = (process.env.SOAK_DATABASE ?? 'sqlite') as 'sqlite' | 'postgresql';
const rate = Number(process.env.SOAK_RATE ?? 120);
const connections = Number(process.env.SOAK_CONNECTIONS ?? 16);

const harness = await startHarness();
let failed = false;
try {
  const instance = await startInstance(`soak-${provider}`, await newDatabase(provider), harness.lab, {
    logLevel: process.env.LOG_LEVEL ?? 'info',
    ...(process.env.SOAK_COMMAND ? { command: process.env.SOAK_COMMAND.split(' ') } : {}),
  });
  const samples: { at: number; rss: number }[] = [];
  const started = Date.now();
  const sample = () => samples.push({ at: (Date.now() - started) / 60_000, rss: rssMb(instance.pid) });
  sample();
  const boot = samples[0]!.rss;
  const timer = setInterval(sample, 5000);
  console.log(
    `soak: ${minutes} min on ${provider} at ${rate} requests/s over ${connections} connections, boot RSS ${boot} MB (${MARKER})`,
  );
  const result = await runLoad(instance, minutes * 60, connections, rate);
  clearInterval(timer);
  sample();

  // RSS saws up and down with garbage collection: compare means over windows, not single samples.
  const meanBetween = (from: number, to: number) => mean(samples.filter((s) => s.at >= from && s.at < to));
  const warm = meanBetween(warmMinutes - 0.5, warmMinutes + 0.5);
  const end = meanBetween(minutes - 1, minutes + 1);
  const middle = (warmMinutes + minutes) / 2;
  const [early, late] = [meanBetween(warmMinutes, middle), meanBetween(middle, minutes + 1)];
  const growth = (late - early) / early;
  const missing = await missingWrites(instance);
  const levelled = growth < 0.05;
  failed = !levelled || result.status5xx > 0 || result.errors > 0 || missing.length > 0;
  for (let minute = 0; minute < Math.ceil(minutes); minute++) {
    const window = samples.filter((s) => s.at >= minute && s.at < minute + 1);
    const values = window.map((s) => s.rss);
    console.log(
      `  minute ${minute + 1}: ${mean(window)} MB (${Math.min(...values)} to ${Math.max(...values)})`,
    );
  }
  console.log(
    `RSS boot ${boot} MB, warm (minute ${warmMinutes}) ${warm} MB, end ${end} MB, ` +
      `max ${Math.max(...samples.map((s) => s.rss))} MB; after warm-up the second half is ` +
      `${(growth * 100).toFixed(1)}% above the first (${levelled ? 'levels off' : 'STILL GROWING'})`,
  );
  console.log(
    `${result.requests} requests (${result.rps}/s), ${result.status5xx} 5xx, ${result.errors} errors, p50 ${result.p50} ms, ` +
      `p99 ${result.p99} ms; ${instance.acknowledged.size} writes acknowledged, ${missing.length} missing`,
  );
} catch (error) {
  failed = true;
  console.error(error);
} finally {
  await harness.close();
}
console.log(failed ? 'soak: FAILED' : 'soak: passed');
process.exit(failed ? 1 : 0);

/** Mean RSS of `points`, MB. */
function mean(points: { rss: number }[]): number {
  return points.length === 0 ? 0 : Math.round(points.reduce((sum, p) => sum + p.rss, 0) / points.length);
}
