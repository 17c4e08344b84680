/**
 * Full-text search over the ResourceWord index (rows written by resources.repository.ts
 * `wordRows`): what each word of a query matches, and how matching resources rank (the ranked
 * page itself is one statement of src/read-model/ranked-search.ts).
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
import type { Prisma } from '../../db/client.ts';
import { frenchStem, prefixEnd, textWords } from '../../lib/text.ts';
import { type SearchTerm, WORD_KINDS } from '../../read-model/ranked-search.ts';

/**
 * At most this many distinct words in a query: each is a sub-query of the ranking statement, and
 * SQLite refuses more than 500 in one compound SELECT. A search needs far fewer.
 */
export const MAX_SEARCH_TERMS = 32;

/** Shorter query words match whole words (or their stem) only: "le" would match half the index. */
export const PREFIX_MIN_LENGTH = 3;

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
export function termRows(term: SearchTerm): Prisma.ResourceWordWhereInput {
  return {
    OR: [
      { kind: WORD_KINDS.stem, word: term.stem },
      { kind: WORD_KINDS.word, word: wordFilter(term) },
    ],
  };
}

/** The condition a resource meets when it matches `term` (src/read-model/conditions.ts writes it). */
export function termCondition(term: SearchTerm): Prisma.ResourceWhereInput {
  return { words: { some: termRows(term) } };
}
