/**
 * Totals of lists, kept while nothing changes: a count walks every matching row (its cost grows
 * with the repository), while the totals of the same filters change only when content does. An
 * entry holds the content generation (src/db/content-changes.ts) current when its count began, and
 * serves only while that generation is still current, exactly like the response cache.
 */
import { LRUCache } from 'lru-cache';
import type { Prisma } from '../db/client.ts';
import { contentChanges } from '../db/content-changes.ts';
import { whereSql } from './conditions.ts';
import { count as countOf, read, sql } from './rows.ts';

const totals = new LRUCache<string, { generation: number; total: number }>({ max: 5000 });
/**
 * Counts under way, by generation and key: requests that ask meanwhile wait for the same count. On a
 * million resources one count of a broad filter takes about a second, and requests arriving
 * together on a cold filter each started their own (eight at once sent eight counts), queued behind
 * one another on the database's cores.
 */
const underWay = new Map<string, Promise<number>>();

async function kept(key: string, count: () => Promise<number>): Promise<number> {
  const generation = contentChanges.generation;
  const entry = totals.get(key);
  if (entry && entry.generation === generation && contentChanges.live) return entry.total;
  // While changes made elsewhere might not be heard, each request counts for itself.
  if (!contentChanges.live) return count();
  const flight = `${generation}:${key}`;
  let counting = underWay.get(flight);
  if (!counting) {
    counting = count().finally(() => underWay.delete(flight));
    underWay.set(flight, counting);
    counting.then(
      (total) => {
        // A change during the count leaves it unkept: it may have seen the rows before or after it.
        if (contentChanges.generation === generation) totals.set(key, { generation, total });
      },
      () => {},
    );
  }
  return counting;
}

/** How many resources match `where` (the filters, rights included: the key is the whole filter). */
export function countResources(where: Prisma.ResourceWhereInput): Promise<number> {
  return kept(`resource:${JSON.stringify(where)}`, () => count(where));
}

/** The count, planned each time: the best plan depends on how many rows the values match. */
async function count(where: Prisma.ResourceWhereInput): Promise<number> {
  const q = sql();
  const condition = whereSql(q, where);
  const statement = q.statement(`SELECT count(*) AS total FROM "Resource" r WHERE ${condition}`, {
    planEachTime: true,
  });
  const [row] = await read<{ total: unknown }>(statement);
  return countOf(row!.total);
}
