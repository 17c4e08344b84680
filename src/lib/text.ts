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
