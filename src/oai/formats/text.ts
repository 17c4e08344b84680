/** Small text helpers both formats share. */
import type { HarvestPerson } from '../harvest-source.ts';
import { carriable, escapeText } from '../xml.ts';

/**
 * A value as element content, or null when it is blank: nothing but XML's own white space (space,
 * tab, line ends) once the characters XML cannot carry are left out. Such a value produces no
 * element rather than an empty one; any other is carried whole, its white space included, so that
 * a harvester reads back what was stored (a no-break space is a character someone typed, not
 * blankness).
 */
export function content(value: string): string | null {
  const kept = carriable(value);
  return /^[ \t\n\r]*$/.test(kept) ? null : escapeText(kept);
}

/** "Prénom Nom", as people are named in prose; null when both parts are blank. */
export function displayName(person: HarvestPerson): string | null {
  const name = [person.prenom.trim(), person.nom.trim()].filter((part) => part !== '').join(' ');
  return name === '' ? null : name;
}

/** Years 1–9999 as a Date's ISO text writes them: four digits, not 0000 (a sign and six outside). */
const FOUR_DIGIT_YEAR = /^(?!0000)\d{4}-/;

/**
 * A date (ISO text in UTC, as the DateTime scalar serializes it) as LOM and W3CDTF want it, or null
 * outside years 1–9999 (four digits, no year zero), which neither can write.
 */
export function isoDateTime(text: string): string | null {
  return FOUR_DIGIT_YEAR.test(text) ? text : null;
}

/** Each value once, in first-seen order. */
export function unique<T>(values: Iterable<T>): T[] {
  return [...new Set(values)];
}

/** The labels of the ids a vocabulary knows, in the resource's order; unknown ids have none. */
export function labels<K extends string | number>(
  ids: readonly K[],
  vocabulary: Record<K, string>,
): string[] {
  return unique(ids.flatMap((id) => (Object.hasOwn(vocabulary, id) ? [vocabulary[id]] : [])));
}
