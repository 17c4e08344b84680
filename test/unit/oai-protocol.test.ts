/**
 * The OAI-PMH 2.0 protocol layer (src/oai/provider.ts behind src/oai/router.ts) on a bare Express
 * app over an in-memory HarvestSource: every verb, every error condition, flow control, GET and
 * POST. Responses are read as XML trees (test/support/xml-tree.ts: libxml2 parses them first),
 * every one through `respond`, and every one is validated against the OAI-PMH 2.0 schemas at the
 * end of the file (in one batch: each validation starts a libxml2 worker).
 */
import express from 'express';
import request from 'supertest';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import type { HarvestResource, MetadataFormat } from '../../src/oai/harvest-source.ts';
import { createOaiRouter, OAI_PATH } from '../../src/oai/router.ts';
import type { OaiSettings } from '../../src/oai/settings.ts';
import { escapeText } from '../../src/oai/xml.ts';
import { MemoryHarvestSource, type MemoryRecord } from '../support/memory-harvest-source.ts';
import { validateOaiDocuments } from '../support/xml-schema.ts';
import { at, child, childrenNamed, parseXml, type XmlElement } from '../support/xml-tree.ts';

/** Dublin Core of a few elements: what the protocol requires of every item, in its schema's form. */
const dublinCore = (elements: string) =>
  '<oai_dc:dc xmlns:oai_dc="http://www.openarchives.org/OAI/2.0/oai_dc/" xmlns:dc="http://purl.org/dc/elements/1.1/" ' +
  'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://www.openarchives.org/OAI/2.0/oai_dc/ http://www.openarchives.org/OAI/2.0/oai_dc.xsd">' +
  `${elements}</oai_dc:dc>`;
const oaiDc: MetadataFormat = {
  metadataPrefix: 'oai_dc',
  schema: 'http://www.openarchives.org/OAI/2.0/oai_dc.xsd',
  metadataNamespace: 'http://www.openarchives.org/OAI/2.0/oai_dc/',
  render: (resource: HarvestResource) =>
    dublinCore(
      `<dc:title>${escapeText(resource.titre)}</dc:title><dc:identifier>${escapeText(resource.publicUrl)}</dc:identifier>`,
    ),
};
/**
 * A second format, so that a format's own rendering is seen to be used: the title alone, in the
 * same schema (every response stays valid against the OAI-PMH and oai_dc schemas).
 */
const titleOnly: MetadataFormat = {
  metadataPrefix: 'title_only',
  schema: 'http://www.openarchives.org/OAI/2.0/oai_dc.xsd',
  metadataNamespace: 'http://www.openarchives.org/OAI/2.0/oai_dc/',
  render: (resource) => dublinCore(`<dc:title>${escapeText(resource.titre)}</dc:title>`),
};
const FORMATS = [oaiDc, titleOnly];

const START = new Date('2026-11-27T10:00:00Z');
let now = START;
const SETTINGS: OaiSettings = {
  baseUrl: 'http://repo.test/oai',
  repositoryIdentifier: 'repo.test',
  repositoryName: 'Dépôt <test> & "co"',
  adminEmails: ['oai@repo.test', 'second@repo.test'],
  pageSize: 3,
  compression: ['gzip', 'deflate'],
  tokenLifetimeSeconds: 3600,
  secret: 'test-oai-secret-0123456789',
  now: () => now,
};

const TRICKY_TITLE = 'Fractions & <décimaux> "x" \u0001fin';
/** Seven records in oid order, one deleted; the day boundaries around 2026-01-15/16 are the edges tests probe. */
const RECORDS: MemoryRecord[] = [
  { oid: 1, datestamp: new Date('2026-01-10T08:00:00Z'), setSpecs: ['type:url', 'niveau:6e'] },
  { oid: 2, datestamp: new Date('2026-01-15T23:59:59Z'), setSpecs: ['type:j3p'] },
  { oid: 3, datestamp: new Date('2026-01-16T00:00:00Z'), setSpecs: ['type:url'] },
  { oid: 4, datestamp: new Date('2026-02-01T12:00:00Z'), deleted: true },
  {
    oid: 5,
    datestamp: new Date('2026-02-10T10:00:00Z'),
    setSpecs: ['type:url', 'niveau:5e'],
    resource: { titre: TRICKY_TITLE },
  },
  { oid: 6, datestamp: new Date('2026-03-01T00:00:00Z'), setSpecs: ['type:j3p'] },
  { oid: 7, datestamp: new Date('2026-03-02T00:00:00Z'), setSpecs: ['type:url'] },
];
const SETS = [
  { spec: 'type:url', name: 'Adresse web' },
  { spec: 'type:j3p', name: 'Exercice J3P' },
  { spec: 'niveau:6e', name: 'Sixième' },
  { spec: 'niveau:5e', name: 'Cinquième' },
];

let source: MemoryHarvestSource;
beforeEach(() => {
  now = START;
  source = new MemoryHarvestSource(RECORDS, SETS);
});

function appOver(over = source, settings: Partial<OaiSettings> = {}, formats = FORMATS) {
  const app = express();
  app.use(OAI_PATH, createOaiRouter({ source: over, formats, settings: { ...SETTINGS, ...settings } }));
  return app;
}

interface Answer {
  status: number;
  contentType: string;
  text: string;
  root: XmlElement;
}

/**
 * Every response of these tests passes here: parsed (well-formed or the test fails). Schema
 * validation of the whole response (test/support/xml-schema.ts) belongs here too.
 */
/** Every document the provider answered in this file, validated against the schemas in afterAll. */
const answered: string[] = [];

afterAll(async () => {
  expect(answered.length).toBeGreaterThan(100);
  const errors = await validateOaiDocuments(answered);
  const invalid = errors.flatMap((list, index) =>
    list.length ? [{ document: answered[index], errors: list }] : [],
  );
  expect(invalid).toEqual([]);
}, 60_000);

async function respond(response: request.Response): Promise<Answer> {
  answered.push(response.text);
  const root = await parseXml(response.text);
  return {
    status: response.status,
    contentType: String(response.headers['content-type']),
    text: response.text,
    root,
  };
}

const get = async (query: string, app = appOver()) => respond(await request(app).get(`/oai?${query}`));
const post = async (body: string, app = appOver()) =>
  respond(await request(app).post('/oai').type('form').send(body));

const errorsOf = ({ root }: Answer) =>
  childrenNamed(root, 'error').map((error) => ({ code: error.attributes.code, message: error.text }));
const codesOf = (answer: Answer) => errorsOf(answer).map((error) => error.code);
const requestOf = ({ root }: Answer) => {
  const element = child(root, 'request');
  return { attributes: element.attributes, text: element.text };
};
const identifiersOf = (list: XmlElement) =>
  list.children
    .map((item) => (item.name === 'record' ? child(item, 'header') : item))
    .filter((header) => header.name === 'header')
    .map((header) => child(header, 'identifier').text);

/** A badArgument or badVerb answer: only that code, and a request element without attributes. */
function expectBad(answer: Answer, code: 'badArgument' | 'badVerb', count = 1) {
  expect(answer.status).toBe(200);
  expect(codesOf(answer)).toEqual(Array(count).fill(code));
  expect(requestOf(answer)).toEqual({ attributes: {}, text: SETTINGS.baseUrl });
  expect(answer.root.children.map((element) => element.name)).toEqual([
    'responseDate',
    'request',
    ...Array(count).fill('error'),
  ]);
}

describe('the envelope', () => {
  it('is text/xml in UTF-8, HTTP 200, the OAI-PMH root with its namespace and schema, the date in UTC to the second', async () => {
    now = new Date('2026-11-27T10:11:12.345Z');
    const answer = await get('verb=Identify');
    expect(answer.status).toBe(200);
    expect(answer.contentType).toBe('text/xml; charset=utf-8');
    expect(answer.text.startsWith('<?xml version="1.0" encoding="UTF-8"?>')).toBe(true);
    expect(answer.root.name).toBe('OAI-PMH');
    expect(answer.root.attributes).toEqual({
      xmlns: 'http://www.openarchives.org/OAI/2.0/',
      'xmlns:xsi': 'http://www.w3.org/2001/XMLSchema-instance',
      'xsi:schemaLocation':
        'http://www.openarchives.org/OAI/2.0/ http://www.openarchives.org/OAI/2.0/OAI-PMH.xsd',
    });
    expect(at(answer.root, 'responseDate').text).toBe('2026-11-27T10:11:12Z');
    expect(requestOf(answer)).toEqual({ attributes: { verb: 'Identify' }, text: 'http://repo.test/oai' });
  });

  it('answers a protocol error with HTTP 200 and the same content type', async () => {
    const answer = await get('verb=Nope');
    expect(answer.status).toBe(200);
    expect(answer.contentType).toBe('text/xml; charset=utf-8');
  });

  it('echoes every valid argument in the request element, in canonical order', async () => {
    const answer = await get(
      'set=type%3Aurl&until=2026-03-01&from=2026-01-01&metadataPrefix=oai_dc&verb=ListIdentifiers',
    );
    expect(requestOf(answer).attributes).toEqual({
      verb: 'ListIdentifiers',
      metadataPrefix: 'oai_dc',
      from: '2026-01-01',
      until: '2026-03-01',
      set: 'type:url',
    });
    // The canonical form the tree is read from sorts attributes: the order is read from the text.
    expect(answer.text).toContain(
      '<request verb="ListIdentifiers" metadataPrefix="oai_dc" from="2026-01-01" until="2026-03-01" set="type:url">',
    );
  });

  it('echoes the arguments after an error other than badVerb and badArgument', async () => {
    const answer = await get('verb=GetRecord&identifier=oai%3Arepo.test%3A99&metadataPrefix=oai_dc');
    expect(codesOf(answer)).toEqual(['idDoesNotExist']);
    expect(requestOf(answer).attributes).toEqual({
      verb: 'GetRecord',
      identifier: 'oai:repo.test:99',
      metadataPrefix: 'oai_dc',
    });
  });
});

describe('Identify', () => {
  it('describes the repository, with the oai-identifier description', async () => {
    const identify = at((await get('verb=Identify')).root, 'Identify');
    expect(identify.children.map((element) => element.name)).toEqual([
      'repositoryName',
      'baseURL',
      'protocolVersion',
      'adminEmail',
      'adminEmail',
      'earliestDatestamp',
      'deletedRecord',
      'granularity',
      'compression',
      'compression',
      'description',
    ]);
    expect(child(identify, 'repositoryName').text).toBe('Dépôt <test> & "co"');
    expect(child(identify, 'baseURL').text).toBe('http://repo.test/oai');
    expect(child(identify, 'protocolVersion').text).toBe('2.0');
    expect(childrenNamed(identify, 'adminEmail').map((email) => email.text)).toEqual([
      'oai@repo.test',
      'second@repo.test',
    ]);
    // The oldest datestamp held, the deleted record's included.
    expect(child(identify, 'earliestDatestamp').text).toBe('2026-01-10T08:00:00Z');
    expect(child(identify, 'deletedRecord').text).toBe('persistent');
    expect(child(identify, 'granularity').text).toBe('YYYY-MM-DDThh:mm:ssZ');
    expect(childrenNamed(identify, 'compression').map((encoding) => encoding.text)).toEqual([
      'gzip',
      'deflate',
    ]);
    const description = at(identify, 'description', 'oai-identifier');
    expect(description.attributes.xmlns).toBe('http://www.openarchives.org/OAI/2.0/oai-identifier');
    expect(Object.fromEntries(description.children.map((element) => [element.name, element.text]))).toEqual({
      scheme: 'oai',
      repositoryIdentifier: 'repo.test',
      delimiter: ':',
      sampleIdentifier: 'oai:repo.test:1',
    });
  });

  it('announces no compression unless configured', async () => {
    const identify = at((await get('verb=Identify', appOver(source, { compression: [] }))).root, 'Identify');
    expect(childrenNamed(identify, 'compression')).toEqual([]);
  });

  it('gives the Unix epoch as the earliest datestamp of an empty repository', async () => {
    const answer = await get('verb=Identify', appOver(new MemoryHarvestSource()));
    expect(at(answer.root, 'Identify', 'earliestDatestamp').text).toBe('1970-01-01T00:00:00Z');
  });

  it('takes no argument', async () => {
    expectBad(await get('verb=Identify&metadataPrefix=oai_dc'), 'badArgument');
  });
});

describe('badVerb', () => {
  it('when the verb is missing', async () => {
    expectBad(await get('metadataPrefix=oai_dc'), 'badVerb');
    expectBad(await get(''), 'badVerb');
  });

  it('when the verb is unknown, or empty, or differs in case', async () => {
    expectBad(await get('verb=ListEverything'), 'badVerb');
    expectBad(await get('verb='), 'badVerb');
    expectBad(await get('verb=identify'), 'badVerb');
  });

  it('when the verb is repeated, even with the same value', async () => {
    expectBad(await get('verb=Identify&verb=Identify'), 'badVerb');
    expectBad(await get('verb=Identify&verb=ListSets'), 'badVerb');
  });
});

describe('badArgument', () => {
  it('for an argument no verb has', async () => {
    const answer = await get('verb=ListRecords&metadataPrefix=oai_dc&foo=bar');
    expectBad(answer, 'badArgument');
    expect(errorsOf(answer)[0]!.message).toContain('"foo"');
  });

  it("for another verb's argument", async () => {
    expectBad(
      await get('verb=ListRecords&metadataPrefix=oai_dc&identifier=oai%3Arepo.test%3A1'),
      'badArgument',
    );
    expectBad(await get('verb=ListMetadataFormats&metadataPrefix=oai_dc'), 'badArgument');
    expectBad(await get('verb=ListSets&set=type%3Aurl'), 'badArgument');
  });

  it('for a repeated argument, with the same value or another', async () => {
    const answer = await get('verb=ListRecords&metadataPrefix=oai_dc&metadataPrefix=title_only');
    expectBad(answer, 'badArgument');
    expect(errorsOf(answer)[0]!.message).toContain('metadataPrefix argument is repeated');
    expectBad(await get('verb=ListRecords&metadataPrefix=oai_dc&metadataPrefix=oai_dc'), 'badArgument');
    expectBad(
      await get('verb=ListRecords&metadataPrefix=oai_dc&set=type%3Aurl&set=type%3Aj3p'),
      'badArgument',
    );
  });

  it('for a missing required argument', async () => {
    expectBad(await get('verb=ListRecords'), 'badArgument');
    expectBad(await get('verb=ListIdentifiers&from=2026-01-01'), 'badArgument');
    expectBad(await get('verb=GetRecord&metadataPrefix=oai_dc'), 'badArgument');
    expectBad(await get('verb=GetRecord&identifier=oai%3Arepo.test%3A1'), 'badArgument');
  });

  it.each([
    '2026-13-01',
    '2026-02-30',
    '2026-02-29',
    '2026-1-5',
    '26-01-05',
    '2026-01-05T10:00:00',
    '2026-01-05T10:00Z',
    '2026-01-05T10:00:00.000Z',
    '2026-01-05T24:00:00Z',
    '2026-01-05T10:00:00+01:00',
    '2026-01-05 10:00:00Z',
    '',
  ])('for a malformed date: from=%s, and the same until', async (value) => {
    expectBad(
      await get(`verb=ListRecords&metadataPrefix=oai_dc&from=${encodeURIComponent(value)}`),
      'badArgument',
    );
    expectBad(
      await get(`verb=ListRecords&metadataPrefix=oai_dc&until=${encodeURIComponent(value)}`),
      'badArgument',
    );
  });

  it('for from and until of different granularities', async () => {
    expectBad(
      await get('verb=ListRecords&metadataPrefix=oai_dc&from=2026-01-01&until=2026-02-01T00:00:00Z'),
      'badArgument',
    );
    expectBad(
      await get('verb=ListIdentifiers&metadataPrefix=oai_dc&from=2026-01-01T00:00:00Z&until=2026-02-01'),
      'badArgument',
    );
  });

  it('for from later than until, at either granularity', async () => {
    expectBad(
      await get('verb=ListRecords&metadataPrefix=oai_dc&from=2026-02-02&until=2026-02-01'),
      'badArgument',
    );
    expectBad(
      await get(
        'verb=ListRecords&metadataPrefix=oai_dc&from=2026-02-01T00:00:01Z&until=2026-02-01T00:00:00Z',
      ),
      'badArgument',
    );
  });

  it('for a resumptionToken given with any other argument: it is exclusive', async () => {
    const first = await get('verb=ListIdentifiers&metadataPrefix=oai_dc');
    const token = at(first.root, 'ListIdentifiers', 'resumptionToken').text;
    expect(token).not.toBe('');
    const answer = await get(`verb=ListIdentifiers&metadataPrefix=oai_dc&resumptionToken=${token}`);
    expectBad(answer, 'badArgument');
    expect(errorsOf(answer)[0]!.message).toContain('exclusive');
    expectBad(await get(`verb=ListIdentifiers&from=2026-01-01&resumptionToken=${token}`), 'badArgument');
  });

  it('for an empty resumptionToken', async () => {
    expectBad(await get('verb=ListRecords&resumptionToken='), 'badArgument');
  });

  it('for a metadataPrefix or a set of an illegal syntax', async () => {
    expectBad(await get('verb=ListRecords&metadataPrefix=oai%20dc'), 'badArgument');
    expectBad(await get('verb=ListRecords&metadataPrefix='), 'badArgument');
    expectBad(await get('verb=ListRecords&metadataPrefix=oai_dc&set=type%3A'), 'badArgument');
    expectBad(await get('verb=ListRecords&metadataPrefix=oai_dc&set=a%20b'), 'badArgument');
  });

  it('reports every problem at once, each as its own error', async () => {
    const answer = await get('verb=ListRecords&foo=1&from=2026-99-01&metadataPrefix=oai_dc&metadataPrefix=x');
    expectBad(answer, 'badArgument', 3);
  });
});

describe('from and until', () => {
  const harvest = async (query: string) => {
    const answer = await get(`verb=ListIdentifiers&metadataPrefix=oai_dc&${query}`);
    if (codesOf(answer).length > 0) return codesOf(answer);
    return identifiersOf(at(answer.root, 'ListIdentifiers'));
  };

  it('a day as from starts at 00:00:00Z', async () => {
    expect(await harvest('from=2026-01-16&until=2026-01-31')).toEqual(['oai:repo.test:3']);
  });

  it('a day as until ends at 23:59:59Z', async () => {
    expect(await harvest('from=2026-01-11&until=2026-01-15')).toEqual(['oai:repo.test:2']);
  });

  it('the same day as from and until is that whole day', async () => {
    expect(await harvest('from=2026-01-15&until=2026-01-15')).toEqual(['oai:repo.test:2']);
  });

  it('a leap day is a date (2026-02-29 is not, above): valid, it selects what it holds', async () => {
    expect(await harvest('from=2024-02-29&until=2024-02-29')).toEqual(['noRecordsMatch']);
    expect(await harvest('from=2024-02-29T00:00:00Z&until=2026-01-10T08:00:00Z')).toEqual([
      'oai:repo.test:1',
    ]);
  });

  it('seconds are inclusive at both ends', async () => {
    expect(await harvest('from=2026-01-15T23:59:59Z&until=2026-01-16T00:00:00Z')).toEqual([
      'oai:repo.test:2',
      'oai:repo.test:3',
    ]);
    expect(await harvest('from=2026-01-16T00:00:01Z&until=2026-02-01T12:00:00Z')).toEqual([
      'oai:repo.test:4',
    ]);
  });

  it('until before the earliest datestamp is no error of its own: nothing matches', async () => {
    expect(await harvest('until=2025-12-31')).toEqual(['noRecordsMatch']);
    expect(await harvest('from=2027-01-01')).toEqual(['noRecordsMatch']);
  });
});

describe('ListIdentifiers and ListRecords', () => {
  it('ListIdentifiers gives headers only, asking the source for no metadata', async () => {
    const answer = await get('verb=ListIdentifiers&metadataPrefix=oai_dc&from=2026-01-16&until=2026-02-28');
    const list = at(answer.root, 'ListIdentifiers');
    expect(list.children.map((element) => element.name)).toEqual(['header', 'header', 'header']);
    expect(source.calls.find((call) => call.method === 'page')?.argument).toMatchObject({
      withMetadata: false,
    });
  });

  it('ListRecords gives each record its header and the metadata the format renders', async () => {
    const answer = await get('verb=ListRecords&metadataPrefix=title_only&from=2026-02-10&until=2026-02-10');
    const record = at(answer.root, 'ListRecords', 'record');
    expect(at(record, 'header', 'identifier').text).toBe('oai:repo.test:5');
    expect(at(record, 'header', 'datestamp').text).toBe('2026-02-10T10:00:00Z');
    expect(childrenNamed(child(record, 'header'), 'setSpec').map((spec) => spec.text)).toEqual([
      'type:url',
      'niveau:5e',
    ]);
    const dc = at(record, 'metadata', 'oai_dc:dc');
    expect(dc.children.map((element) => element.name)).toEqual(['dc:title']);
    // Escaped by the format, the character XML cannot carry dropped.
    expect(child(dc, 'dc:title').text).toBe('Fractions & <décimaux> "x" fin');
    expect(source.calls.find((call) => call.method === 'page')?.argument).toMatchObject({
      withMetadata: true,
    });
  });

  it('a deleted record is a header with status="deleted", without metadata nor sets', async () => {
    for (const verb of ['ListRecords', 'ListIdentifiers']) {
      const answer = await get(`verb=${verb}&metadataPrefix=oai_dc&from=2026-02-01&until=2026-02-01`);
      const list = at(answer.root, verb);
      const header = verb === 'ListRecords' ? at(list, 'record', 'header') : child(list, 'header');
      expect(header.attributes).toEqual({ status: 'deleted' });
      expect(header.children.map((element) => element.name)).toEqual(['identifier', 'datestamp']);
      if (verb === 'ListRecords') expect(childrenNamed(child(list, 'record'), 'metadata')).toEqual([]);
    }
  });

  it('selects a set', async () => {
    const answer = await get('verb=ListIdentifiers&metadataPrefix=oai_dc&set=type%3Aj3p');
    expect(identifiersOf(at(answer.root, 'ListIdentifiers'))).toEqual(['oai:repo.test:2', 'oai:repo.test:6']);
  });

  it('noRecordsMatch for a set no record is in, the arguments echoed', async () => {
    const answer = await get('verb=ListRecords&metadataPrefix=oai_dc&set=categorie%3A999');
    expect(codesOf(answer)).toEqual(['noRecordsMatch']);
    expect(requestOf(answer).attributes).toMatchObject({ set: 'categorie:999' });
  });

  it('noRecordsMatch when set and dates together match nothing', async () => {
    expect(
      codesOf(await get('verb=ListRecords&metadataPrefix=oai_dc&set=type%3Aj3p&from=2026-03-02')),
    ).toEqual(['noRecordsMatch']);
  });

  it('cannotDisseminateFormat for a format this repository has not, the arguments echoed', async () => {
    for (const verb of ['ListRecords', 'ListIdentifiers']) {
      const answer = await get(`verb=${verb}&metadataPrefix=marc21`);
      expect(codesOf(answer)).toEqual(['cannotDisseminateFormat']);
      expect(requestOf(answer).attributes).toEqual({ verb, metadataPrefix: 'marc21' });
    }
  });

  it('a list that fits one page carries no resumptionToken', async () => {
    const answer = await get('verb=ListRecords&metadataPrefix=oai_dc&set=type%3Aj3p');
    expect(childrenNamed(at(answer.root, 'ListRecords'), 'resumptionToken')).toEqual([]);
  });
});

describe('flow control', () => {
  /** Follows the tokens to the end: each page's identifiers and token element. */
  async function harvestAll(first: string, verb = 'ListIdentifiers') {
    const pages: { identifiers: string[]; token: XmlElement | undefined }[] = [];
    let query = first;
    for (let guard = 0; guard < 20; guard++) {
      const answer = await get(query);
      expect(codesOf(answer)).toEqual([]);
      const list = at(answer.root, verb);
      const token = childrenNamed(list, 'resumptionToken')[0];
      pages.push({ identifiers: identifiersOf(list), token });
      if (!token?.text) return pages;
      query = `verb=${verb}&resumptionToken=${encodeURIComponent(token.text)}`;
    }
    throw new Error('the harvest does not end');
  }

  it('pages through the list with completeListSize, cursor and expirationDate, the last token empty', async () => {
    const pages = await harvestAll('verb=ListIdentifiers&metadataPrefix=oai_dc');
    expect(pages.map((page) => page.identifiers.length)).toEqual([3, 3, 1]);
    expect(pages.flatMap((page) => page.identifiers)).toEqual(
      RECORDS.map((record) => `oai:repo.test:${record.oid}`),
    );
    const [first, second, last] = pages.map((page) => page.token!);
    expect(first!.attributes).toEqual({
      completeListSize: '7',
      cursor: '0',
      expirationDate: '2026-11-27T11:00:00Z',
    });
    expect(second!.attributes).toEqual({
      completeListSize: '7',
      cursor: '3',
      expirationDate: '2026-11-27T11:00:00Z',
    });
    expect(last!.attributes).toEqual({ completeListSize: '7', cursor: '6' });
    expect(last!.text).toBe('');
    // The list was counted once, and each page read after the last oid sent (a keyset, not an offset).
    expect(source.calls.filter((call) => call.method === 'count')).toHaveLength(1);
    expect(
      source.calls
        .filter((call) => call.method === 'page')
        .map((call) => (call.argument as { afterOid?: number; limit: number }).afterOid),
    ).toEqual([undefined, 3, 6]);
  });

  it('keeps the selection and the verb in the token: ListRecords with a set, pages of records', async () => {
    const pages = await harvestAll(
      'verb=ListRecords&metadataPrefix=title_only&set=type%3Aurl',
      'ListRecords',
    );
    expect(pages.map((page) => page.identifiers)).toEqual([
      ['oai:repo.test:1', 'oai:repo.test:3', 'oai:repo.test:5'],
      ['oai:repo.test:7'],
    ]);
    expect(pages[1]!.token!.attributes).toEqual({ completeListSize: '4', cursor: '3' });
    const secondPage = source.calls.filter((call) => call.method === 'page')[1]!.argument;
    expect(secondPage).toEqual({ set: 'type:url', afterOid: 5, limit: 3, withMetadata: true });
  });

  it('keeps from and until in the token, as the bounds the first request meant', async () => {
    await harvestAll('verb=ListIdentifiers&metadataPrefix=oai_dc&from=2026-01-01&until=2026-02-28');
    const pageRequests = source.calls.filter((call) => call.method === 'page').map((call) => call.argument);
    expect(pageRequests).toHaveLength(2);
    for (const pageRequest of pageRequests) {
      expect(pageRequest).toMatchObject({
        from: new Date('2026-01-01T00:00:00Z'),
        until: new Date('2026-02-28T23:59:59Z'),
      });
    }
  });

  it('stays exact while records change during the harvest: none twice, none missed, a new one at the end', async () => {
    const first = await get('verb=ListIdentifiers&metadataPrefix=oai_dc');
    const token = at(first.root, 'ListIdentifiers', 'resumptionToken').text;
    // Between two pages: a record already sent changes, one not yet sent changes, one is removed, one is created.
    source.put({ oid: 2, datestamp: new Date('2026-11-27T09:00:00Z'), setSpecs: ['type:j3p'] });
    source.put({ oid: 6, datestamp: new Date('2026-11-27T09:00:00Z'), setSpecs: ['type:j3p'] });
    source.remove(5, new Date('2026-11-27T09:30:00Z'));
    source.put({ oid: 8, datestamp: new Date('2026-11-27T09:45:00Z'), setSpecs: [] });
    const pages = await harvestAll(`verb=ListIdentifiers&resumptionToken=${encodeURIComponent(token)}`);
    const seen = [
      ...identifiersOf(at(first.root, 'ListIdentifiers')),
      ...pages.flatMap((page) => page.identifiers),
    ];
    expect(seen).toEqual([1, 2, 3, 4, 5, 6, 7, 8].map((oid) => `oai:repo.test:${oid}`));
  });

  it('a resumed page that finds nothing left is noRecordsMatch (an empty list is not a response)', async () => {
    const first = await get('verb=ListIdentifiers&metadataPrefix=oai_dc&set=type%3Aurl');
    const token = at(first.root, 'ListIdentifiers', 'resumptionToken').text;
    source.put({ oid: 7, datestamp: new Date('2026-11-27T09:00:00Z'), setSpecs: ['type:j3p'] });
    const answer = await get(`verb=ListIdentifiers&resumptionToken=${encodeURIComponent(token)}`);
    expect(codesOf(answer)).toEqual(['noRecordsMatch']);
  });

  it('answers a token again with the same page (§3.5.1: idempotent while nothing changes)', async () => {
    const token = at(
      (await get('verb=ListRecords&metadataPrefix=oai_dc')).root,
      'ListRecords',
      'resumptionToken',
    ).text;
    const once = await get(`verb=ListRecords&resumptionToken=${token}`);
    const again = await get(`verb=ListRecords&resumptionToken=${token}`);
    expect(codesOf(once)).toEqual([]);
    expect(again.text).toBe(once.text);
  });

  it('honours the configured page size', async () => {
    const answer = await get('verb=ListIdentifiers&metadataPrefix=oai_dc', appOver(source, { pageSize: 5 }));
    expect(identifiersOf(at(answer.root, 'ListIdentifiers'))).toHaveLength(5);
  });
});

describe('badResumptionToken', () => {
  const firstToken = async (verb = 'ListRecords') =>
    at((await get(`verb=${verb}&metadataPrefix=oai_dc`)).root, verb, 'resumptionToken').text;

  async function expectRefused(query: string, app = appOver()) {
    const answer = await get(query, app);
    expect(codesOf(answer)).toEqual(['badResumptionToken']);
    // Not badArgument: the arguments are echoed (§3.2).
    expect(requestOf(answer).attributes).toEqual(Object.fromEntries(new URLSearchParams(query)));
    return answer;
  }

  it('refuses a token with one byte of its payload changed', async () => {
    const token = await firstToken();
    const index = 5;
    const changed = token.slice(0, index) + (token[index] === 'A' ? 'B' : 'A') + token.slice(index + 1);
    await expectRefused(`verb=ListRecords&resumptionToken=${changed}`);
  });

  it('refuses a token with its signature changed or cut', async () => {
    const token = await firstToken();
    const last = token.at(-1) === 'A' ? 'B' : 'A';
    await expectRefused(`verb=ListRecords&resumptionToken=${token.slice(0, -1)}${last}`);
    await expectRefused(`verb=ListRecords&resumptionToken=${token.slice(0, -4)}`);
  });

  it('refuses a token that is not one at all', async () => {
    for (const token of ['garbage', 'a.b.c', 'a.', '.b', 'é.é', '%00']) {
      await expectRefused(`verb=ListRecords&resumptionToken=${encodeURIComponent(token)}`);
    }
  });

  it('refuses a token another repository signed (another secret)', async () => {
    const token = await firstToken();
    const answer = await expectRefused(
      `verb=ListRecords&resumptionToken=${token}`,
      appOver(source, { secret: 'another-secret-0123456789' }),
    );
    expect(errorsOf(answer)[0]!.message).toContain('not one this repository issued');
  });

  it('refuses an expired token, and honours it until then', async () => {
    const token = await firstToken();
    now = new Date(START.getTime() + 3600_000 - 1000);
    expect(codesOf(await get(`verb=ListRecords&resumptionToken=${token}`))).toEqual([]);
    now = new Date(START.getTime() + 3600_000);
    const answer = await expectRefused(`verb=ListRecords&resumptionToken=${token}`);
    expect(errorsOf(answer)[0]!.message).toContain('expired');
  });

  it("refuses another verb's token", async () => {
    await expectRefused(`verb=ListRecords&resumptionToken=${await firstToken('ListIdentifiers')}`);
    await expectRefused(`verb=ListIdentifiers&resumptionToken=${await firstToken('ListRecords')}`);
  });

  it('refuses any token given to ListSets, which is answered whole', async () => {
    await expectRefused(`verb=ListSets&resumptionToken=${await firstToken()}`);
  });

  it('refuses a token whose format the provider no longer has', async () => {
    const token = at(
      (await get('verb=ListRecords&metadataPrefix=title_only')).root,
      'ListRecords',
      'resumptionToken',
    ).text;
    await expectRefused(`verb=ListRecords&resumptionToken=${token}`, appOver(source, {}, [oaiDc]));
  });
});

describe('GetRecord', () => {
  it('gives the record in the format asked', async () => {
    for (const [prefix, elements] of [
      ['oai_dc', ['dc:title', 'dc:identifier']],
      ['title_only', ['dc:title']],
    ] as const) {
      const answer = await get(`verb=GetRecord&identifier=oai%3Arepo.test%3A5&metadataPrefix=${prefix}`);
      const record = at(answer.root, 'GetRecord', 'record');
      expect(at(record, 'header', 'identifier').text).toBe('oai:repo.test:5');
      expect(at(record, 'metadata', 'oai_dc:dc').children.map((e) => e.name)).toEqual(elements);
    }
    const dc = at(
      (await get('verb=GetRecord&identifier=oai%3Arepo.test%3A1&metadataPrefix=oai_dc')).root,
      'GetRecord',
      'record',
      'metadata',
      'oai_dc:dc',
    );
    expect(child(dc, 'dc:title').text).toBe('Ressource 1');
  });

  it('gives a deleted record as its header only, in any format', async () => {
    const answer = await get('verb=GetRecord&identifier=oai%3Arepo.test%3A4&metadataPrefix=title_only');
    const record = at(answer.root, 'GetRecord', 'record');
    expect(record.children.map((element) => element.name)).toEqual(['header']);
    expect(child(record, 'header').attributes.status).toBe('deleted');
    expect(at(record, 'header', 'datestamp').text).toBe('2026-02-01T12:00:00Z');
  });

  it.each([
    ['an unknown oid', 'oai:repo.test:99'],
    ['another repository', 'oai:other.example:1'],
    ['another scheme', 'hdl:repo.test:1'],
    ['a leading zero', 'oai:repo.test:01'],
    ['no local part', 'oai:repo.test:'],
    ['a local part that is no oid', 'oai:repo.test:abc'],
    ['an oid past any integer', 'oai:repo.test:99999999999999999999'],
    ['no identifier at all', ''],
  ])('idDoesNotExist for %s', async (_case, identifier) => {
    const answer = await get(
      `verb=GetRecord&identifier=${encodeURIComponent(identifier)}&metadataPrefix=oai_dc`,
    );
    expect(codesOf(answer)).toEqual(['idDoesNotExist']);
    expect(requestOf(answer).attributes.identifier).toBe(identifier);
  });

  it('cannotDisseminateFormat for a format this repository has not', async () => {
    const answer = await get('verb=GetRecord&identifier=oai%3Arepo.test%3A1&metadataPrefix=lom');
    expect(codesOf(answer)).toEqual(['cannotDisseminateFormat']);
  });

  it('both errors at once when both hold', async () => {
    const answer = await get('verb=GetRecord&identifier=oai%3Arepo.test%3A99&metadataPrefix=lom');
    expect(codesOf(answer)).toEqual(['cannotDisseminateFormat', 'idDoesNotExist']);
  });
});

describe('ListMetadataFormats', () => {
  const formatsOf = (answer: Answer) =>
    childrenNamed(at(answer.root, 'ListMetadataFormats'), 'metadataFormat').map((format) =>
      Object.fromEntries(format.children.map((element) => [element.name, element.text])),
    );
  const ALL = [
    {
      metadataPrefix: 'oai_dc',
      schema: 'http://www.openarchives.org/OAI/2.0/oai_dc.xsd',
      metadataNamespace: 'http://www.openarchives.org/OAI/2.0/oai_dc/',
    },
    {
      metadataPrefix: 'title_only',
      schema: 'http://www.openarchives.org/OAI/2.0/oai_dc.xsd',
      metadataNamespace: 'http://www.openarchives.org/OAI/2.0/oai_dc/',
    },
  ];

  it('lists every format', async () => {
    expect(formatsOf(await get('verb=ListMetadataFormats'))).toEqual(ALL);
  });

  it('lists every format for an item, deleted or not: never noMetadataFormats', async () => {
    expect(formatsOf(await get('verb=ListMetadataFormats&identifier=oai%3Arepo.test%3A1'))).toEqual(ALL);
    expect(formatsOf(await get('verb=ListMetadataFormats&identifier=oai%3Arepo.test%3A4'))).toEqual(ALL);
  });

  it('idDoesNotExist for an item this repository has not', async () => {
    const answer = await get('verb=ListMetadataFormats&identifier=oai%3Arepo.test%3A99');
    expect(codesOf(answer)).toEqual(['idDoesNotExist']);
    expect(requestOf(answer).attributes).toEqual({
      verb: 'ListMetadataFormats',
      identifier: 'oai:repo.test:99',
    });
  });

  it('the provider refuses to start without oai_dc, which every item must have (so noMetadataFormats cannot happen)', () => {
    expect(() => appOver(source, {}, [titleOnly])).toThrow(/oai_dc/);
    expect(() => appOver(source, {}, [oaiDc, oaiDc])).toThrow(/share a metadataPrefix/);
  });
});

describe('ListSets', () => {
  it('lists every set with its name', async () => {
    const list = at((await get('verb=ListSets')).root, 'ListSets');
    expect(
      childrenNamed(list, 'set').map((set) => [child(set, 'setSpec').text, child(set, 'setName').text]),
    ).toEqual(SETS.map((set) => [set.spec, set.name]));
  });

  it('noSetHierarchy when the repository has no set at all', async () => {
    const answer = await get('verb=ListSets', appOver(new MemoryHarvestSource(RECORDS, [])));
    expect(codesOf(answer)).toEqual(['noSetHierarchy']);
    expect(requestOf(answer).attributes).toEqual({ verb: 'ListSets' });
  });
});

describe('HTTP', () => {
  const REQUESTS = [
    'verb=Identify',
    'verb=ListMetadataFormats&identifier=oai%3Arepo.test%3A3',
    'verb=ListSets',
    'verb=ListIdentifiers&metadataPrefix=oai_dc&from=2026-01-01',
    'verb=ListRecords&metadataPrefix=title_only&set=type%3Aurl',
    'verb=GetRecord&identifier=oai%3Arepo.test%3A5&metadataPrefix=oai_dc',
    'verb=GetRecord&identifier=oai%3Arepo.test%3A5&metadataPrefix=oai_dc&metadataPrefix=lom',
    'verb=Nope',
    'verb=ListRecords&metadataPrefix=oai_dc&from=2026-01-01&until=2026-01-01T00:00:00Z',
  ];

  it.each(REQUESTS)('GET and POST give the same answer: %s', async (query) => {
    const byGet = await get(query);
    const byPost = await post(query);
    expect(byPost.status).toBe(200);
    expect(byPost.contentType).toBe(byGet.contentType);
    expect(byPost.text).toBe(byGet.text);
  });

  it('a token obtained by GET resumes by POST', async () => {
    const token = at(
      (await get('verb=ListRecords&metadataPrefix=oai_dc')).root,
      'ListRecords',
      'resumptionToken',
    );
    const answer = await post(`verb=ListRecords&resumptionToken=${encodeURIComponent(token.text)}`);
    expect(identifiersOf(at(answer.root, 'ListRecords'))).toEqual([
      'oai:repo.test:4',
      'oai:repo.test:5',
      'oai:repo.test:6',
    ]);
  });

  it('a POST body other than a form is refused with 415, in OAI-PMH XML', async () => {
    const response = await request(appOver())
      .post('/oai')
      .set('Content-Type', 'application/json')
      .send(JSON.stringify({ verb: 'Identify' }));
    expect(response.status).toBe(415);
    expect(response.headers['accept-post']).toBe('application/x-www-form-urlencoded');
    const answer = await respond(response);
    expect(answer.contentType).toBe('text/xml; charset=utf-8');
    expect(codesOf(answer)).toEqual(['badArgument']);
  });

  it('a POST without a body has no argument: badVerb', async () => {
    expectBad(await respond(await request(appOver()).post('/oai')), 'badVerb');
  });

  it("an argument in both the POST's query string and its body is repeated", async () => {
    const response = await request(appOver()).post('/oai?verb=Identify').type('form').send('verb=Identify');
    expectBad(await respond(response), 'badVerb');
  });

  it('a form body too large is refused with 413, in OAI-PMH XML', async () => {
    const response = await request(appOver())
      .post('/oai')
      .type('form')
      .send(`verb=Identify&padding=${'x'.repeat(20_000)}`);
    expect(response.status).toBe(413);
    expect(codesOf(await respond(response))).toEqual(['badArgument']);
  });

  it('HEAD answers as GET does, without the body', async () => {
    const response = await request(appOver()).head('/oai?verb=Identify');
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('text/xml; charset=utf-8');
    expect(response.text ?? '').toBe('');
  });

  it('other methods are refused with 405 and the methods allowed', async () => {
    const response = await request(appOver()).put('/oai?verb=Identify');
    expect(response.status).toBe(405);
    expect(response.headers.allow).toBe('GET, HEAD, POST');
    expect(codesOf(await respond(response))).toEqual(['badArgument']);
  });

  it('reads arguments percent-encoded and form-encoded alike', async () => {
    const answer = await get('verb=GetRecord&identifier=oai:repo.test:3&metadataPrefix=oai_dc');
    expect(at(answer.root, 'GetRecord', 'record', 'header', 'identifier').text).toBe('oai:repo.test:3');
  });
});
