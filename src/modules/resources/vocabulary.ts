/**
 * Controlled vocabularies of resource fields (the values the historical service used). Stored
 * values are ids; labels serve autocomplete and display. Only relation predicates are enforced on
 * write (the API document lists an unknown relation type as an error); the other lists describe.
 */

import { RESOURCE_FIELDS } from '../../catalogue/resource-fields.ts';

/** A rid, `<baseId>/<id>`: one slash, nothing blank. */
export const RID_PATTERN = /^[^/\s]+\/[^/\s]+$/;

export const RESOURCE_TYPES: Record<string, string> = {
  am: 'aide mathenpoche',
  arbre: 'arbre (liste hiérarchisée)',
  calkc: 'calculatrice cassée',
  ec2: 'exercice calculatice (flash)',
  ecjs: 'exercice calculatice (javascript)',
  em: 'exercice mathenpoche',
  j3p: 'activité j3p',
  iep: 'animation instrumenpoche',
  mathgraph: 'figure Mathgraph',
  mental: 'calcul mental',
  sequenceModele: 'modèle de séquence',
  url: 'page externe',
};

/** Types a repository can edit: cloning them copies, cloning others makes an alias. */
export const EDITABLE_TYPES: ReadonlySet<string> = new Set([
  'arbre',
  'calkc',
  'ecjs',
  'iep',
  'j3p',
  'mathgraph',
  'mental',
  'url',
]);

export const CATEGORIES: Record<number, string> = {
  1: 'Activité fixe',
  2: 'Activité animée',
  3: 'Cours fixe',
  4: 'Cours avec animation',
  5: 'Exercice fixe',
  6: 'Exercice avec animation',
  7: 'Exercice interactif',
  8: 'Liste de ressources',
  9: 'À déterminer',
};

export const PEDAGOGIC_TYPES: Record<number, string> = {
  3: 'cours / présentation',
  9: 'exercice',
  91: 'corrigé d’exercice',
  92: 'énoncé d’exercice',
  191: 'QCM (question à choix multiples)',
  7: 'évaluation',
  2: 'autoévaluation',
  81: 'sujet d’examen et de concours',
  82: 'préparation à l’examen',
  13: 'jeu éducatif',
  141: 'manuel scolaire',
  151: 'document de référence',
  21: 'simulation',
  22: 'tutoriel',
};

export const DOCUMENTARY_TYPES: Record<number, string> = {
  5: 'vidéo / animation',
  9: 'ressource interactive',
  6: 'image fixe',
  12: 'texte',
  11: 'son',
  1: 'collection',
  2: 'ensemble de données',
};

/** Relation predicates: `[predicate, targetRid]` pairs of `relations`. */
export const RELATION_TYPES: Record<number, string> = {
  1: 'est associée à',
  4: 'est une version de',
  5: 'existe en une autre version',
  6: 'est remplacée par',
  7: 'remplace',
  8: 'est requis par',
  9: 'requiert',
  10: 'est une partie de',
  11: 'contient',
  12: 'est référencé par',
  13: 'contient une référence à',
  14: 'est un format de',
  15: 'existe dans un format',
  16: 'est la traduction de',
  17: 'fait l’objet d’une traduction',
  21: 'a pour vignette',
  51: 'a pour corrigé',
  52: 'est la correction de',
};

/** The predicate a copy points to its source with (clone). */
export const RELATION_COPY_OF = 4;

export const LANGUAGES: Record<string, string> = {
  deu: 'allemand',
  eng: 'anglais',
  ara: 'arabe',
  eus: 'basque',
  bre: 'breton',
  cat: 'catalan',
  spa: 'espagnol',
  fra: 'français',
  ita: 'italien',
  por: 'portugais',
};

/** A resource's language when none is given (the catalogue's default). */
export const DEFAULT_LANGUAGE = RESOURCE_FIELDS.langue.default;

export const RESTRICTIONS: Record<number, string> = {
  0: 'aucune',
  1: 'corrigé',
  2: 'groupe',
  3: 'privé',
};

export const Restriction = { none: 0, correction: 1, group: 2, private: 3 } as const;

/** School levels (`niveaux`); stored as these ids. */
export const LEVELS: Record<string, string> = {
  cp: 'CP',
  ce1: 'CE1',
  ce2: 'CE2',
  cm1: 'CM1',
  cm2: 'CM2',
  '6e': 'Sixième',
  '5e': 'Cinquième',
  '4e': 'Quatrième',
  '3e': 'Troisième',
  '2nde': 'Seconde',
  '1ere': 'Première',
  tle: 'Terminale',
};
