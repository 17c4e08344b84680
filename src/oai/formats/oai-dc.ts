/**
 * `oai_dc`: unqualified Dublin Core, the format every OAI-PMH repository must offer. Labels are the
 * repository's own (French); where a shared vocabulary exists (language tags, DCMI types) it is used
 * beside them so that aggregators can facet on it.
 */
import { CATEGORIES, LEVELS, RESOURCE_TYPES } from '../../modules/resources/vocabulary.ts';
import type { HarvestResource, MetadataFormat } from '../harvest-source.ts';
import { escapeAttribute } from '../xml.ts';
import { DOCUMENTARY_TYPE_DCMI, languageTag, RESOURCE_TYPE_MAPPING, RIGHTS_DESCRIPTION } from './mapping.ts';
import { content, displayName, isoDateTime, labels, unique } from './text.ts';

export const OAI_DC_NAMESPACE = 'http://www.openarchives.org/OAI/2.0/oai_dc/';
export const OAI_DC_SCHEMA = 'http://www.openarchives.org/OAI/2.0/oai_dc.xsd';
const DC_NAMESPACE = 'http://purl.org/dc/elements/1.1/';

function renderOaiDc(resource: HarvestResource): string {
  const language = languageTag(resource.langue);
  // xml:lang only on the free texts the author wrote in the resource's language.
  const lang = language ? ` xml:lang="${language}"` : '';
  const elements: string[] = [];
  const add = (name: string, value: string, attributes = '') => {
    const text = content(value);
    if (text !== null) elements.push(`<dc:${name}${attributes}>${text}</dc:${name}>`);
  };

  add('title', resource.titre, lang);
  for (const person of resource.authors) add('creator', displayName(person) ?? '');
  for (const person of resource.contributors) add('contributor', displayName(person) ?? '');
  for (const label of [...labels(resource.niveaux, LEVELS), ...labels(resource.categories, CATEGORIES)]) {
    add('subject', label);
  }
  add('description', resource.resume, lang);
  add('description', resource.description, lang);
  // W3CDTF, to the day: the creation date is a date, its time of day means nothing to a reader.
  add('date', isoDateTime(resource.dateCreation)?.slice(0, 10) ?? '');
  if (Object.hasOwn(RESOURCE_TYPES, resource.type)) add('type', RESOURCE_TYPES[resource.type] as string);
  const dcmi = unique([
    RESOURCE_TYPE_MAPPING[resource.type]?.dcmi,
    ...resource.typeDocumentaires.map((id) => DOCUMENTARY_TYPE_DCMI[id]),
  ]);
  for (const term of dcmi) if (term) add('type', term);
  add('identifier', resource.publicUrl);
  if (resource.adresse !== null) add('identifier', resource.adresse);
  if (language) add('language', language);
  add('rights', RIGHTS_DESCRIPTION);
  // The licence alone, as aggregators read it (an SPDX expression or a licence's URL).
  if (resource.licence !== null) add('rights', resource.licence);

  return (
    `<oai_dc:dc xmlns:oai_dc="${OAI_DC_NAMESPACE}" xmlns:dc="${DC_NAMESPACE}"` +
    ` xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"` +
    ` xsi:schemaLocation="${escapeAttribute(`${OAI_DC_NAMESPACE} ${OAI_DC_SCHEMA}`)}">` +
    elements.join('') +
    '</oai_dc:dc>'
  );
}

export const oaiDcFormat: MetadataFormat = {
  metadataPrefix: 'oai_dc',
  schema: OAI_DC_SCHEMA,
  metadataNamespace: OAI_DC_NAMESPACE,
  render: renderOaiDc,
};
