/**
 * Benchmark server (child process): the service on one port, and on another the floor baseline:
 * a bare HTTP handler replaying, with the bare driver, exactly the SQL statements the service
 * issued for each scenario. Prints its ports as one JSON line. With BENCH_RECORD=1 it instead
 * records those statements (one request per scenario, then a second to count what caches save),
 * prints them as one JSON line and exits; the measured server reads them from the file BENCH_RECORDED.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Database from 'better-sqlite3';
import pg from 'pg';
import { benchApp } from './app.ts';
import { scenariosFor } from './scenarios.ts';
import { serviceModule } from './service-build.ts';

// The namespace, not its members: `provider` is a live binding, set when benchApp opens the database.
const client = await serviceModule<typeof import('../src/db/client.ts')>('db/client');
const { onStatement, preparedName } = client;
const { sqlitePath } = await serviceModule<typeof import('../src/db/database-url.ts')>('db/database-url');
const { applyMigrations } = await serviceModule<typeof import('../src/db/migrate.ts')>('db/migrate');

const databaseUrl = process.env.DATABASE_URL!;
const recording = process.env.BENCH_RECORD === '1';
const scenarios = scenariosFor(Number(process.env.BENCH_OID));
// A database seeded by an earlier version gets the migrations that came since.
if (recording) await applyMigrations(databaseUrl);
const { app } = await benchApp(databaseUrl, { announceStatements: recording });
const appServer = app.listen(0, '127.0.0.1');
await new Promise((resolve) => appServer.once('listening', resolve));
const appPort = (appServer.address() as AddressInfo).port;

type Recorded = Record<string, { sql: string; params: unknown[] }[]>;

if (recording) {
  // The statements of one request per scenario, with their parameters, and how many a second
  // request takes (which caches may answer). Printed as one JSON line; the measured server runs
  // without announcing statements, which costs Prisma an event per statement.
  const recorded: Recorded = {};
  const counts: Record<string, { first: number; again: number }> = {};
  for (const { name, rest, headers } of scenarios) {
    const record = async () => {
      const statements: { sql: string; params: unknown[] }[] = [];
      const stop = onStatement((sql, params) => statements.push({ sql, params: JSON.parse(params || '[]') }));
      const response = await fetch(`http://127.0.0.1:${appPort}${rest}`, { headers });
      await response.arrayBuffer();
      stop();
      if (response.status !== 200) throw new Error(`${rest}: ${response.status}`);
      return statements;
    };
    const first = await record();
    const again = await record();
    // The floor replays the work of an uncached request.
    recorded[name] = first;
    counts[name] = { first: first.length, again: again.length };
  }
  console.log(JSON.stringify({ recorded, statements: counts }));
  process.exit(0);
}

const recorded: Recorded = JSON.parse(readFileSync(process.env.BENCH_RECORDED!, 'utf8'));

type Run = (sql: string, params: unknown[]) => Promise<unknown[]>;
let run: Run;
if (client.provider === 'sqlite') {
  const raw = new Database(sqlitePath(databaseUrl), { readonly: true });
  const prepared = new Map<string, Database.Statement>();
  run = async (sql, params) => {
    const statement = prepared.get(sql) ?? raw.prepare(sql);
    prepared.set(sql, statement);
    // As Prisma's adapter does: SQLite has no booleans.
    return statement.all(...(params.map((p) => (typeof p === 'boolean' ? Number(p) : p)) as never[]));
  };
} else {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 8 });
  // Named as the service names them, so the floor prepares the same statements it does.
  run = async (sql, params) =>
    (await pool.query({ text: sql, values: params, name: preparedName(sql) })).rows;
}

const floor = createServer(async (req, res) => {
  const name = decodeURIComponent((req.url ?? '/').slice(1));
  const statements = recorded[name] ?? [];
  try {
    const results: unknown[] = [];
    for (const { sql, params } of statements) results.push(await run(sql, params));
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(results));
  } catch (error) {
    res.writeHead(500).end(String(error));
  }
});
floor.listen(0, '127.0.0.1');
await new Promise((resolve) => floor.once('listening', resolve));

console.log(JSON.stringify({ appPort, floorPort: (floor.address() as AddressInfo).port }));

// A clean exit on a signal (lets `node --cpu-prof` write its profile).
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(0));
