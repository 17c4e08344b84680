/**
 * Keeps the full-text index of stored resources in step with the indexing rules. Its rows are
 * computed in JavaScript (normalisation and French stems, src/lib/text.ts; `wordRows`), so a
 * migration cannot write them: the service rebuilds them at start-up, before listening, whenever
 * the version recorded in ServiceSetting is not this code's.
 */

import { insertRows } from '../../db/bulk-insert.ts';
import { db, type Transaction } from '../../db/client.ts';
import { exclusiveTransaction } from '../../db/exclusive-transaction.ts';
import type { Logger } from '../../logging/logger.ts';
import { wordRows } from '../resources/resources.repository.ts';

/**
 * The indexing rules' version: change it with anything that changes the rows `wordRows` writes
 * for the same texts (normalisation, the stemmer or its version, weights, kinds).
 */
export const SEARCH_INDEX_VERSION = '3:words+stems(@orama/stemmers 3.1.18 french),words<=100';
export const SEARCH_INDEX_SETTING = 'searchIndexVersion';

// Arbitrary constant: the key that serialises rebuild batches (src/db/exclusive-transaction.ts).
const REBUILD_LOCK_KEY = 7_351_402_118;

/**
 * A transaction that runs alone among rebuilds: instances starting together on one database
 * would otherwise both delete a batch's rows and then both insert them (every batch writes first).
 */
function exclusive<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
  // A batch of a few thousand rows can take seconds on a busy machine: more than Prisma's 5 s.
  return exclusiveTransaction(REBUILD_LOCK_KEY, work, { timeout: 120_000, maxWait: 30_000 });
}

/**
 * Rewrites the index rows of every resource when the recorded version differs, in batches of
 * `batchSize` resources (one transaction each, its rows deleted before its texts are read, so
 * that a concurrent save cannot slip in between), then records the version. Returns the number
 * of resources reindexed (undefined: up to date). Interrupted, it starts again at the next start:
 * the version is recorded last.
 */
export async function rebuildStaleSearchIndex(
  logger: Pick<Logger, 'info'>,
  batchSize = 500,
): Promise<number | undefined> {
  const recorded = await db.serviceSetting.findUnique({ where: { key: SEARCH_INDEX_SETTING } });
  if (recorded?.value === SEARCH_INDEX_VERSION) return undefined;
  logger.info({ from: recorded?.value ?? null, to: SEARCH_INDEX_VERSION }, 'rebuilding the search index');
  const started = Date.now();
  let after = 0;
  let count = 0;
  for (;;) {
    const page = await db.resource.findMany({
      where: { oid: { gt: after } },
      orderBy: { oid: 'asc' },
      take: batchSize,
      select: { oid: true },
    });
    if (page.length === 0) break;
    const oids = page.map((resource) => resource.oid);
    await exclusive(async (tx) => {
      await tx.resourceWord.deleteMany({ where: { resourceOid: { in: oids } } });
      const texts = await tx.resource.findMany({
        where: { oid: { in: oids } },
        select: { oid: true, titre: true, resume: true, description: true },
      });
      await insertRows(
        tx,
        'ResourceWord',
        texts.flatMap((resource) => wordRows(resource.oid, resource)),
      );
    });
    after = oids.at(-1)!;
    count += oids.length;
  }
  await exclusive((tx) =>
    tx.serviceSetting.upsert({
      where: { key: SEARCH_INDEX_SETTING },
      create: { key: SEARCH_INDEX_SETTING, value: SEARCH_INDEX_VERSION },
      update: { value: SEARCH_INDEX_VERSION },
    }),
  );
  logger.info({ resources: count, durationMs: Date.now() - started }, 'search index rebuilt');
  return count;
}
