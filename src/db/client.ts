/**
 * The only construction of the Prisma client. `openDatabase` picks the generated client and driver
 * adapter of the provider named by the URL; both clients share one model, so the SQLite client's
 * type stands for both. When opened with `announceStatements`, every executed SQL statement is
 * announced to `onStatement` listeners (tests use them to count statements per request); the
 * service does not ask for it, since Prisma then builds an event, parameters as JSON, per statement.
 */
import { PrismaBetterSQLite3 } from '@prisma/adapter-better-sqlite3';
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient as PostgresClient } from '../generated/postgresql/client.ts';
import { type Prisma, PrismaClient } from '../generated/sqlite/client.ts';
import { contentChanges, NON_CONTENT_MODELS } from './content-changes.ts';
import { type Provider, providerOf } from './database-url.ts';

export type { Group, Person, Resource } from '../generated/sqlite/client.ts';
export type { Prisma };
export type Database = PrismaClient;
/** The client inside `db.$transaction(async (tx) => …)`. */
export type Transaction = Prisma.TransactionClient;

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

const logOptions = [{ emit: 'event', level: 'query' }] as const;

export async function openDatabase(
  databaseUrl: string,
  { announceStatements = false }: { announceStatements?: boolean } = {},
): Promise<Database> {
  provider = providerOf(databaseUrl);
  const log = announceStatements ? [...logOptions] : [];
  const client =
    provider === 'sqlite'
      ? new PrismaClient({ adapter: new PrismaBetterSQLite3({ url: databaseUrl }), log })
      : (new PostgresClient({
          adapter: new PrismaPg({ connectionString: databaseUrl }),
          log,
        }) as unknown as PrismaClient);
  if (announceStatements) {
    (client as PrismaClient<'query'>).$on('query', (event) => {
      for (const listener of statementListeners) listener(event.query, event.params);
    });
  }
  if (provider === 'sqlite') {
    // WAL (set once by applyMigrations) lets readers run beside a writer; the busy timeout queues
    // writers instead of failing.
    await client.$queryRawUnsafe('PRAGMA busy_timeout = 5000');
    await client.$queryRawUnsafe('PRAGMA foreign_keys = ON');
  }
  db = watchContentWrites(client);
  return db;
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
          return await transaction(...args);
        } finally {
          contentChanges.committed();
        }
      };
    },
  });
}

export async function closeDatabase(): Promise<void> {
  await db.$disconnect();
}
