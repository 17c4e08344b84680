/**
 * The SQLite connections the service keeps open hold the page caches of SQLITE_CACHE_KIB, not
 * better-sqlite3's 16 MB default (src/db/database-url.ts): on the 100k bench database the reads'
 * cache alone held 11-14 MB of resident memory at rest.
 */
import { describe, expect, it } from 'vitest';
import { db, readRows } from '../../src/db/client.ts';
import { SQLITE_CACHE_KIB } from '../../src/db/database-url.ts';
import { provider } from '../setup/test-databases.ts';

describe.runIf(provider === 'sqlite')('SQLite page cache', () => {
  it('is SQLITE_CACHE_KIB.others on the connection Prisma writes with', async () => {
    const [row] = await db.$queryRawUnsafe<{ cache_size: number | bigint }[]>('PRAGMA cache_size');
    expect(Number(row!.cache_size)).toBe(-SQLITE_CACHE_KIB.others);
  });

  it('is SQLITE_CACHE_KIB.reads on the connection reads go through', async () => {
    const [row] = await readRows<{ cache_size: number }>('PRAGMA cache_size', []);
    expect(Number(row!.cache_size)).toBe(-SQLITE_CACHE_KIB.reads);
  });
});
