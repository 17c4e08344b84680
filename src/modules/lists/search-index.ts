/**
 * Keeps the full-text index of stored resources in step with the indexing rules. Its rows are
 * computed in JavaScript (normalisation and French stems, src/lib/text.ts; `wordRows`), so a
 * migration cannot write them: the service rebuilds them at start-up, before listening, whenever
 * the version recorded in ServiceSetting is not this code's.
 */
import { db } from '../../db/client.ts';
import type { Logger } from '../../logger.ts';
import { wordRows } from '../resources/resources.repository.ts';

/**
 * The indexing rules' version: change it with anything that changes the rows `wordRows` writes
 * for the same texts (normalisation, the stemmer or its version, weights, kinds).
 */
export const SEARCH_INDEX_VERSION = '2:words+stems(@orama/stemmers 3.1.18 french)';
export const SEARCH_INDEX_SETTING = 'searchIndexVersion';

/**
 * Rewrites the index rows of every resource when the recorded version differs, in batches of
 * `batchSize` resources (one transaction each: a resource's rows are read and written together),
 * then records the version. Returns the number of resources reindexed (undefined: up to date).
 * Interrupted, it starts again at the next start: the version is recorded last.
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
    const done = await db.$transaction(
      async (tx) => {
        const batch = await tx.resource.findMany({
          where: { oid: { gt: after } },
          orderBy: { oid: 'asc' },
          take: batchSize,
          select: { oid: true, titre: true, resume: true, description: true },
        });
        if (batch.length === 0) return true;
        await tx.resourceWord.deleteMany({ where: { resourceOid: { in: batch.map((r) => r.oid) } } });
        await tx.resourceWord.createMany({
          data: batch.flatMap((resource) => wordRows(resource.oid, resource)),
        });
        after = batch.at(-1)!.oid;
        count += batch.length;
        return false;
      },
      // A batch of a few thousand rows can take seconds on a busy machine: more than Prisma's 5 s.
      { timeout: 120_000, maxWait: 30_000 },
    );
    if (done) break;
  }
  await db.serviceSetting.upsert({
    where: { key: SEARCH_INDEX_SETTING },
    create: { key: SEARCH_INDEX_SETTING, value: SEARCH_INDEX_VERSION },
    update: { value: SEARCH_INDEX_VERSION },
  });
  logger.info({ resources: count, durationMs: Date.now() - started }, 'search index rebuilt');
  return count;
}
