/**
 * Which database a `DATABASE_URL` designates. The scheme alone decides the provider, so the same
 * rule serves the service, the Prisma CLI (prisma.config.ts) and the test set-up.
 */
export type Provider = 'sqlite' | 'postgresql';

export const DEFAULT_DATABASE_URL = 'file:./data/repository.db';

export function providerOf(databaseUrl: string): Provider {
  if (databaseUrl.startsWith('file:')) return 'sqlite';
  if (/^postgres(ql)?:\/\//.test(databaseUrl)) return 'postgresql';
  throw new Error(
    `DATABASE_URL must start with "file:" (SQLite) or "postgresql://" (PostgreSQL); got "${redact(databaseUrl)}"`,
  );
}

/** Path of an SQLite database file, relative to the working directory as the driver resolves it. */
export function sqlitePath(databaseUrl: string): string {
  return databaseUrl.replace(/^file:/, '').replace(/\?.*$/, '');
}

/**
 * The page cache of every SQLite connection the service opens, in KiB (`PRAGMA cache_size = -N`).
 * better-sqlite3 builds SQLite with 16 MB per connection where SQLite's own default is 2 MB; the
 * operating system caches the file anyway. On the 100k bench database the reader's 16 MB cache
 * held 11-14 MB of resident memory after one request of each scenario, and every recorded
 * statement ran as fast or faster with 2 MB (list of 500: 6.1-7.1 ms against 7.8-8.1).
 */
export const SQLITE_CACHE_KIB = 2000;

/** The URL with its password masked, for messages and logs. */
export function redact(databaseUrl: string): string {
  return databaseUrl.replace(/(\/\/[^:/@]+:)[^@]*@/, '$1***@');
}

export const prismaPaths = {
  sqlite: { schema: 'prisma/schema.prisma', migrations: 'prisma/migrations/sqlite' },
  postgresql: { schema: 'prisma/postgresql/schema.prisma', migrations: 'prisma/migrations/postgresql' },
} as const satisfies Record<Provider, { schema: string; migrations: string }>;
