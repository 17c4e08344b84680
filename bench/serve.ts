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
import { benchApp } from './app.ts';
import { scenarios } from './scenarios.ts';

const databaseUrl = process.env.DATABASE_URL!;
const { app } = await benchApp(databaseUrl);
const appServer = app.listen(0, '127.0.0.1');
await new Promise((resolve) => appServer.once('listening', resolve));
const appPort = (appServer.address() as AddressInfo).port;

// The statements of one request per scenario, with their parameters.
const recorded = new Map<string, { sql: string; params: unknown[] }[]>();
for (const { name, rest } of scenarios) {
  const statements: { sql: string; params: unknown[] }[] = [];
  const stop = onStatement((sql, params) => statements.push({ sql, params: JSON.parse(params || '[]') }));
  const response = await fetch(`http://127.0.0.1:${appPort}${rest}`);
  await response.arrayBuffer();
  stop();
  recorded.set(name, statements);
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
    statements: Object.fromEntries([...recorded].map(([name, list]) => [name, list.length])),
  }),
);

// A clean exit on a signal (lets `node --cpu-prof` write its profile).
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(0));
