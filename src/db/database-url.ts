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
 * better-sqlite3 builds SQLite with a larger cache per connection than SQLite's own default, and
 * the reading connection filled much of it. The reads' connection keeps enough for the filtered
 * and ordered list's pages to stay in it (with less they were read again from the operating system
 * on every request); no other recorded statement gained from more than SQLite's default, which the
 * writes' connection and the data-version poller keep. Measurements: docs/performance.md, Memory.
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
