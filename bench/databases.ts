/**
 * The benchmark's seeded databases, cached between runs: `data/bench/v<version>-<size>.db` on
 * SQLite, `rrs_bench_v<version>_<size>` on PostgreSQL (the databases the anchors of
 * bench/anchors.ts are pointed at). A database is seeded under a temporary name and renamed
 * once complete, so an interrupted seeding never leaves a half-filled database behind.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import Database from 'better-sqlite3';
import pg from 'pg';

/** Bump when the seeded data changes. */
export const SEED_VERSION = 4;

export type BenchProvider = 'sqlite' | 'postgresql';

export const postgresServer = process.env.TEST_POSTGRES_URL ?? 'postgresql://postgres@127.0.0.1:5432/test';

function postgresUrl(name: string): string {
  const url = new URL(postgresServer);
  url.pathname = `/${name}`;
  return url.toString();
}

function seed(url: string, size: number) {
  const persons = Math.max(50, Math.round(size / 20));
  const groups = Math.max(10, Math.round(size / 200));
  console.log(`seeding ${size} resources (${persons} persons, ${groups} groups)…`);
  execFileSync('node_modules/.bin/tsx', ['bench/seed.ts', String(size), String(persons), String(groups)], {
    env: { ...process.env, DATABASE_URL: url },
    stdio: 'inherit',
  });
}

async function withServer<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: postgresServer });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** The SQLite file of the seeded database of `size` resources, relative to the working directory. */
export const sqliteBenchFile = (size: number) => `data/bench/v${SEED_VERSION}-${size}.db`;

/** The PostgreSQL database of the seeded database of `size` resources. */
const postgresBenchName = (size: number) => `rrs_bench_v${SEED_VERSION}_${size}`;

/**
 * The URL of the first of `sizes` already seeded, without seeding anything (the scripts that only
 * read a seeded database, such as `npm run bench:plans`); undefined when none is.
 */
export async function seededBenchDatabase(
  provider: BenchProvider,
  sizes: readonly number[],
): Promise<string | undefined> {
  if (provider === 'sqlite') {
    const file = sizes.map(sqliteBenchFile).find((candidate) => existsSync(candidate));
    return file && `file:./${file}`;
  }
  const names = sizes.map(postgresBenchName);
  const existing = await withServer(async (client) =>
    (await client.query('SELECT datname FROM pg_database WHERE datname = ANY($1)', [names])).rows.map(
      (row: { datname: string }) => row.datname,
    ),
  );
  const name = names.find((candidate) => existing.includes(candidate));
  return name && postgresUrl(name);
}

/** The URL of the seeded database of `size` resources, seeding it first if needed. */
export async function benchDatabase(provider: BenchProvider, size: number): Promise<string> {
  if (provider === 'sqlite') {
    mkdirSync('data/bench', { recursive: true });
    const file = sqliteBenchFile(size);
    if (!existsSync(file)) {
      const partial = `${file}.seeding`;
      for (const suffix of ['', '-wal', '-shm']) rmSync(`${partial}${suffix}`, { force: true });
      seed(`file:./${partial}`, size);
      // The seed's last transactions may still be in the write-ahead log, which a rename leaves
      // behind under the old name (the bench then measured a search index rebuild at the first
      // start): fold it into the file first.
      const seeded = new Database(partial);
      seeded.pragma('wal_checkpoint(TRUNCATE)');
      seeded.close();
      for (const suffix of ['-wal', '-shm']) rmSync(`${partial}${suffix}`, { force: true });
      renameSync(partial, file);
    }
    return `file:./${file}`;
  }
  const name = postgresBenchName(size);
  const exists = await withServer(
    async (client) => (await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount,
  );
  if (!exists) {
    const partial = `${name}_seeding`;
    await withServer(async (client) => {
      await client.query(`DROP DATABASE IF EXISTS ${partial} WITH (FORCE)`);
      await client.query(`CREATE DATABASE ${partial}`);
    });
    seed(postgresUrl(partial), size);
    await withServer((client) => client.query(`ALTER DATABASE ${partial} RENAME TO ${name}`));
  }
  return postgresUrl(name);
}

/** `npm run seed:bench`: prepares the databases a run will use. */
if (import.meta.url === `file://${process.argv[1]}`) {
  const provider = (process.env.BENCH_DATABASE ?? 'sqlite') as BenchProvider;
  for (const size of (process.env.BENCH_SIZES ?? '10000,100000').split(',').map(Number)) {
    console.log(await benchDatabase(provider, size));
  }
}

/**
 * The bench's chosen resource of a database (`file:` SQLite or PostgreSQL): public, published, with
 * an oid from 5000 (PostGraphile's documents use 5004).
 */
export async function publicOid(url: string): Promise<number> {
  const sql =
    'SELECT oid FROM "Resource" WHERE publie = true AND restriction = 0 AND oid >= 5000 ORDER BY oid LIMIT 1';
  if (url.startsWith('file:')) {
    const database = new Database(url.slice('file:'.length), { readonly: true });
    try {
      return (database.prepare(sql.replace('= true', '= 1')).get() as { oid: number }).oid;
    } finally {
      database.close();
    }
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows[0].oid;
  } finally {
    await client.end();
  }
}
