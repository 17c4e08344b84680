/**
 * The cost of the metrics middleware and plugin: `GET /api/public/:oid` on two in-process instances
 * sharing one fresh SQLite database, one without metrics and one with them, measured with autocannon
 * in alternated rounds (METRICS_ROUNDS, default 3; METRICS_SECONDS, default 5; 10 connections), with
 * the response cache on (HTTP and GraphQL layers only: the worst case for relative overhead) and off
 * (one statement per read). Medians and best rounds are printed: on a shared machine, the best
 * round is the least disturbed.
 *
 *   npx tsx bench/metrics-overhead.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { createApp } from '../src/app.ts';
import { parseConfig } from '../src/config.ts';
import { closeDatabase, openDatabase } from '../src/db/client.ts';
import { applyMigrations } from '../src/db/migrate.ts';
import { createLogger } from '../src/logging/logger.ts';
import { createMetrics } from '../src/observability/metrics.ts';
import { median } from './median.ts';

const TOKEN = 'bench-token-0123456789';
const rounds = Number(process.env.METRICS_ROUNDS ?? 3);
const seconds = Number(process.env.METRICS_SECONDS ?? 5);
const dir = mkdtempSync(join(tmpdir(), 'rrs-metrics-'));
const databaseUrl = `file:${join(dir, 'bench.db')}`;
const logger = createLogger('silent');

// What the middleware and the plugin do per request, alone: two clock pairs and two observations.
{
  const metrics = createMetrics();
  const iterations = 500_000;
  const routes = ['/api/public/:oid', '/api/ressource/:oid', '/graphql', 'unmatched'];
  const started = performance.now();
  for (let i = 0; i < iterations; i += 1) {
    const a = performance.now();
    const b = performance.now();
    metrics.observeRequest('GET', routes[i % 4]!, 200, (performance.now() - a) / 1000);
    metrics.observeOperation('PublicResource', 'rest', (performance.now() - b) / 1000);
  }
  const ns = ((performance.now() - started) * 1e6) / iterations;
  console.log(JSON.stringify({ metricsWorkPerRequestNs: Math.round(ns) }));
}

await applyMigrations(databaseUrl, logger);
await openDatabase(databaseUrl);

async function serve(metrics: boolean, responseCache: boolean) {
  const config = parseConfig({
    baseId: 'bench',
    baseUrl: 'http://127.0.0.1/',
    listeMax: 1000,
    databaseUrl,
    apiTokens: [TOKEN],
    sessionSecret: 'bench-session-secret-0123456789',
    logLevel: 'silent',
    session: { sweepIntervalSeconds: 0 },
    responseCache: { enabled: responseCache },
    ...(metrics ? { metrics: { bearerToken: 'bench-metrics-token-0123' } } : {}),
  });
  const instance = await createApp(config, { logger });
  const server = instance.app.listen(0, '127.0.0.1');
  await new Promise((done) => server.once('listening', done));
  return { instance, server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

for (const responseCache of [true, false]) {
  const off = await serve(false, responseCache);
  const on = await serve(true, responseCache);
  const created = await fetch(`${off.url}/api/ressource`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-apitoken': TOKEN },
    body: JSON.stringify({ titre: 'Mesure', type: 'url', categories: [7], publie: true, restriction: 0 }),
  });
  const { oid } = (await created.json()) as { oid: number };
  const results: Record<'off' | 'on', { rps: number[]; p50: number[]; p99: number[]; cpuUs: number[] }> = {
    off: { rps: [], p50: [], p99: [], cpuUs: [] },
    on: { rps: [], p50: [], p99: [], cpuUs: [] },
  };
  for (let round = 0; round < rounds; round += 1) {
    for (const [name, target] of [
      ['off', off],
      ['on', on],
    ] as const) {
      const cpu = process.cpuUsage();
      const result = await autocannon({
        url: `${target.url}/api/public/${oid}`,
        connections: 10,
        duration: seconds,
      });
      if (result.non2xx > 0 || result.errors > 0)
        throw new Error(`${name}: ${result.non2xx} non-2xx, ${result.errors} errors`);
      const used = process.cpuUsage(cpu);
      // CPU time of this process (service and load generator alike) per request: what the
      // middleware adds, whatever else the machine is doing.
      results[name].cpuUs.push(Math.round((used.user + used.system) / result.requests.total));
      results[name].rps.push(result.requests.average);
      results[name].p50.push(result.latency.p50);
      results[name].p99.push(result.latency.p99);
    }
  }
  const offRps = median(results.off.rps);
  const onRps = median(results.on.rps);
  console.log(
    JSON.stringify({
      responseCache,
      rounds,
      seconds,
      off: results.off,
      on: results.on,
      medianCpuUsPerRequest: { off: median(results.off.cpuUs), on: median(results.on.cpuUs) },
      medianRps: { off: offRps, on: onRps },
      overhead: `${(((offRps - onRps) / offRps) * 100).toFixed(1)} %`,
      // On a shared machine the best round is the least disturbed one.
      bestRps: { off: Math.max(...results.off.rps), on: Math.max(...results.on.rps) },
      bestOverhead: `${(((Math.max(...results.off.rps) - Math.max(...results.on.rps)) / Math.max(...results.off.rps)) * 100).toFixed(1)} %`,
    }),
  );
  for (const target of [off, on]) {
    target.server.closeAllConnections();
    await new Promise((done) => target.server.close(done));
    await target.instance.close();
  }
}
await closeDatabase();
rmSync(dir, { recursive: true, force: true });
