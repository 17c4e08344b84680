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

/** The URL with its password masked, for messages and logs. */
export function redact(databaseUrl: string): string {
  return databaseUrl.replace(/(\/\/[^:/@]+:)[^@]*@/, '$1***@');
}

export const prismaPaths = {
  sqlite: { schema: 'prisma/schema.prisma', migrations: 'prisma/migrations/sqlite' },
  postgresql: { schema: 'prisma/postgresql/schema.prisma', migrations: 'prisma/migrations/postgresql' },
} as const satisfies Record<Provider, { schema: string; migrations: string }>;
