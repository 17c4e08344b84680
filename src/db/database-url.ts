/**
 * Which database a `DATABASE_URL` designates. The scheme alone decides the provider, so the same
 * rule serves the service, the Prisma CLI (prisma.config.ts) and the test set-up.
 */
import { existsSync } from 'node:fs';

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

/** An SQLite database whose file does not exist yet (the first start creates it). */
export function isUncreatedSqliteFile(databaseUrl: string): boolean {
  return providerOf(databaseUrl) === 'sqlite' && !existsSync(sqlitePath(databaseUrl));
}

/**
 * Page caches of the SQLite connections the service opens, in KiB (`PRAGMA cache_size = -N`).
 * better-sqlite3 builds SQLite with 16 MB per connection (SQLite's own default is 2 MB); on the
 * 100k bench database the reading connection held 11-14 MB of resident memory after one request
 * of each scenario. The reads' connection keeps 6 MB: the filtered and ordered list's page
 * statement ran in 2.2 ms with 6 or 16 MB, 2.7 ms with 4 and 3.5 ms with 2 (its pages read again
 * from the operating system on every request); no other recorded statement was faster with more
 * than 2 MB. The writes' connection and the data-version poller keep SQLite's 2 MB.
 */
export const SQLITE_CACHE_KIB = { reads: 6000, others: 2000 } as const;

/** The URL with its password masked, for messages and logs. */
export function redact(databaseUrl: string): string {
  return databaseUrl.replace(/(\/\/[^:/@]+:)[^@]*@/, '$1***@');
}

export const prismaPaths = {
  sqlite: { schema: 'prisma/schema.prisma', migrations: 'prisma/migrations/sqlite' },
  postgresql: { schema: 'prisma/postgresql/schema.prisma', migrations: 'prisma/migrations/postgresql' },
} as const satisfies Record<Provider, { schema: string; migrations: string }>;
