/**
 * The XML of responses (§3.2, §4), written as text: every value goes through escapeText (element
 * content) or escapeAttribute, and metadata is what a format renders. A page is built from one page
 * of the source, never from the whole list, so memory is bounded by the page size.
 */
import { formatDatestamp } from './datestamp.ts';
import type { OaiError } from './errors.ts';
import type { HarvestHeader, HarvestRecord, HarvestSet, MetadataFormat } from './harvest-source.ts';
import { formatIdentifier } from './identifier.ts';
import { escapeAttribute, escapeText } from './xml.ts';

const OAI_NAMESPACE = 'http://www.openarchives.org/OAI/2.0/';
const OAI_SCHEMA = 'http://www.openarchives.org/OAI/2.0/OAI-PMH.xsd';
const XSI = 'http://www.w3.org/2001/XMLSchema-instance';

export interface Envelope {
  responseDate: Date;
  /** The base URL, the `request` element's content. */
  baseUrl: string;
  /** The arguments echoed as attributes (none after badVerb or badArgument). */
  echo: readonly [string, string][];
}

const attributes = (pairs: readonly [string, string][]) =>
  pairs.map(([name, value]) => ` ${name}="${escapeAttribute(value)}"`).join('');

/** A whole response around `body` (the verb's element, or the errors). */
export function envelope({ responseDate, baseUrl, echo }: Envelope, body: string): string {
  return [
    '<?xml version="1.0" encoding="UTF-8"?>\n',
    `<OAI-PMH xmlns="${OAI_NAMESPACE}" xmlns:xsi="${XSI}" xsi:schemaLocation="${OAI_NAMESPACE} ${OAI_SCHEMA}">`,
    `<responseDate>${formatDatestamp(responseDate)}</responseDate>`,
    `<request${attributes(echo)}>${escapeText(baseUrl)}</request>`,
    body,
    '</OAI-PMH>\n',
  ].join('');
}

export const errorsXml = (errors: readonly OaiError[]) =>
  errors.map((error) => `<error code="${error.code}">${escapeText(error.message)}</error>`).join('');

const element = (name: string, text: string) => `<${name}>${escapeText(text)}</${name}>`;

export interface IdentifyFields {
  repositoryName: string;
  baseUrl: string;
  adminEmails: readonly string[];
  earliestDatestamp: Date | string;
  compression: readonly string[];
  repositoryIdentifier: string;
  sampleOid: number;
}

export function identifyXml(fields: IdentifyFields): string {
  const ns = 'http://www.openarchives.org/OAI/2.0/oai-identifier';
  return [
    '<Identify>',
    element('repositoryName', fields.repositoryName),
    element('baseURL', fields.baseUrl),
    '<protocolVersion>2.0</protocolVersion>',
    ...fields.adminEmails.map((email) => element('adminEmail', email)),
    element('earliestDatestamp', formatDatestamp(fields.earliestDatestamp)),
    '<deletedRecord>persistent</deletedRecord>',
    '<granularity>YYYY-MM-DDThh:mm:ssZ</granularity>',
    ...fields.compression.map((encoding) => element('compression', encoding)),
    '<description>',
    `<oai-identifier xmlns="${ns}" xmlns:xsi="${XSI}" xsi:schemaLocation="${ns} http://www.openarchives.org/OAI/2.0/oai-identifier.xsd">`,
    '<scheme>oai</scheme>',
    element('repositoryIdentifier', fields.repositoryIdentifier),
    '<delimiter>:</delimiter>',
    element('sampleIdentifier', formatIdentifier(fields.repositoryIdentifier, fields.sampleOid)),
    '</oai-identifier>',
    '</description>',
    '</Identify>',
  ].join('');
}

export const metadataFormatsXml = (formats: readonly MetadataFormat[]) =>
  `<ListMetadataFormats>${formats
    .map(
      (format) =>
        `<metadataFormat>${element('metadataPrefix', format.metadataPrefix)}${element('schema', format.schema)}${element('metadataNamespace', format.metadataNamespace)}</metadataFormat>`,
    )
    .join('')}</ListMetadataFormats>`;

export const setsXml = (sets: readonly HarvestSet[]) =>
  `<ListSets>${sets
    .map((set) => `<set>${element('setSpec', set.spec)}${element('setName', set.name)}</set>`)
    .join('')}</ListSets>`;

export function headerXml(repositoryIdentifier: string, header: HarvestHeader): string {
  return [
    header.deleted ? '<header status="deleted">' : '<header>',
    element('identifier', formatIdentifier(repositoryIdentifier, header.oid)),
    element('datestamp', formatDatestamp(header.datestamp)),
    ...header.setSpecs.map((spec) => element('setSpec', spec)),
    '</header>',
  ].join('');
}

/** A record: its header, and its metadata unless it is deleted. */
export function recordXml(
  repositoryIdentifier: string,
  record: HarvestRecord,
  format: MetadataFormat,
): string {
  const header = headerXml(repositoryIdentifier, record.header);
  if (record.header.deleted) return `<record>${header}</record>`;
  if (!record.resource) {
    // The contract gives the metadata of every record that is not deleted.
    throw new Error(`OAI-PMH: record ${record.header.oid} is not deleted but came without its metadata`);
  }
  return `<record>${header}<metadata>${format.render(record.resource)}</metadata></record>`;
}

export interface TokenElement {
  /** Empty on the page that completes the list. */
  token: string;
  expirationDate?: Date;
  completeListSize: number;
  cursor: number;
}

export function resumptionTokenXml(token: TokenElement): string {
  const expiration = token.expirationDate ? ` expirationDate="${formatDatestamp(token.expirationDate)}"` : '';
  return `<resumptionToken${expiration} completeListSize="${token.completeListSize}" cursor="${token.cursor}">${escapeText(token.token)}</resumptionToken>`;
}

/** A list verb's element: one page of items, and the page's resumptionToken element when it has one. */
export const listXml = (verb: string, items: readonly string[], token: TokenElement | undefined) =>
  `<${verb}>${items.join('')}${token ? resumptionTokenXml(token) : ''}</${verb}>`;
