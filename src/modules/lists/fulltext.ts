/**
 * Full-text search over the ResourceWord index (rows written by resources.repository.ts
 * `wordRows`): what each word of a query matches, and how matching resources rank.
 *
 * A query word matches a resource when the resource has
 *   - the same normalised word (exact),
 *   - a word of the same French stem (stem: fraction, fractions, fractionnement), or
 *   - for query words of PREFIX_MIN_LENGTH characters or more, a word starting with it (prefix:
 *     "frac" while typing finds fractions), as an indexed range of words.
 * Every word of the query must match. Each match scores its tier times its weight (where the
 * word appears: titre 4, resume 2, description 1, summed), a query word counts its best match,
 * and a resource scores the sum over the query's words; ties go to the smaller oid.
 */
import { db, PREPARED, type Prisma, provider, readRows } from '../../db/client.ts';
import { frenchStem, prefixEnd, textWords } from '../../lib/text.ts';
import { WORD_KINDS } from '../resources/resources.repository.ts';
import { parameterSink, whereSql } from './where-sql.ts';

/**
 * At most this many distinct words in a query: each is a sub-query of the ranking statement, and
 * SQLite refuses more than 500 in one compound SELECT. A search needs far fewer.
 */
export const MAX_SEARCH_TERMS = 32;

/** Shorter query words match whole words (or their stem) only: "le" would match half the index. */
export const PREFIX_MIN_LENGTH = 3;

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

/** The distinct terms of a query text. */
export function searchTerms(text: string): SearchTerm[] {
  return textWords(text).map((word) => ({
    word,
    stem: frenchStem(word),
    ...(word.length >= PREFIX_MIN_LENGTH ? { prefixEnd: prefixEnd(word) ?? null } : {}),
  }));
}

/** The words a term matches: itself, or the range of words it starts. */
function wordFilter(term: SearchTerm): string | Prisma.StringFilter {
  if (term.prefixEnd === undefined) return term.word;
  return term.prefixEnd === null ? { gte: term.word } : { gte: term.word, lt: term.prefixEnd };
}

/** The index rows a term matches (an exact match is also a stem match: the word's stem row). */
function termRows(term: SearchTerm): Prisma.ResourceWordWhereInput {
  return {
    OR: [
      { kind: WORD_KINDS.stem, word: term.stem },
      { kind: WORD_KINDS.word, word: wordFilter(term) },
    ],
  };
}

/** The condition a resource meets when it matches `term` (where-sql.ts translates it). */
export function termCondition(term: SearchTerm): Prisma.ResourceWhereInput {
  return { words: { some: termRows(term) } };
}

/** The score of one index row matched by `term` (see MATCH_SCORES). */
export function rowScore(term: SearchTerm, row: { kind: number; word: string; weight: number }): number {
  if (row.kind === WORD_KINDS.stem) return MATCH_SCORES.stem * row.weight;
  return (row.word === term.word ? MATCH_SCORES.exact : MATCH_SCORES.prefix) * row.weight;
}

/**
 * The oids of one page of the resources matching `where` and every term, best first: one
 * statement, driven by the word index (each term's rows are an equality and a range look-up on
 * [kind, word]). Undefined when `where` does not translate to SQL (see `rankedOidsByPrisma`).
 */
export async function rankedOids(
  terms: SearchTerm[],
  where: Prisma.ResourceWhereInput,
  start: number,
  nb: number,
): Promise<number[] | undefined> {
  const { sink, values } = parameterSink(provider);
  const text = (value: string) => (provider === 'postgresql' ? `${sink.add(value)}::text` : sink.add(value));
  const { exact, stem, prefix } = MATCH_SCORES;
  // Values are added in the order their placeholders appear: SQLite's are positional.
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
  const condition = whereSql(sink, where);
  if (condition === undefined) return undefined;
  // One row per (resource, term) matched: a resource matching every term has one per term.
  const sql =
    `SELECT m.oid FROM (${perTerm.join(' UNION ALL ')}) m JOIN "Resource" r ON r.oid = m.oid ` +
    `WHERE ${condition} GROUP BY m.oid HAVING count(*) = ${terms.length} ` +
    `ORDER BY sum(m.score) DESC, m.oid ASC LIMIT ${sink.add(nb)} OFFSET ${sink.add(start)}`;
  const rows = await readRows<{ oid: number }>(provider === 'postgresql' ? PREPARED + sql : sql, values);
  return rows.map((row) => Number(row.oid));
}

/**
 * The same page through Prisma, scored here: for a condition SQL written here cannot express.
 * It reads every matching row, so it serves only as that fall-back (and as the reference the
 * tests compare the statement with).
 */
export async function rankedOidsByPrisma(
  terms: SearchTerm[],
  where: Prisma.ResourceWhereInput,
  start: number,
  nb: number,
): Promise<number[]> {
  const rows = await db.resourceWord.findMany({
    where: {
      OR: terms.map(termRows),
      resource: { AND: [where, ...terms.map(termCondition)] },
    },
    select: { resourceOid: true, kind: true, word: true, weight: true },
  });
  const best = new Map<number, number[]>();
  for (const row of rows) {
    const scores = best.get(row.resourceOid) ?? terms.map(() => 0);
    for (const [i, term] of terms.entries()) {
      if (matches(term, row)) scores[i] = Math.max(scores[i]!, rowScore(term, row));
    }
    best.set(row.resourceOid, scores);
  }
  return [...best]
    .map(([oid, scores]) => ({ oid, score: scores.reduce((sum, score) => sum + score, 0) }))
    .sort((a, b) => b.score - a.score || a.oid - b.oid)
    .slice(start, start + nb)
    .map(({ oid }) => oid);
}

/** Whether an index row is one `term` matches, as `termRows` selects them. */
function matches(term: SearchTerm, row: { kind: number; word: string }): boolean {
  if (row.kind === WORD_KINDS.stem) return row.word === term.stem;
  if (term.prefixEnd === undefined) return row.word === term.word;
  // Normalised words are [a-z0-9]: code-unit order is every collation's order for them.
  return row.word >= term.word && (term.prefixEnd === null || row.word < term.prefixEnd);
}
