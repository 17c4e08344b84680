/**
 * The mixed workload of the load and soak scripts, against real service processes on loopback
 * (`node dist/server.js`, through test/support/server-process.ts, so every process is killed when
 * the script ends): lists, public reads, token reads and writes, a logged-in teacher's page and
 * writes, and GraphQL. Every acknowledged write is remembered, to be counted back in the database.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import autocannon from 'autocannon';
import Database from 'better-sqlite3';
import pg from 'pg';
import { type FakeLab, labUser, startFakeLab } from '../support/fake-lab.ts';
import { reservePort } from '../support/ports.ts';
import { removeScratchDirs, scratchDir } from '../support/scratch.ts';
import { configFile, killServers, type ServerProcess, startServer } from '../support/server-process.ts';

export const TOKEN = 'load-api-token-0123456789';
export const postgresServerUrl = process.env.TEST_POSTGRES_URL ?? 'postgresql://postgres@127.0.0.1:5432/test';
/** Titles of the resources this run writes start with it, to count them back. */
export const MARKER = `load-${process.pid}-${Date.now().toString(36)}`;

export interface Instance {
  name: string;
  databaseUrl: string;
  server: ServerProcess;
  base: string;
  pid: number;
  /** Cookie of a teacher logged in through the fake lab. */
  teacherCookie: string;
  /** A published resource to read. */
  publicOid: number;
  acknowledged: Set<number>;
}

export interface Harness {
  lab: FakeLab;
  close(): Promise<void>;
}

/** Builds dist/ when stale and starts the fake lab; `close()` stops every process and folder. */
export async function startHarness(): Promise<Harness> {
  execFileSync(process.execPath, ['scripts/build.mjs', '--if-stale'], { stdio: 'inherit' });
  const lab = await startFakeLab('labLoad');
  const harness = {
    lab,
    async close() {
      await Promise.all(instances.map((instance) => instance.server.stop(10_000)));
      await killServers();
      await lab.close();
      const admin = new pg.Client({ connectionString: postgresServerUrl });
      await admin.connect();
      for (const name of postgresDatabases) await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
      removeScratchDirs();
    },
  };
  return harness;
}

const instances: Instance[] = [];
const postgresDatabases: string[] = [];

/** A new empty database: a file in a scratch folder, or a database on the shared server. */
export async function newDatabase(provider: 'sqlite' | 'postgresql'): Promise<string> {
  if (provider === 'sqlite') return `file:${join(scratchDir('load'), 'repository.db')}`;
  const name = `rrs_load_${process.pid}_${postgresDatabases.length}`;
  const admin = new pg.Client({ connectionString: postgresServerUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  postgresDatabases.push(name);
  const url = new URL(postgresServerUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

export interface InstanceOptions {
  logLevel?: string;
  /** Another command than `node dist/server.js` (node flags, the sources under tsx), to compare. */
  command?: string[];
}

export async function startInstance(
  name: string,
  databaseUrl: string,
  lab: FakeLab,
  { logLevel = 'warn', command }: InstanceOptions = {},
): Promise<Instance> {
  const port = await reservePort();
  const server = startServer(
    {
      CONFIG_FILE: configFile({
        baseId: 'load',
        baseUrl: 'http://load.test/',
        listeMax: 500,
        apiTokens: [TOKEN],
        sessionSecret: 'load-session-secret-0123456789',
        labs: [lab.config()],
      }),
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      LOG_LEVEL: logLevel,
    },
    // Long runs log a lot: keep only the end of the output in memory.
    { startTimeoutMs: 60_000, outputLimitChars: 1_000_000, ...(command ? { command } : {}) },
  );
  await healthy(`http://127.0.0.1:${port}`, server);
  const base = `http://127.0.0.1:${port}`;
  const login = await fetch(`${base}/api/connexion`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ origine: lab.baseUrl, token: lab.tokenFor(labUser({ type: 1 })) }),
  });
  const teacherCookie = (login.headers.get('set-cookie') ?? '').split(';')[0] as string;
  const published = await fetch(`${base}/api/ressource`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-apitoken': TOKEN },
    body: JSON.stringify({
      titre: `${MARKER} publique`,
      type: 'j3p',
      publie: true,
      resume: 'Lecture publique',
    }),
  });
  const publicOid = ((await published.json()) as { oid: number }).oid;
  const instance: Instance = {
    name,
    databaseUrl,
    server,
    base,
    pid: server.child.pid as number,
    teacherCookie,
    publicOid,
    acknowledged: new Set([publicOid]),
  };
  instances.push(instance);
  return instance;
}

/** Waits for /healthz (with LOG_LEVEL=warn there is no "serving" line). */
async function healthy(base: string, server: ServerProcess): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (server.child.exitCode !== null) throw new Error(`exited before serving:\n${server.output().stderr}`);
    if ((await fetch(`${base}/healthz`).catch(() => null))?.ok) return;
    await new Promise((done) => setTimeout(done, 100));
  }
  throw new Error(`${base} not serving after 60 s`);
}

/** Resident memory of a process, in MB. */
export function rssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+) kB/);
  return Math.round(Number(line?.[1] ?? 0) / 1024);
}

type Context = { oid?: number };

/** One pass of a connection through the mix (autocannon cycles through it). */
function mix(instance: Instance): autocannon.Request[] {
  const json = { 'content-type': 'application/json' };
  const remember = (status: number, body: string, context: Context) => {
    if (status !== 200) return;
    const oid = (JSON.parse(body) as { oid?: number }).oid;
    if (typeof oid === 'number') {
      instance.acknowledged.add(oid);
      context.oid = oid;
    }
  };
  let counter = 0;
  const write = (headers: Record<string, string>) => ({
    method: 'POST' as const,
    path: '/api/ressource',
    headers: { ...json, ...headers },
    setupRequest: (request: autocannon.Request) => ({
      ...request,
      body: JSON.stringify({
        titre: `${MARKER} ${instance.name} ${++counter}`,
        type: 'j3p',
        resume: 'charge mixte',
      }),
    }),
    onResponse: remember as autocannon.Request['onResponse'],
  });
  return [
    { method: 'GET', path: '/api/liste?type=j3p&nb=20' },
    { method: 'GET', path: `/api/public/${instance.publicOid}` },
    write({ 'x-apitoken': TOKEN }),
    {
      method: 'GET',
      path: '/api/ressource/0',
      headers: { 'x-apitoken': TOKEN },
      setupRequest: (request: autocannon.Request, context: Context) => ({
        ...request,
        path: `/api/ressource/${context.oid ?? instance.publicOid}`,
      }),
    } as autocannon.Request,
    { method: 'GET', path: '/api/personne/me', headers: { cookie: instance.teacherCookie } },
    write({ cookie: instance.teacherCookie }),
    {
      method: 'POST',
      path: '/graphql',
      headers: { ...json, 'x-apitoken': TOKEN },
      body: JSON.stringify({ query: `{ publicResource(oid: ${instance.publicOid}) { __typename } }` }),
    },
  ];
}

export interface LoadResult {
  instance: string;
  requests: number;
  non2xx: number;
  status5xx: number;
  errors: number;
  timeouts: number;
  p50: number;
  p99: number;
  rps: number;
}

export async function runLoad(
  instance: Instance,
  seconds: number,
  connections: number,
  overallRate?: number,
): Promise<LoadResult> {
  const result = await autocannon({
    url: instance.base,
    connections,
    duration: seconds,
    ...(overallRate ? { overallRate } : {}),
    requests: mix(instance),
    timeout: 20,
  });
  return {
    instance: instance.name,
    requests: result.requests.total,
    non2xx: result.non2xx,
    status5xx: result['5xx'],
    errors: result.errors,
    timeouts: result.timeouts,
    p50: result.latency.p50,
    p99: result.latency.p99,
    rps: Math.round(result.requests.average),
  };
}

/** Acknowledged writes of `instance` missing from its database (should be none). */
export async function missingWrites(instance: Instance): Promise<number[]> {
  let present: Set<number>;
  if (instance.databaseUrl.startsWith('file:')) {
    const database = new Database(instance.databaseUrl.replace(/^file:/, ''), { readonly: true });
    present = new Set(
      (
        database.prepare('SELECT oid FROM "Resource" WHERE titre LIKE ?').all(`${MARKER}%`) as {
          oid: number;
        }[]
      ).map((row) => row.oid),
    );
    database.close();
  } else {
    const client = new pg.Client({ connectionString: instance.databaseUrl });
    await client.connect();
    present = new Set(
      (await client.query('SELECT oid FROM "Resource" WHERE titre LIKE $1', [`${MARKER}%`])).rows.map(
        (row) => row.oid as number,
      ),
    );
    await client.end();
  }
  return [...instance.acknowledged].filter((oid) => !present.has(oid));
}
