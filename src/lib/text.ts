/** Text normalisation shared by name comparisons and group-name keys. */

/** Lower case, accents removed, anything outside [a-z0-9] a single space, trimmed. */
export function normaliseForComparison(text: string): string {
  return text
    .normalize('NFD')
    .replace(/\p{Diacritic}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();
}

/**
 * The distinct searchable words of a text: normalised, at least two characters, French plurals
 * folded (a final s or x dropped from words of four letters or more), so that "fraction" finds
 * "fractions" while the look-up stays an exact, indexed match.
 */
export function searchWords(text: string): string[] {
  const words = normaliseForComparison(text)
    .split(' ')
    .filter((word) => word.length >= 2)
    .map((word) => (word.length >= 4 && /[sx]$/.test(word) ? word.slice(0, -1) : word));
  return [...new Set(words)];
}
