/**
 * Benchmark server (child process): the service on one port, and on another the floor baseline:
 * a bare HTTP handler replaying, with the bare driver, exactly the SQL statements the service
 * issued for each scenario. Prints its ports as one JSON line.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Database from 'better-sqlite3';
import pg from 'pg';
import { onStatement, provider } from '../src/db/client.ts';
import { sqlitePath } from '../src/db/database-url.ts';
import { applyMigrations } from '../src/db/migrate.ts';
import { benchApp } from './app.ts';
import { scenariosFor } from './scenarios.ts';

const databaseUrl = process.env.DATABASE_URL!;
const scenarios = scenariosFor(Number(process.env.BENCH_OID));
// A database seeded by an earlier version gets the migrations that came since.
await applyMigrations(databaseUrl);
const { app } = await benchApp(databaseUrl);
const appServer = app.listen(0, '127.0.0.1');
await new Promise((resolve) => appServer.once('listening', resolve));
const appPort = (appServer.address() as AddressInfo).port;

// The statements of one request per scenario, with their parameters.
const recorded = new Map<string, { sql: string; params: unknown[] }[]>();
/** Statements of the first request of each scenario, and of a second one (which caches may answer). */
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
  recorded.set(name, first);
  counts[name] = { first: first.length, again: again.length };
}

type Run = (sql: string, params: unknown[]) => Promise<unknown[]>;
let run: Run;
if (provider === 'sqlite') {
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
  run = async (sql, params) => (await pool.query(sql, params)).rows;
}

const floor = createServer(async (req, res) => {
  const name = decodeURIComponent((req.url ?? '/').slice(1));
  const statements = recorded.get(name) ?? [];
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

console.log(
  JSON.stringify({
    appPort,
    floorPort: (floor.address() as AddressInfo).port,
    statements: counts,
  }),
);

// A clean exit on a signal (lets `node --cpu-prof` write its profile).
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(0));
