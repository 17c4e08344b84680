/**
 * Full-text search over the ResourceWord index, ranked: one page of the resources matching a
 * list's condition and every query term, best first, in one statement driven by the word index
 * (each term's rows are an equality and a range look-up on [kind, word]). What a term matches and
 * how it scores are the rules of src/modules/lists/fulltext.ts, which builds the terms.
 */
import type { Prisma } from '../db/client.ts';
import { whereSql } from './conditions.ts';
import { read, sql } from './rows.ts';

/** The two kinds of full-text index rows: a normalised word of the texts, or the stem of one. */
export const WORD_KINDS = { word: 0, stem: 1 } as const;

/**
 * Score of a match per unit of weight. Weights are at most 4 + 2 + 1 = 7, below the ratio of two
 * tiers, so any exact match outranks any stem match, which outranks any prefix match.
 */
export const MATCH_SCORES = { exact: 100, stem: 10, prefix: 1 } as const;

export interface SearchTerm {
  /** The normalised query word. */
  word: string;
  stem: string;
  /** Words in [word, prefixEnd) also match; null: no upper bound; undefined: no prefix matching. */
  prefixEnd?: string | null;
}

/**
 * The oids of one page of the resources matching `where` and every term, best first (the sum of
 * each term's best match), ties by oid.
 */
export async function rankedOids(
  terms: SearchTerm[],
  where: Prisma.ResourceWhereInput,
  start: number,
  nb: number,
): Promise<number[]> {
  const q = sql();
  const text = (value: string) => q.value(value, 'text');
  const { exact, stem, prefix } = MATCH_SCORES;
  // Written in the order of the text: SQLite binds its values by position.
  const perTerm = terms.map((term) => {
    const score =
      `max(CASE WHEN w.kind = ${WORD_KINDS.stem} THEN ${stem} WHEN w.word = ${text(term.word)} ` +
      `THEN ${exact} ELSE ${prefix} END * w.weight)`;
    const stemRows = `w.kind = ${WORD_KINDS.stem} AND w.word = ${text(term.stem)}`;
    const words =
      term.prefixEnd === undefined
        ? `w.word = ${text(term.word)}`
        : `w.word >= ${text(term.word)}${term.prefixEnd === null ? '' : ` AND w.word < ${text(term.prefixEnd)}`}`;
    return (
      `SELECT w."resourceOid" AS oid, ${score} AS score FROM "ResourceWord" w ` +
      `WHERE (${stemRows}) OR (w.kind = ${WORD_KINDS.word} AND ${words}) GROUP BY w."resourceOid"`
    );
  });
  const condition = whereSql(q, where);
  // One row per (resource, term) matched: a resource matching every term has one per term.
  const statement = q.statement(
    `SELECT m.oid FROM (${perTerm.join(' UNION ALL ')}) m JOIN "Resource" r ON r.oid = m.oid ` +
      `WHERE ${condition} GROUP BY m.oid HAVING count(*) = ${terms.length} ` +
      `ORDER BY sum(m.score) DESC, m.oid ASC LIMIT ${q.value(nb, 'int')} OFFSET ${q.value(start, 'int')}`,
  );
  const rows = await read<{ oid: number }>(statement);
  return rows.map((row) => Number(row.oid));
}
