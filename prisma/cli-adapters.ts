/**
 * Driver adapters for the Prisma CLI only (migrate deploy / diff / status). They work around bugs
 * of the 6.19 CLI with driver adapters, found on this stack (see shared stack notes); the running
 * service uses the plain adapters.
 */
import { PrismaBetterSQLite3 } from '@prisma/adapter-better-sqlite3';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';

// OIDs of the PostgreSQL catalogue types `name` and `"char"`, which adapter-pg 6.19 cannot
// deserialise (Prisma issue 27403) although migrate reads them from the catalogue.
const NAME_OID = 19;
const CHAR_OID = 18;
const TEXT_OID = 25;

type QueryResultLike = { fields?: { dataTypeID: number }[] };

function reportCatalogueTypesAsText(result: unknown): void {
  for (const field of (result as QueryResultLike | undefined)?.fields ?? []) {
    if (field.dataTypeID === NAME_OID || field.dataTypeID === CHAR_OID) field.dataTypeID = TEXT_OID;
  }
}

class CatalogueSafeClient extends pg.Client {
  // biome-ignore lint/suspicious/noExplicitAny: pg's query() has many overloads; we only post-process results.
  override query(...args: any[]): any {
    const last = args.at(-1);
    if (typeof last === 'function') {
      args[args.length - 1] = (err: unknown, res: unknown) => {
        if (!err) reportCatalogueTypesAsText(res);
        last(err, res);
      };
      // biome-ignore lint/suspicious/noExplicitAny: see above
      return (super.query as any)(...args);
    }
    // biome-ignore lint/suspicious/noExplicitAny: see above
    const pending = (super.query as any)(...args);
    if (pending && typeof pending.then === 'function') {
      return pending.then((res: unknown) => {
        reportCatalogueTypesAsText(res);
        return res;
      });
    }
    return pending;
  }
}

type PgAdapter = Awaited<ReturnType<PrismaPg['connect']>>;

class PostgresCliAdapter extends PrismaPg {
  constructor(private readonly poolConfig: pg.PoolConfig) {
    super(poolConfig);
  }

  /** adapter-pg 6.19 drops the shadow database while its pool is still open; close it first. */
  override async connectToShadowDb(): Promise<PgAdapter> {
    const admin = await this.connect();
    const database = `prisma_migrate_shadow_db_${globalThis.crypto.randomUUID()}`;
    await admin.executeScript(`CREATE DATABASE "${database}"`);
    const shadow = await new PrismaPg({ ...this.poolConfig, database }).connect();
    const dispose = shadow.dispose.bind(shadow);
    shadow.dispose = async () => {
      await dispose();
      await admin.executeScript(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
      await admin.dispose();
    };
    return shadow;
  }
}

/** PostgreSQL adapter for the CLI: catalogue-safe client, pool that lets the process exit. */
export function postgresCliAdapter(databaseUrl: string): PrismaPg {
  const url = new URL(databaseUrl);
  // Fields rather than a connection string: adapter-pg keeps them when it derives the shadow
  // database's config, where it would ignore the database name of a connection string.
  const config: pg.PoolConfig = {
    host: decodeURIComponent(url.hostname),
    port: url.port ? Number(url.port) : 5432,
    user: decodeURIComponent(url.username) || undefined,
    password: decodeURIComponent(url.password) || undefined,
    database: decodeURIComponent(url.pathname.slice(1)) || undefined,
    Client: CatalogueSafeClient,
    allowExitOnIdle: true,
  };
  return new PostgresCliAdapter(config);
}

type SqliteAdapter = Awaited<ReturnType<PrismaBetterSQLite3['connect']>>;
type SqlQuery = Parameters<SqliteAdapter['executeRaw']>[0];

/**
 * The shadow database replays each migration file as one `executeRaw` call, which better-sqlite3
 * refuses for multi-statement SQL (P3006). Run such a script with `executeScript` instead.
 */
function acceptMultiStatementScripts(adapter: SqliteAdapter): SqliteAdapter {
  const executeRaw = adapter.executeRaw.bind(adapter);
  adapter.executeRaw = async (query: SqlQuery) => {
    try {
      return await executeRaw(query);
    } catch (error) {
      if (
        query.args.length > 0 ||
        !String((error as Error)?.message ?? error).includes('more than one statement')
      ) {
        throw error;
      }
      await adapter.executeScript(query.sql);
      return 0;
    }
  };
  return adapter;
}

class SqliteCliAdapter extends PrismaBetterSQLite3 {
  override async connectToShadowDb(): Promise<SqliteAdapter> {
    return acceptMultiStatementScripts(await super.connectToShadowDb());
  }
}

/** SQLite adapter for the CLI. */
export function sqliteCliAdapter(databaseUrl: string): PrismaBetterSQLite3 {
  // Wait for another process's transaction rather than fail at once.
  return new SqliteCliAdapter({ url: databaseUrl, timeout: 15_000 });
}
