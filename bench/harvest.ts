/**
 * A whole harvest, as an aggregator runs it: OAI-PMH ListRecords over every record of the seeded
 * bench database with the default page size, following resumption tokens to the end, beside the
 * REST list walked over the same records in pages of the same size (`/api/liste?format=full`,
 * anonymous). Reports records per second, the service's CPU time per record and its peak RSS
 * during each walk (sampled every 50 ms), on the service as `npm start` runs it.
 *
 *   npm run build && npm run bench:harvest                  SQLite, 10k and 100k
 *   BENCH_DATABASE=postgresql npm run bench:harvest          PostgreSQL
 *
 * BENCH_SIZES (default 10000,100000), HARVEST_FORMAT (default oai_dc; lom), HARVEST_PAGE (the REST
 * page size, default 100: the provider's default page size), HARVEST_REST=0 (no REST walk: it pages
 * by offset, so at 1M its deep pages take far longer than the harvest being measured).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BenchProvider, benchDatabase } from './databases.ts';
import { cpuMs, type ServiceProcess, startService, status } from './service-process.ts';

const provider = (process.env.BENCH_DATABASE ?? 'sqlite') as BenchProvider;
const sizes = (process.env.BENCH_SIZES ?? '10000,100000').split(',').map(Number);
const format = process.env.HARVEST_FORMAT ?? 'oai_dc';
const restPage = Number(process.env.HARVEST_PAGE ?? 100);
const withRest = process.env.HARVEST_REST !== '0';

interface Walk {
  records: number;
  pages: number;
  seconds: number;
  peakMb: number;
  cpuMsPerRecord: number;
  megabytes: number;
}

/** Walks pages until `next` says there is none, measuring the service meanwhile. */
async function measureWalk(
  service: ServiceProcess,
  next: (previous: string | undefined) => Promise<{ body: string; records: number; more: boolean }>,
): Promise<Walk> {
  let peakMb = status(service.pid).VmRSS!;
  const sampler = setInterval(() => {
    peakMb = Math.max(peakMb, status(service.pid).VmRSS!);
  }, 50);
  const cpuBefore = cpuMs(service.pid);
  const started = performance.now();
  let records = 0;
  let pages = 0;
  let bytes = 0;
  let body: string | undefined;
  try {
    for (;;) {
      const page = await Promise.race([next(body), service.exited]);
      body = page.body;
      records += page.records;
      pages++;
      bytes += Buffer.byteLength(page.body);
      if (!page.more) break;
    }
  } finally {
    clearInterval(sampler);
  }
  const seconds = (performance.now() - started) / 1000;
  peakMb = Math.max(peakMb, status(service.pid).VmRSS!);
  return {
    records,
    pages,
    seconds,
    peakMb,
    cpuMsPerRecord: (cpuMs(service.pid) - cpuBefore) / Math.max(records, 1),
    megabytes: bytes / 1e6,
  };
}

async function text(url: string): Promise<string> {
  const response = await fetch(url, { headers: { 'accept-encoding': 'identity' } });
  const body = await response.text();
  if (response.status !== 200) throw new Error(`${url}: ${response.status} ${body.slice(0, 200)}`);
  return body;
}

/** ListRecords to the end; checks that no record comes twice and that the list is complete. */
function harvest(base: string) {
  const seen = new Set<string>();
  let completeListSize: number | undefined;
  const walk = async (previous: string | undefined) => {
    let url = `${base}/oai?verb=ListRecords&metadataPrefix=${format}`;
    if (previous !== undefined) {
      const token = /<resumptionToken[^>]*>([^<]+)<\/resumptionToken>/.exec(previous)![1]!;
      url = `${base}/oai?verb=ListRecords&resumptionToken=${encodeURIComponent(token)}`;
    }
    const body = await text(url);
    if (body.includes('<error')) throw new Error(`${url}: ${/<error[^>]*>[^<]*/.exec(body)![0]}`);
    const identifiers = [...body.matchAll(/<header[^>]*>\s*<identifier>([^<]+)<\/identifier>/g)].map(
      (m) => m[1]!,
    );
    for (const identifier of identifiers) {
      if (seen.has(identifier)) throw new Error(`${identifier} harvested twice`);
      seen.add(identifier);
    }
    const size = /completeListSize="(\d+)"/.exec(body);
    if (size) completeListSize = Number(size[1]);
    return {
      body,
      records: identifiers.length,
      more: /<resumptionToken[^>]*>[^<]+<\/resumptionToken>/.test(body),
    };
  };
  return { walk, check: () => ({ seen: seen.size, completeListSize }) };
}

/** The REST list over the same records, in pages of the same size, as an anonymous caller. */
function restList(base: string) {
  let start = 0;
  return async () => {
    const body = await text(`${base}/api/liste?format=full&nb=${restPage}&start=${start}`);
    const { liste } = JSON.parse(body) as { liste: unknown[] };
    start += liste.length;
    return { body, records: liste.length, more: liste.length === restPage };
  };
}

const line = (name: string, walk: Walk) =>
  `  ${name.padEnd(28)}${String(walk.records).padStart(8)} records ${String(walk.pages).padStart(5)} pages` +
  `${(walk.records / walk.seconds).toFixed(0).padStart(8)} records/s ${walk.seconds.toFixed(1).padStart(6)} s` +
  `${walk.cpuMsPerRecord.toFixed(3).padStart(8)} ms CPU/record  peak RSS ${walk.peakMb.toFixed(0)} MB` +
  `  ${walk.megabytes.toFixed(1)} MB sent`;

for (const size of sizes) {
  const databaseUrl = await benchDatabase(provider, size);
  const dir = mkdtempSync(join(tmpdir(), 'rrs-harvest-'));
  const config = join(dir, 'config.json');
  writeFileSync(
    config,
    JSON.stringify({ baseId: 'bench', baseUrl: 'http://bench.localhost/', listeMax: 1000 }),
  );
  const service = await startService('dist/server.js', { DATABASE_URL: databaseUrl, CONFIG_FILE: config });
  try {
    // One of each first: the first request pays for caches a harvester's second page finds warm.
    await text(`${service.base}/oai?verb=Identify`);
    await text(`${service.base}/api/liste?format=full&nb=1`);
    const atRest = status(service.pid).VmRSS!;
    const oai = harvest(service.base);
    const harvested = await measureWalk(service, oai.walk);
    const { seen, completeListSize } = oai.check();
    if (completeListSize !== undefined && completeListSize !== seen)
      throw new Error(`harvested ${seen} records, completeListSize said ${completeListSize}`);
    console.log(`${provider}, ${size} resources (RSS before: ${atRest.toFixed(0)} MB)`);
    console.log(line(`OAI-PMH ListRecords ${format}`, harvested));
    if (withRest)
      console.log(
        line(`REST /api/liste full, ${restPage}`, await measureWalk(service, restList(service.base))),
      );
  } finally {
    await service.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
