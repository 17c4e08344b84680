/**
 * Autocomplete: the controlled-vocabulary values whose label has a word starting with the first
 * word of the pattern, case and accents ignored.
 */
import { InvalidInputError } from '../../errors.ts';
import { normaliseForComparison } from '../../lib/text.ts';
import {
  CATEGORIES,
  DOCUMENTARY_TYPES,
  LANGUAGES,
  LEVELS,
  PEDAGOGIC_TYPES,
  RELATION_TYPES,
  RESOURCE_TYPES,
  RESTRICTIONS,
} from '../resources/vocabulary.ts';

export interface SearchFilter {
  index: string;
  value: string | number;
  label: string;
}

/** Index → vocabulary; numeric ids stay numbers. */
const VOCABULARIES: [index: string, vocabulary: Record<string | number, string>, numeric: boolean][] = [
  ['type', RESOURCE_TYPES, false],
  ['categories', CATEGORIES, true],
  ['niveaux', LEVELS, false],
  ['typePedagogiques', PEDAGOGIC_TYPES, true],
  ['typeDocumentaires', DOCUMENTARY_TYPES, true],
  ['relations', RELATION_TYPES, true],
  ['langue', LANGUAGES, false],
  ['restriction', RESTRICTIONS, true],
];

const INDEXED = VOCABULARIES.flatMap(([index, vocabulary, numeric]) =>
  Object.entries(vocabulary).map(([id, label]) => ({
    filter: { index, value: numeric ? Number(id) : id, label },
    words: normaliseForComparison(`${label} ${id}`).split(' '),
  })),
);

export function autocomplete(pattern: string): SearchFilter[] {
  const first = normaliseForComparison(pattern).split(' ')[0] ?? '';
  if (first.length < 2) throw new InvalidInputError('Il faut au moins deux caractères');
  return INDEXED.filter(({ words }) => words.some((word) => word.startsWith(first))).map(
    ({ filter }) => filter,
  );
}
