/**
 * `npm run bench:erasure`: erasure speed (docs/privacy.md "Erasure"). Seeds a scratch PostgreSQL
 * database with ERASE_PERSONS persons (default 1,000) authoring ERASE_RESOURCES resources each
 * (default 100), each resource with the audit entry of its creation naming its author, each person
 * with a session and a group membership; then erases every person, one transaction each, through
 * the service functions the API and the CLI run (`erasePersons`: one scan, then `erasePerson`), while ERASE_READERS clients (default 4) read
 * resources, lists and OAI-PMH pages from the service as `npm start` runs it on the same database.
 * Reports the total and per-person times, and fails (exit 1) when a read got a 5xx or the total
 * exceeds the target (60 s for 1,000 × 100).
 *
 *   npm run build && npm run bench:erasure
 *
 * The scratch database (`rrs_bench_erasure`, on TEST_POSTGRES_URL's server) is made again on every
 * run and dropped at the end: erasure empties it. ERASE_READ_PAUSE_MS (default 10) is each reader's
 * pause between requests; ERASE_PROFILE=1 prints each statement that followed a gap over 12 ms.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { parseConfig } from '../src/config.ts';
import { insertRows } from '../src/db/bulk-insert.ts';
import { closeDatabase, db, onStatement, openDatabase } from '../src/db/client.ts';
import { applyMigrations } from '../src/db/migrate.ts';
import { moveSequencesPastImportedIds } from '../src/db/sequences.ts';
import { createLogger } from '../src/logging/logger.ts';
import { SEARCH_INDEX_SETTING, SEARCH_INDEX_VERSION } from '../src/modules/lists/search-index.ts';
import { erasePersons } from '../src/modules/privacy/erasure.service.ts';
import { postgresServer } from './databases.ts';
import { median } from './median.ts';
import { startService } from './service-process.ts';

const persons = Number(process.env.ERASE_PERSONS ?? 1000);
const perPerson = Number(process.env.ERASE_RESOURCES ?? 100);
/**
 * Clients reading while the erasures run (each as fast as it is answered): they show that requests
 * are served meanwhile, never a 5xx. One by default: on a 2-core machine four take both cores with
 * list and OAI-PMH pages, and the total then measures the machine's saturation more than the erasure
 * (bench/README.md gives both).
 */
const readers = Number(process.env.ERASE_READERS ?? 1);
/** Each reader's pause between requests: steady reads beside the erasures, not a load test. */
const readPauseMs = Number(process.env.ERASE_READ_PAUSE_MS ?? 10);
const TARGET_SECONDS = 60;
const SCRATCH = 'rrs_bench_erasure';

function scratchUrl(): string {
  const url = new URL(postgresServer);
  url.pathname = `/${SCRATCH}`;
  return url.toString();
}

async function onServer(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: postgresServer });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

const pidOf = (i: number) => `bench/erase-${i}`;

/** The rows of person `i` and of their resources (oids numbered from 1, person by person). */
function rowsOf(i: number, now: Date) {
  const personOid = i + 1;
  const oids = Array.from({ length: perPerson }, (_, k) => i * perPerson + k + 1);
  return {
    person: {
      oid: personOid,
      pid: pidOf(i),
      nom: `Nom${i}`,
      prenom: `Prénom${i}`,
      email: `p${i}@bench.test`,
      createdAt: now,
      updatedAt: now,
    },
    resources: oids.map((oid) => ({
      oid,
      origine: 'bench',
      idOrigine: String(oid),
      titre: `Ressource ${oid}`,
      type: 'url',
      publie: true,
      restriction: 0,
      dateCreation: now,
      dateMiseAJour: now,
    })),
    authors: oids.map((resourceOid) => ({ resourceOid, personOid, position: 0 })),
    audit: oids.map((entityId) => ({
      actorKind: 'person',
      actorOid: personOid,
      actorPid: pidOf(i),
      action: 'created',
      entityKind: 'resource',
      entityId,
      changes: { titre: { after: `Ressource ${entityId}` }, authors: { after: [pidOf(i)] } },
      at: now,
    })),
    session: {
      id: `session-${i}`,
      sid: `session-${i}`,
      data: JSON.stringify({ cookie: {}, personOid, labBaseId: 'bench' }),
      expiresAt: new Date(now.getTime() + 86_400_000),
    },
  };
}

async function seed(): Promise<void> {
  const now = new Date();
  const batch = 100;
  await db.group.create({ data: { oid: 1, nom: 'Classe', nomKey: 'classe' } });
  // Every column given: the bulk insert's rows bypass Prisma's defaults (`@updatedAt`, `now()`).
  for (let first = 0; first < persons; first += batch) {
    const rows = Array.from({ length: Math.min(batch, persons - first) }, (_, k) => rowsOf(first + k, now));
    await db.$transaction(
      async (tx) => {
        await insertRows(
          tx,
          'Person',
          rows.map((row) => row.person),
        );
        await insertRows(
          tx,
          'Resource',
          rows.flatMap((row) => row.resources),
        );
        await insertRows(
          tx,
          'ResourceAuthor',
          rows.flatMap((row) => row.authors),
        );
        await insertRows(
          tx,
          'AuditEntry',
          rows.flatMap((row) => row.audit),
          ['changes'],
        );
        await insertRows(
          tx,
          'Session',
          rows.map((row) => row.session),
        );
        await insertRows(
          tx,
          'GroupMember',
          rows.map((row) => ({ groupOid: 1, personOid: row.person.oid, joinedAt: now })),
        );
      },
      { timeout: 120_000 },
    );
  }
  await moveSequencesPastImportedIds();
  await db.serviceSetting.create({ data: { key: SEARCH_INDEX_SETTING, value: SEARCH_INDEX_VERSION } });
}

interface ReadCounts {
  total: number;
  byStatus: Map<number, number>;
}

/** Clients reading until `stop` resolves: a resource, a list page, an OAI-PMH page, in turn. */
function readWhile(base: string, stop: Promise<void>): Promise<ReadCounts> {
  const counts: ReadCounts = { total: 0, byStatus: new Map() };
  let stopped = false;
  void stop.then(() => {
    stopped = true;
  });
  const resources = persons * perPerson;
  const paths = [
    () => `/api/ressource/${1 + Math.floor(Math.random() * resources)}`,
    () => '/api/liste?format=light&nb=50',
    () => '/oai?verb=ListRecords&metadataPrefix=oai_dc',
  ];
  const client = async (n: number) => {
    for (let i = n; !stopped; i++) {
      const response = await fetch(`${base}${paths[i % paths.length]!()}`);
      await response.arrayBuffer();
      counts.total++;
      counts.byStatus.set(response.status, (counts.byStatus.get(response.status) ?? 0) + 1);
      await new Promise((done) => setTimeout(done, readPauseMs));
    }
  };
  return Promise.all(Array.from({ length: readers }, (_, n) => client(n))).then(() => counts);
}

/** Erases every person with `erasePersons` (one scan for all, then a transaction each), timing each. */
async function eraseAll(): Promise<{ scanMs: number; durations: number[] }> {
  const config = parseConfig({ baseId: 'bench', baseUrl: 'http://bench.localhost/', listeMax: 1000 });
  const context = {
    config,
    viewer: { kind: 'token', allRights: true, person: null } as never,
    requestId: 'bench:erasure',
    log: createLogger('silent'),
  };
  const started = performance.now();
  let firstErasure: number | undefined;
  const durations: number[] = [];
  const pids = Array.from({ length: persons }, (_, i) => pidOf(i));
  await erasePersons(context, pids, {}, (_report, milliseconds) => {
    firstErasure ??= performance.now() - milliseconds;
    durations.push(milliseconds);
  });
  // The scan and the key come before the first erasure starts.
  return { scanMs: (firstErasure ?? performance.now()) - started, durations };
}

const url = scratchUrl();
await onServer(`DROP DATABASE IF EXISTS ${SCRATCH} WITH (FORCE)`);
await onServer(`CREATE DATABASE ${SCRATCH}`);
const dir = mkdtempSync(join(tmpdir(), 'rrs-erasure-'));
let failed = false;
try {
  await applyMigrations(url);
  await openDatabase(url, { announceStatements: process.env.ERASE_PROFILE === '1' });
  if (process.env.ERASE_PROFILE === '1') {
    let last = performance.now();
    onStatement((sql) => {
      const now = performance.now();
      if (now - last > 12) console.log(`${(now - last).toFixed(1)} ms before: ${sql.slice(0, 160)}`);
      last = now;
    });
  }
  const seeding = performance.now();
  await seed();
  console.log(
    `seeded ${persons} persons × ${perPerson} resources (${persons * perPerson} resources, as many audit entries) in ${((performance.now() - seeding) / 1000).toFixed(1)} s`,
  );
  const config = join(dir, 'config.json');
  writeFileSync(
    config,
    JSON.stringify({ baseId: 'bench', baseUrl: 'http://bench.localhost/', listeMax: 1000 }),
  );
  const service = await startService('dist/server.js', { DATABASE_URL: url, CONFIG_FILE: config });
  try {
    let done: () => void = () => {};
    const finished = new Promise<void>((resolve) => {
      done = resolve;
    });
    const reads = readWhile(service.base, finished);
    const started = performance.now();
    const { scanMs, durations } = await eraseAll().finally(done);
    const seconds = (performance.now() - started) / 1000;
    const counts = await reads;
    const errors = [...counts.byStatus].filter(([status]) => status >= 500);
    const sorted = [...durations].sort((a, b) => a - b);
    console.log(
      `erased ${persons} persons of ${perPerson} resources each in ${seconds.toFixed(1)} s (target < ${TARGET_SECONDS} s for 1,000 × 100): ` +
        `scan of the audit log and archives ${(scanMs / 1000).toFixed(1)} s, then per person (4 at once) median ${median(durations).toFixed(1)} ms, p95 ${sorted[Math.floor(sorted.length * 0.95)]!.toFixed(1)} ms, max ${sorted.at(-1)!.toFixed(1)} ms`,
    );
    console.log(
      `concurrent reads (${readers} clients): ${counts.total}, statuses ${[...counts.byStatus].map(([s, n]) => `${s}×${n}`).join(', ')}`,
    );
    const left = await db.person.count();
    const authors = await db.resourceAuthor.count();
    const resources = await db.resource.count();
    console.log(`left: ${left} persons, ${authors} authorships, ${resources} resources`);
    if (errors.length > 0 || left > 0 || authors > 0) failed = true;
    if (persons >= 1000 && perPerson >= 100 && seconds >= TARGET_SECONDS) failed = true;
  } finally {
    await service.stop();
  }
} finally {
  await closeDatabase();
  await onServer(`DROP DATABASE IF EXISTS ${SCRATCH} WITH (FORCE)`);
  rmSync(dir, { recursive: true, force: true });
}
if (failed) {
  console.error('bench:erasure MISSED');
  process.exitCode = 1;
}
