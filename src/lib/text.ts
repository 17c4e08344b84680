/**
 * Text rules shared by every way text enters the service (what can be stored) and by name
 * comparisons, group-name keys and full-text search (normalisation).
 */
import { stemmer } from '@orama/stemmers/french';

/**
 * Why `text` cannot be stored exactly by every database, or undefined. Any well-formed Unicode is
 * stored as it is (noncharacters such as U+FFFE and controls included); two things are not text a
 * database can hold:
 * - NUL: PostgreSQL refuses it in text;
 * - a lone surrogate (ill-formed UTF-16): JSON and GraphQL escapes can write one (`"\ud800"`), but no
 *   UTF-8 byte sequence encodes it, so PostgreSQL could not store it and SQLite would keep a
 *   replacement character instead: refused rather than silently changed.
 */
export function textFlaw(text: string): 'nul' | 'lone-surrogate' | undefined {
  if (text.includes('\u0000')) return 'nul';
  if (!text.isWellFormed()) return 'lone-surrogate';
  return undefined;
}

/**
 * The first text of a parsed JSON value (a string, or an object's key) that cannot be stored, with
 * where it is (`titre`, `parametres.x`, `enfants[2].titre`), or undefined.
 */
export function textFlawIn(
  value: unknown,
  path = '',
): { path: string; flaw: 'nul' | 'lone-surrogate' } | undefined {
  const pending: Array<{ value: unknown; path: string }> = [{ value, path }];
  for (let item = pending.pop(); item; item = pending.pop()) {
    const { value: current, path: where } = item;
    if (typeof current === 'string') {
      const flaw = textFlaw(current);
      if (flaw) return { path: where, flaw };
    } else if (Array.isArray(current)) {
      current.forEach((element, index) => {
        pending.push({ value: element, path: `${where}[${index}]` });
      });
    } else if (current !== null && typeof current === 'object') {
      for (const [key, element] of Object.entries(current)) {
        const at = where ? `${where}.${key}` : key;
        const flaw = textFlaw(key);
        if (flaw) return { path: at, flaw };
        pending.push({ value: element, path: at });
      }
    }
  }
  return undefined;
}

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
