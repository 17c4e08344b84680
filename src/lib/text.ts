/** Text normalisation shared by name comparisons, group-name keys and full-text search. */
import { stemmer } from '@orama/stemmers/french';

/** Lower case, accents removed, anything outside [a-z0-9] a single space, trimmed. */
export function normaliseForComparison(text: string): string {
  return text
    .normalize('NFD')
    .replace(/\p{Diacritic}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();
}

/** The distinct normalised words of a text that search considers: two characters or more. */
export function textWords(text: string): string[] {
  return [...new Set(normaliseForComparison(text).split(' '))].filter((word) => word.length >= 2);
}

/**
 * The French stem of a normalised word (Snowball's French algorithm), so that plurals and derived
 * forms meet: fractions, fractionner and fractionnement all stem to "fraction". Words are stemmed
 * without their accents, on the text's side and on the query's alike: the algorithm reads accents
 * (probabilités → "probabl" but probabilites → "probabilit"), and a query typed without them must
 * meet the text written with them.
 */
export function frenchStem(word: string): string {
  return stemmer(word) || word;
}

/** Normalised words use these characters only, in this order in every collation we run on. */
const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz';

/**
 * The least string above every normalised word that starts with `prefix`, for an indexed range
 * look-up (`word >= prefix AND word < end`): the last character that has a successor moves to it,
 * the ones after it are dropped ("frac" → "frad", "jazz" → "jb"). Undefined when none has one
 * ("zz": every word from the prefix on). A LIKE 'frac%' would need a C collation (PostgreSQL) or a
 * case-sensitive LIKE (SQLite) to use the index; the range uses it on both.
 */
export function prefixEnd(prefix: string): string | undefined {
  for (let i = prefix.length - 1; i >= 0; i--) {
    const next = ALPHABET[ALPHABET.indexOf(prefix[i]!) + 1];
    if (next) return prefix.slice(0, i) + next;
  }
  return undefined;
}
