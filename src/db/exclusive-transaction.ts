/**
 * A transaction that runs alone among those of the same key, across every instance sharing the
 * database: on PostgreSQL it takes a transaction-scoped advisory lock first; on SQLite every
 * transaction holds the file's write lock from its first statement already (src/db/client.ts).
 */
import { db, provider, type Transaction } from './client.ts';

export function exclusiveTransaction<T>(
  key: number,
  work: (tx: Transaction) => Promise<T>,
  options: { timeout: number; maxWait: number },
): Promise<T> {
  return db.$transaction(async (tx) => {
    if (provider === 'postgresql')
      await tx.$queryRawUnsafe('SELECT 1 AS locked FROM pg_advisory_xact_lock($1::bigint)', key);
    return work(tx);
  }, options);
}
