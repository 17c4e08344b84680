/**
 * `lom`: IEEE LOM (1484.12.1) in its XML binding (1484.12.3), namespace http://ltsc.ieee.org/xsd/LOM,
 * with ScoLOMFR concepts for levels and pedagogic types where ScoLOMFR has them. What goes where,
 * and why, is docs/oai-lom-mapping.md.
 *
 * Vocabulary elements carry LOMv1.0 values with source `LOMv1.0`, and ScoLOMFR concept URIs with the
 * ScoLOMFR vocabulary's URI as source; a LOM-only harvester keeps the former and may ignore the
 * latter. The instance names the binding's "loose" composite schema, the one that admits vocabularies
 * other than LOMv1.0 (test/schemas/README.md).
 */
import { CATEGORIES, LEVELS, PEDAGOGIC_TYPES } from '../../modules/resources/vocabulary.ts';
import type { HarvestPerson, HarvestResource, MetadataFormat } from '../harvest-source.ts';
import { escapeText } from '../xml.ts';
import {
  ageRanges,
  LEVEL_MAPPING,
  LOM_SOURCE,
  languageTag,
  PEDAGOGIC_TYPE_MAPPING,
  RESOURCE_TYPE_MAPPING,
  RIGHTS_DESCRIPTION,
  SCOLOMFR_LEVELS,
  SCOLOMFR_PEDAGOGIC_TYPES,
  type TypeMapping,
} from './mapping.ts';
import { content, displayName, isoDateTime, labels, unique } from './text.ts';

export const LOM_NAMESPACE = 'http://ltsc.ieee.org/xsd/LOM';
export const LOM_SCHEMA = 'http://ltsc.ieee.org/xsd/lomv1.0/lomLoose.xsd';
/** Our own strings (labels, the rights text) are French. */
const METADATA_LANGUAGE = 'fr';

export interface LomOptions {
  /**
   * The catalog of the record's identifiers (LOM 1.1.1): the repository identifier of the OAI
   * identifiers, so that `catalog` + `entry` (the rid) name the resource uniquely.
   */
  repositoryIdentifier: string;
}

const element = (name: string, inner: string): string => `<${name}>${inner}</${name}>`;

/** A LangString, or '' when the text is blank (the caller then leaves the element out). */
function langString(value: string, language: string | null): string {
  const text = content(value);
  if (text === null) return '';
  return `<string${language ? ` language="${language}"` : ''}>${text}</string>`;
}

const vocabulary = (name: string, source: string, value: string): string =>
  element(name, element('source', escapeText(source)) + element('value', escapeText(value)));

/**
 * A vCard 3.0 (RFC 2426) naming a person, as LOM's contribute entity wants: FN and N are required.
 * Text values escape backslash, comma, semicolon and line breaks (section 4 of the RFC), so a name
 * cannot break out of its property or its N component. Lines are not folded: folding is a SHOULD,
 * and a folded line in XML text depends on the consumer unfolding LF as well as CRLF.
 */
export function vCard(person: HarvestPerson): string | null {
  const name = displayName(person);
  if (name === null) return null;
  const text = (value: string) => value.replace(/[\\,;]/g, (c) => `\\${c}`).replace(/\r\n|\r|\n/g, '\\n');
  return [
    'BEGIN:VCARD',
    'VERSION:3.0',
    `FN:${text(name)}`,
    `N:${text(person.nom.trim())};${text(person.prenom.trim())};;;`,
    'END:VCARD',
  ].join('\n');
}

function contribute(role: string, people: readonly HarvestPerson[], date: string | null): string {
  const entities = people
    .map(vCard)
    .flatMap((card) => (card === null ? [] : [element('entity', escapeText(card))]));
  if (entities.length === 0) return '';
  return element(
    'contribute',
    vocabulary('role', LOM_SOURCE, role) +
      entities.join('') +
      (date ? element('date', element('dateTime', date)) : ''),
  );
}

function typeMappings(resource: HarvestResource): TypeMapping[] {
  return [
    ...resource.typePedagogiques.map((id) => PEDAGOGIC_TYPE_MAPPING[id]),
    RESOURCE_TYPE_MAPPING[resource.type],
  ].filter((mapping): mapping is TypeMapping => mapping !== undefined);
}

/**
 * 1 General: the record's identifiers (this repository's, then the resource's public URL), its
 * title, language and descriptions, and keywords.
 */
function general(resource: HarvestResource, language: string | null, options: LomOptions): string {
  const title = langString(resource.titre, language);
  const descriptions = [resource.resume, resource.description]
    .map((text) => langString(text, language))
    .filter((text) => text !== '');
  // The repository has no keywords: the category and pedagogic type labels are the words a search
  // would use for it.
  const keywords = [
    ...labels(resource.categories, CATEGORIES),
    ...labels(resource.typePedagogiques, PEDAGOGIC_TYPES),
  ]
    .map((label) => langString(label, METADATA_LANGUAGE))
    .filter((text) => text !== '');
  return (
    element(
      'identifier',
      element('catalog', escapeText(options.repositoryIdentifier)) +
        element('entry', escapeText(resource.rid)),
    ) +
    element('identifier', element('catalog', 'URI') + element('entry', escapeText(resource.publicUrl))) +
    (title ? element('title', title) : '') +
    (language ? element('language', language) : '') +
    descriptions.map((text) => element('description', text)).join('') +
    keywords.map((text) => element('keyword', text)).join('')
  );
}

/** 3 Meta-metadata: says which language our labels are in. */
const META_METADATA = element('metadataSchema', LOM_SOURCE) + element('language', METADATA_LANGUAGE);

/**
 * 5 Educational: the learning resource types (LOMv1.0's, then ScoLOMFR's), the contexts and typical
 * age ranges of the levels, the language.
 */
function educational(resource: HarvestResource, levels: string[], language: string | null): string {
  const types = typeMappings(resource);
  return (
    unique(types.flatMap((type) => (type.lom ? [type.lom] : [])))
      .map((value) => vocabulary('learningResourceType', LOM_SOURCE, value))
      .join('') +
    unique(types.flatMap((type) => (type.scolomfr ? [type.scolomfr] : [])))
      .map((value) => vocabulary('learningResourceType', SCOLOMFR_PEDAGOGIC_TYPES, value))
      .join('') +
    unique(levels.map((level) => LEVEL_MAPPING[level]?.context))
      .map((value) => vocabulary('context', LOM_SOURCE, value as string))
      .join('') +
    ageRanges(levels)
      .map((range) => element('typicalAgeRange', langString(range, 'x-none')))
      .join('') +
    (language ? element('language', language) : '')
  );
}

/** 6 Rights without a licence: free access for every exposed (public) resource (RIGHTS_DESCRIPTION). */
const FREE_ACCESS =
  vocabulary('cost', LOM_SOURCE, 'no') +
  element('description', langString(RIGHTS_DESCRIPTION, METADATA_LANGUAGE));

/** 6 Rights: free access and, when the resource states one, the licence its use is subject to. */
function rights(licence: string | null): string {
  if (licence === null) return FREE_ACCESS;
  return (
    vocabulary('cost', LOM_SOURCE, 'no') +
    vocabulary('copyrightAndOtherRestrictions', LOM_SOURCE, 'yes') +
    element('description', langString(`${RIGHTS_DESCRIPTION} Licence : ${licence}.`, METADATA_LANGUAGE))
  );
}

/** 9 Classification: the levels as ScoLOMFR taxon paths, broadest taxon first; '' without levels. */
function classification(levels: string[]): string {
  const taxonPaths = levels.map((level) =>
    element(
      'taxonPath',
      element('source', langString(SCOLOMFR_LEVELS, 'x-none')) +
        (LEVEL_MAPPING[level]?.scolomfr ?? [])
          .map((taxon) =>
            element('taxon', element('id', taxon.id) + element('entry', langString(taxon.label, 'fr'))),
          )
          .join(''),
    ),
  );
  if (taxonPaths.length === 0) return '';
  return element(
    'classification',
    vocabulary('purpose', LOM_SOURCE, 'educational level') +
      taxonPaths.join('') +
      element('description', langString(labels(levels, LEVELS).join(', '), METADATA_LANGUAGE)),
  );
}

/** A record's LOM, its categories in the binding's order (empty ones left out). */
function renderLom(resource: HarvestResource, options: LomOptions): string {
  const language = languageTag(resource.langue);
  const levels = unique(resource.niveaux).filter((level) => Object.hasOwn(LEVEL_MAPPING, level));

  // 2 Life cycle: authors with the creation date; the repository's contributors (people given the
  // right to edit) have no LOMv1.0 role of their own and no date.
  const lifeCycle =
    contribute('author', resource.authors, isoDateTime(resource.dateCreation)) +
    contribute('unknown', resource.contributors, null);

  // 4 Technical: where the resource itself is.
  const location = content(resource.adresse ?? '') ?? content(resource.publicUrl);

  const educationalCategory = educational(resource, levels, language);
  return (
    `<lom xmlns="${LOM_NAMESPACE}" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"` +
    ` xsi:schemaLocation="${LOM_NAMESPACE} ${LOM_SCHEMA}">` +
    element('general', general(resource, language, options)) +
    (lifeCycle ? element('lifeCycle', lifeCycle) : '') +
    element('metaMetadata', META_METADATA) +
    (location ? element('technical', element('location', location)) : '') +
    (educationalCategory ? element('educational', educationalCategory) : '') +
    element('rights', rights(resource.licence)) +
    classification(levels) +
    '</lom>'
  );
}

export function createLomFormat(options: LomOptions): MetadataFormat {
  return {
    metadataPrefix: 'lom',
    schema: LOM_SCHEMA,
    metadataNamespace: LOM_NAMESPACE,
    render: (resource) => renderLom(resource, options),
  };
}
