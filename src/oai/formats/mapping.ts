/**
 * How the repository's vocabularies (src/modules/resources/vocabulary.ts) translate into the terms
 * harvesters know: language tags, LOM v1.0 vocabulary values, ScoLOMFR concepts, DCMI types. The
 * table with its sources, and the reasons for each choice, is docs/oai-lom-mapping.md; a change here
 * goes there too.
 *
 * ScoLOMFR identifiers are the concept URIs of ScoLOMFR v3.1 (the SKOS-XL files of the official
 * v3.1 archive, 21 December 2016), each checked there; a term with no verified concept is simply not
 * mapped.
 */

import { RESTRICTIONS, Restriction } from '../../modules/resources/vocabulary.ts';

/**
 * A table looked up by stored values, which may be any text ("constructor", "__proto__"): without a
 * prototype, a key it does not hold reads undefined, never one of Object's members (the formats'
 * property test found oai_dc failing on a resource whose language was "constructor").
 */
const lookupTable = <K extends PropertyKey, V>(entries: Record<K, V>): Record<K, V> =>
  Object.assign(Object.create(null), entries);

/** ISO 639-3 as stored → the ISO 639-1 code of the same language (RFC 5646 prefers it). */
const ISO_639_1: Record<string, string> = lookupTable({
  ara: 'ar',
  bre: 'br',
  cat: 'ca',
  deu: 'de',
  eng: 'en',
  eus: 'eu',
  fra: 'fr',
  ita: 'it',
  por: 'pt',
  spa: 'es',
});

/**
 * The language tag harvesters expect (RFC 5646: the two-letter code when ISO 639-1 has one, else the
 * three-letter code, itself a valid tag), or null when the stored value is no language code at all
 * (then no language is claimed rather than an invalid one).
 */
export function languageTag(stored: string): string | null {
  const code = stored.trim().toLowerCase();
  const short = ISO_639_1[code];
  if (short) return short;
  return /^[a-z]{2,3}$/.test(code) ? code : null;
}

export const LOM_SOURCE = 'LOMv1.0';
export const SCOLOMFR_CONCEPT = 'http://data.education.fr/voc/scolomfr/concept/';
/** ScoLOMFR vocabulary 022 ("niveau éducatif détaillé") and 010 ("type pédagogique"). */
export const SCOLOMFR_LEVELS = 'http://data.education.fr/voc/scolomfr/scolomfr-voc-022';
export const SCOLOMFR_PEDAGOGIC_TYPES = 'http://data.education.fr/voc/scolomfr/scolomfr-voc-010';

export interface ScolomfrConcept {
  /** The concept URI. */
  id: string;
  /** Its preferred label in ScoLOMFR v3.1. */
  label: string;
}

const concept = (num: string, label: string): ScolomfrConcept => ({
  id: `${SCOLOMFR_CONCEPT}scolomfr-voc-022-num-${num}`,
  label,
});
const ELEMENTARY = concept('008', 'école élémentaire');
const MIDDLE_SCHOOL = concept('016', 'collège');
const HIGH_SCHOOL = concept('142', 'lycée général et technologique');

export interface LevelMapping {
  /** ScoLOMFR taxon path, broadest first (the detailed level's `skos:broader` chain). */
  scolomfr: ScolomfrConcept[];
  /** LOM 5.6 context (LOMv1.0 vocabulary). */
  context: 'school';
  /** Typical ages of pupils in that class in France, first and last year. */
  ages: [number, number];
}

/**
 * Levels. 2nde, 1ere and tle are the general and technological track's classes: the repository's
 * levels name no track, and the vocational classes have concepts of their own.
 */
export const LEVEL_MAPPING: Record<string, LevelMapping> = lookupTable({
  cp: { scolomfr: [ELEMENTARY, concept('010', 'CP')], context: 'school', ages: [6, 7] },
  ce1: { scolomfr: [ELEMENTARY, concept('011', 'CE1')], context: 'school', ages: [7, 8] },
  ce2: { scolomfr: [ELEMENTARY, concept('013', 'CE2')], context: 'school', ages: [8, 9] },
  cm1: { scolomfr: [ELEMENTARY, concept('014', 'CM1')], context: 'school', ages: [9, 10] },
  cm2: { scolomfr: [ELEMENTARY, concept('015', 'CM2')], context: 'school', ages: [10, 11] },
  '6e': { scolomfr: [MIDDLE_SCHOOL, concept('018', '6e')], context: 'school', ages: [11, 12] },
  '5e': { scolomfr: [MIDDLE_SCHOOL, concept('020', '5e')], context: 'school', ages: [12, 13] },
  '4e': { scolomfr: [MIDDLE_SCHOOL, concept('021', '4e')], context: 'school', ages: [13, 14] },
  '3e': { scolomfr: [MIDDLE_SCHOOL, concept('023', '3e')], context: 'school', ages: [14, 15] },
  '2nde': {
    scolomfr: [HIGH_SCHOOL, concept('136', '2de générale et technologique')],
    context: 'school',
    ages: [15, 16],
  },
  '1ere': {
    scolomfr: [HIGH_SCHOOL, concept('123', '1re générale et technologique')],
    context: 'school',
    ages: [16, 17],
  },
  tle: {
    scolomfr: [HIGH_SCHOOL, concept('088', 'terminale générale et technologique')],
    context: 'school',
    ages: [17, 18],
  },
});

/**
 * Typical age ranges of a set of levels: the ranges of consecutive ages merged ("11-13" for 6e and
 * 5e), disjoint ones kept apart (CP and 3e give "6-7" and "14-15", not a misleading "6-15").
 */
export function ageRanges(levels: readonly string[]): string[] {
  const spans = levels
    .map((level) => LEVEL_MAPPING[level]?.ages)
    .filter((ages): ages is [number, number] => ages !== undefined)
    .sort((a, b) => a[0] - b[0]);
  const merged: [number, number][] = [];
  for (const [from, to] of spans) {
    const last = merged.at(-1);
    if (last && from <= last[1]) last[1] = Math.max(last[1], to);
    else merged.push([from, to]);
  }
  return merged.map(([from, to]) => `${from}-${to}`);
}

export interface TypeMapping {
  /** LOM 5.2 learningResourceType, LOMv1.0 vocabulary. */
  lom?: string;
  /** ScoLOMFR 010 concept URI. */
  scolomfr?: string;
}

const pedagogic = (suffix: string): string => `${SCOLOMFR_CONCEPT}${suffix}`;

/**
 * Pedagogic types (`typePedagogiques`, ScoLOMFR 1.x numbering: most ids are still the number of the
 * v3.1 concept). ScoLOMFR 010 takes LOM's own values as concepts (`…/concept/exercise`), so a type
 * with a LOM equivalent gets both.
 */
export const PEDAGOGIC_TYPE_MAPPING: Record<number, TypeMapping> = lookupTable({
  3: { lom: 'lecture', scolomfr: pedagogic('lecture') },
  9: { lom: 'exercise', scolomfr: pedagogic('exercise') },
  // A worked solution: no concept of its own in ScoLOMFR or LOM.
  91: {},
  92: { lom: 'exercise', scolomfr: pedagogic('exercise') },
  191: { lom: 'questionnaire', scolomfr: pedagogic('questionnaire') },
  7: { scolomfr: pedagogic('scolomfr-voc-010-num-007') },
  2: { lom: 'self assessment', scolomfr: pedagogic('self_assessment') },
  81: { lom: 'exam', scolomfr: pedagogic('exam') },
  82: { scolomfr: pedagogic('scolomfr-voc-010-num-0082') },
  13: { scolomfr: pedagogic('scolomfr-voc-010-num-013') },
  141: { scolomfr: pedagogic('scolomfr-voc-010-num-014') },
  151: { scolomfr: pedagogic('scolomfr-voc-010-num-015') },
  21: { lom: 'simulation', scolomfr: pedagogic('simulation') },
  22: { scolomfr: pedagogic('scolomfr-voc-010-num-022') },
});

/**
 * Resource types (the software a resource runs in): what kind of learning resource each one is.
 * Types whose content varies too much to name one kind (aide, page externe) are not mapped.
 */
export const RESOURCE_TYPE_MAPPING: Record<string, TypeMapping & { dcmi?: string }> = lookupTable({
  arbre: { lom: 'index', dcmi: 'Collection' },
  calkc: { lom: 'exercise', scolomfr: pedagogic('exercise'), dcmi: 'InteractiveResource' },
  ec2: { lom: 'exercise', scolomfr: pedagogic('exercise'), dcmi: 'InteractiveResource' },
  ecjs: { lom: 'exercise', scolomfr: pedagogic('exercise'), dcmi: 'InteractiveResource' },
  em: { lom: 'exercise', scolomfr: pedagogic('exercise'), dcmi: 'InteractiveResource' },
  j3p: { lom: 'exercise', scolomfr: pedagogic('exercise'), dcmi: 'InteractiveResource' },
  mental: { lom: 'exercise', scolomfr: pedagogic('exercise'), dcmi: 'InteractiveResource' },
  iep: { scolomfr: pedagogic('scolomfr-voc-010-num-001'), dcmi: 'MovingImage' },
  mathgraph: { lom: 'figure', dcmi: 'InteractiveResource' },
  sequenceModele: { scolomfr: pedagogic('scolomfr-voc-010-num-020') },
});

/** Documentary types (`typeDocumentaires`) → DCMI Type Vocabulary terms (http://purl.org/dc/dcmitype/). */
export const DOCUMENTARY_TYPE_DCMI: Record<number, string> = lookupTable({
  1: 'Collection',
  2: 'Dataset',
  5: 'MovingImage',
  6: 'StillImage',
  9: 'InteractiveResource',
  11: 'Sound',
  12: 'Text',
});

/**
 * Rights. Only public resources (restriction 0, "aucune") are exposed, so every record states the
 * same access: free of charge for anyone. Restriction is about who may read, not how a work may be
 * used: that is the licence's, when the resource states one (a statement of its own in each
 * format); without one no copyright statement is made either way.
 */
export const RIGHTS_DESCRIPTION = `Accès public : ressource consultable par tous, sans compte ni paiement (restriction : ${
  RESTRICTIONS[Restriction.none]
}).`;
