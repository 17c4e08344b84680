/**
 * The only construction of the Prisma client. `openDatabase` picks the generated client and driver
 * adapter of the provider named by the URL; both clients share one model, so the SQLite client's
 * type stands for both. When opened with `announceStatements`, every executed SQL statement is
 * announced to `onStatement` listeners (tests use them to count statements per request); the
 * service does not ask for it, since Prisma then builds an event, parameters as JSON, per statement.
 */
import { createHash } from 'node:crypto';
import type BetterSqlite3 from 'better-sqlite3';
import { LRUCache } from 'lru-cache';
import pg from 'pg';
import type { Prisma, PrismaClient } from '../generated/sqlite/client.ts';
import { createLogger, type Logger } from '../logging/logger.ts';
import { contentChanges, NON_CONTENT_MODELS } from './content-changes.ts';
import { type Provider, providerOf, SQLITE_CACHE_KIB, sqlitePath } from './database-url.ts';

export type { Group, Person, Resource } from '../generated/sqlite/client.ts';
export type { Prisma };
export type Database = PrismaClient;
/** The client inside `db.$transaction(async (tx) => …)`. */
export type Transaction = Prisma.TransactionClient;

let announcing = false;
/** PostgreSQL: the pool Prisma's adapter uses, shared with `readRows`. */
let pool: pg.Pool | undefined;
/** SQLite: a read-only connection of `readRows`'s own, with its statements kept prepared. */
let reader: SqliteReader | undefined;

type StatementListener = (sql: string, params: string) => void;
const statementListeners = new Set<StatementListener>();

/** Calls `listener` with every SQL statement sent (and its JSON-encoded parameters); returns the unsubscribe function. */
export function onStatement(listener: StatementListener): () => void {
  statementListeners.add(listener);
  return () => statementListeners.delete(listener);
}

// A live binding: modules import `db` and see the client once `openDatabase` has run.
export let db: Database = new Proxy({} as Database, {
  get() {
    throw new Error('The database is not open: call openDatabase() first');
  },
});
export let provider: Provider = 'sqlite';

const queryLogOptions = [{ emit: 'event', level: 'query' }] as const;
/** Prisma's own warnings and errors, as events handed to pino: stdout stays JSON lines. */
const messageLogOptions = [
  { emit: 'event', level: 'warn' },
  { emit: 'event', level: 'error' },
] as const;

/**
 * Marks a statement to be prepared once per PostgreSQL connection and reused: PostgreSQL then
 * plans it once instead of on every execution (a resource document's statement takes far longer
 * to plan than to run: docs/performance.md). For the fixed statements the service writes itself; Prisma's own
 * statements vary too much to keep.
 */
export const PREPARED = '/* prepared */ ';

const statementNames = new Map<string, string>();

/** The statement's name on every connection: derived from its text, so one text, one name. */
export function preparedName(sql: string): string | undefined {
  if (!sql.startsWith(PREPARED)) return undefined;
  let name = statementNames.get(sql);
  if (!name) {
    name = `rrs_${createHash('sha1').update(sql).digest('hex').slice(0, 20)}`;
    statementNames.set(sql, name);
  }
  return name;
}

/**
 * A pg client that names (so prepares and keeps) the statements marked PREPARED, and runs the
 * queries asked of it as promises one after the other. Prisma's query interpreter sends the parts of
 * one operation at once, and inside a transaction they share this one connection: pg queued them
 * itself, a queueing pg 8.16 deprecates and pg 9 removes. (The pool's own calls, with a callback, go
 * to a client it lent to nobody else.)
 */
class PreparingClient extends pg.Client {
  private previous: Promise<unknown> = Promise.resolve();

  // biome-ignore lint/suspicious/noExplicitAny: pg's query has many overloads; this only adds a name.
  override query(config: any, ...rest: any[]): any {
    if (config && typeof config === 'object' && typeof config.text === 'string' && !config.name) {
      const name = preparedName(config.text);
      if (name) config = { ...config, name };
    }
    const send = () => (super.query as (...args: unknown[]) => unknown)(config, ...rest);
    const promised =
      typeof rest.at(-1) !== 'function' &&
      typeof config?.callback !== 'function' &&
      typeof config?.submit !== 'function';
    if (!promised) return send();
    const result = this.previous.then(send, send) as Promise<unknown>;
    this.previous = result.catch(() => undefined);
    return result;
  }
}

/**
 * Reads on a connection of their own, straight through better-sqlite3: Prisma's raw-query path
 * converted every row through its engine, several times the cost of the statement
 * (docs/performance.md). WAL mode lets it read
 * beside the writer; it sees what is committed, as `readRows` promises.
 */
class SqliteReader {
  private readonly connection: BetterSqlite3.Database;
  // Statement texts vary with the filters a list combines: the most used stay prepared.
  private readonly statements = new LRUCache<string, BetterSqlite3.Statement>({ max: 200 });

  constructor(Driver: typeof BetterSqlite3, path: string) {
    this.connection = new Driver(path, { readonly: true, fileMustExist: true });
    this.connection.pragma('busy_timeout = 5000');
    this.connection.pragma(`cache_size = -${SQLITE_CACHE_KIB.reads}`);
  }

  all<T>(sql: string, params: unknown[]): T[] {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.connection.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement.all(...params) as T[];
  }

  close(): void {
    this.statements.clear();
    this.connection.close();
  }
}

export async function openDatabase(
  databaseUrl: string,
  { announceStatements = false, logger }: { announceStatements?: boolean; logger?: Logger } = {},
): Promise<Database> {
  provider = providerOf(databaseUrl);
  const log = [...messageLogOptions, ...(announceStatements ? queryLogOptions : [])];
  announcing = announceStatements;
  pool = undefined;
  reader?.close();
  reader = undefined;
  const client = await createClient(databaseUrl, log);
  const prismaLog = (logger ?? createLogger('info')).child({ component: 'prisma' });
  const events = client as PrismaClient<'warn' | 'error' | 'query'>;
  events.$on('warn', (event) => prismaLog.warn({ target: event.target }, event.message));
  // A failed statement reaches its caller, which decides whether it is an error (a unique violation
  // is often an expected answer) and logs it with its request id: here, only for debugging.
  events.$on('error', (event) => prismaLog.debug({ target: event.target }, event.message));
  if (announceStatements) {
    events.$on('query', (event) => {
      for (const listener of statementListeners) listener(event.query, event.params);
    });
  }
  if (provider === 'sqlite') {
    // WAL (set once by applyMigrations) lets readers run beside a writer; the busy timeout queues
    // writers instead of failing.
    await client.$queryRawUnsafe('PRAGMA busy_timeout = 5000');
    await client.$queryRawUnsafe('PRAGMA foreign_keys = ON');
    await client.$queryRawUnsafe(`PRAGMA cache_size = -${SQLITE_CACHE_KIB.others}`);
    const path = sqlitePath(databaseUrl);
    // An in-memory database is the client's own: no second connection can see it.
    if (path !== ':memory:' && !path.startsWith('file::memory:')) {
      reader = new SqliteReader((await import('better-sqlite3')).default, path);
    }
  }
  db = watchContentWrites(client);
  return db;
}

/**
 * The Prisma client of the database `databaseUrl` names, with its adapter. Each provider's generated
 * client, adapter and driver are loaded only when that provider is used: loading the other's too
 * kept about 7 MB more in every service at rest (docs/performance.md, "Memory").
 */
async function createClient(databaseUrl: string, log: Prisma.LogDefinition[]): Promise<PrismaClient> {
  if (provider === 'sqlite') {
    const [{ PrismaClient: SqliteClient }, { PrismaBetterSQLite3 }] = await Promise.all([
      import('../generated/sqlite/client.ts'),
      import('@prisma/adapter-better-sqlite3'),
    ]);
    return new SqliteClient({ adapter: new PrismaBetterSQLite3({ url: databaseUrl }), log });
  }
  const [{ PrismaClient: PostgresClient }, { PrismaPg }] = await Promise.all([
    import('../generated/postgresql/client.ts'),
    import('@prisma/adapter-pg'),
  ]);
  // readRows's type parsers are the connections' own (pg's `types` option) rather than each
  // query's: pg copies a query's options, property by property, on every query. Prisma's adapter
  // names its own parsers in each of its queries, which take precedence.
  pool = new pg.Pool({ connectionString: databaseUrl, Client: PreparingClient, types: readTypes });
  // An idle connection the server ends (restart, dropped database) is discarded by the pool; the
  // next query opens another, and an outage is reported by the queries that meet it.
  pool.on('error', () => {});
  return new PostgresClient({
    // The pool is ours: Prisma may disconnect and connect its adapter again (closeDatabase ends it).
    adapter: new PrismaPg(pool, { disposeExternalPool: false }),
    log,
  }) as unknown as PrismaClient;
}

const WRITE_OPERATIONS = new Set([
  'create',
  'createMany',
  'createManyAndReturn',
  'update',
  'updateMany',
  'updateManyAndReturn',
  'upsert',
  'delete',
  'deleteMany',
]);

/**
 * A statement that writes nothing but takes SQLite's write lock, waiting its turn under the busy
 * timeout: what `BEGIN IMMEDIATE` does, which the adapter cannot be asked for (it begins DEFERRED).
 */
const TAKE_WRITE_LOCK = 'UPDATE "JobLease" SET "name" = "name" WHERE 0';

/**
 * On SQLite, an interactive transaction's arguments with its work preceded by TAKE_WRITE_LOCK.
 * Begun deferred, a transaction that read and then wrote while another connection to the file (the
 * command-line tool, a second process) held the write lock failed at once with SQLITE_BUSY (in WAL
 * mode a reader may not wait for the lock: its snapshot would be stale), answered as an outage.
 * Holding the lock from its start, it waits for the other write to end, then reads what that
 * committed. Within this process Prisma runs one transaction at a time already, so the lock costs
 * a statement, not concurrency.
 */
function writeLockFirst(args: unknown[]): unknown[] {
  const [work, ...options] = args;
  if (provider !== 'sqlite' || typeof work !== 'function') return args;
  const locked = async (tx: Transaction) => {
    await tx.$executeRawUnsafe(TAKE_WRITE_LOCK);
    return (work as (tx: Transaction) => Promise<unknown>)(tx);
  };
  return [locked, ...options];
}

/**
 * The client, with every content write moving the content generation (src/db/content-changes.ts)
 * before it is sent and once it is committed: after the statement, or after the `$transaction`
 * it belongs to.
 */
function watchContentWrites(client: PrismaClient): PrismaClient {
  const extended = client.$extends({
    query: {
      $allModels: {
        async $allOperations({ model, operation, args, query }) {
          if (!WRITE_OPERATIONS.has(operation) || NON_CONTENT_MODELS.has(model)) return query(args);
          contentChanges.writing();
          try {
            return await query(args);
          } finally {
            // Inside a transaction this is not yet the commit: `$transaction` below moves it again.
            contentChanges.committed();
          }
        },
      },
    },
  }) as unknown as PrismaClient;
  const transaction = extended.$transaction.bind(extended) as (...args: unknown[]) => Promise<unknown>;
  return new Proxy(extended, {
    get(target, property) {
      if (property !== '$transaction') return Reflect.get(target, property);
      return async (...args: unknown[]) => {
        try {
          return await transaction(...writeLockFirst(args));
        } finally {
          contentChanges.committed();
        }
      };
    },
  });
}

// PostgreSQL's `timestamp` (without time zone) holds UTC, as Prisma writes it.
const UTC_TIMESTAMP = 1114;
const readTypes = {
  getTypeParser: ((oid: number, format?: string) =>
    oid === UTC_TIMESTAMP
      ? (value: string) => new Date(`${value.replace(' ', 'T')}Z`)
      : pg.types.getTypeParser(oid, format as 'text')) as pg.CustomTypesConfig['getTypeParser'],
};

/**
 * Rows of one read statement written by the service (see PREPARED). It goes straight to the
 * driver, on the pool Prisma uses (PostgreSQL) or a read-only connection (SQLite): Prisma's
 * raw-query path costs more than the statement itself once the plan is kept (a conversion of
 * every row through its engine). Outside transactions only: it does not see a transaction's
 * uncommitted rows. Values come as the driver gives them (SQLite: booleans as 0 or 1, dates and
 * JSON as text).
 */
export async function readRows<T>(sql: string, params: unknown[]): Promise<T[]> {
  if (!pool && !reader) return db.$queryRawUnsafe<T[]>(sql, ...params);
  if (announcing) for (const listener of statementListeners) listener(sql, JSON.stringify(params));
  if (!pool) return reader!.all<T>(sql, params);
  const result = await pool.query({ text: sql, values: params, name: preparedName(sql) });
  return result.rows as T[];
}

/** Whether the database answers: one trivial statement, which fails when it does not. */
export async function ping(): Promise<void> {
  await db.$queryRawUnsafe('SELECT 1');
}

/** PostgreSQL: the pool's connections (for metrics); undefined on SQLite, which has none. */
export function poolStatistics(): { total: number; idle: number; waiting: number } | undefined {
  return pool && { total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount };
}

export async function closeDatabase(): Promise<void> {
  reader?.close();
  reader = undefined;
  await db.$disconnect();
  await pool?.end();
  pool = undefined;
}

/**
 * Options of a read-only transaction whose statements all see one state of the database: a
 * REPEATABLE READ snapshot on PostgreSQL; on SQLite a transaction reads one state already.
 */
export function snapshotTransactionOptions<T extends object>(
  options: T,
): T & { isolationLevel?: Prisma.TransactionIsolationLevel } {
  // The types are the SQLite client's, which names Serializable only; PostgreSQL's takes this.
  const repeatableRead = 'RepeatableRead' as Prisma.TransactionIsolationLevel;
  return provider === 'postgresql' ? { ...options, isolationLevel: repeatableRead } : options;
}

/** How many write transactions may usefully run at once, `wanted` at most: SQLite has one writer. */
export function writeConcurrency(wanted: number): number {
  return provider === 'sqlite' ? 1 : wanted;
}
