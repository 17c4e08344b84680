/**
 * The OAI-PMH metadata formats (src/oai/formats/) and the XML Schema validator the OAI tests share
 * (test/support/xml-schema.ts).
 *
 * Records are rendered inside a minimal GetRecord response and validated whole against the vendored
 * OAI-PMH 2.0, oai_dc and IEEE LOM schemas: OAI-PMH.xsd checks `<metadata>` content strictly, so a
 * record that passes is what a validating harvester accepts. Each xmllint run compiles the schemas
 * again (about a second), so the property tests draw their resources first and validate them in one
 * run, with the seed in the failure message to replay it.
 */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CATEGORIES,
  DOCUMENTARY_TYPES,
  LANGUAGES,
  LEVELS,
  PEDAGOGIC_TYPES,
  RESOURCE_TYPES,
} from '../../src/modules/resources/vocabulary.ts';
import { createLomFormat, metadataFormats, oaiDcFormat } from '../../src/oai/formats/index.ts';
import { vCard } from '../../src/oai/formats/lom.ts';
import type { HarvestPerson, HarvestResource, MetadataFormat } from '../../src/oai/harvest-source.ts';
import { escapeAttribute, escapeText } from '../../src/oai/xml.ts';
import { expectValidOai, validateOai, validateOaiDocuments } from '../support/xml-schema.ts';

const REPOSITORY = 'bibliotheque.example.org';
const lomFormat = createLomFormat({ repositoryIdentifier: REPOSITORY });
const FORMATS: MetadataFormat[] = [oaiDcFormat, lomFormat];
const XML_FORBIDDEN = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

function getRecord(metadata: string, prefix = 'oai_dc'): string {
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    '<OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"' +
    ' xsi:schemaLocation="http://www.openarchives.org/OAI/2.0/ http://www.openarchives.org/OAI/2.0/OAI-PMH.xsd">\n' +
    '<responseDate>2026-11-27T10:00:00Z</responseDate>\n' +
    `<request verb="GetRecord" identifier="oai:${REPOSITORY}:1" metadataPrefix="${prefix}">https://${REPOSITORY}/oai</request>\n` +
    `<GetRecord><record><header><identifier>oai:${REPOSITORY}:1</identifier>` +
    '<datestamp>2026-11-27T09:00:00Z</datestamp><setSpec>type:j3p</setSpec></header>\n' +
    `<metadata>${metadata}</metadata></record></GetRecord>\n</OAI-PMH>\n`
  );
}

function identify(description: string): string {
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    '<OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/">' +
    '<responseDate>2026-11-27T10:00:00Z</responseDate>' +
    `<request verb="Identify">https://${REPOSITORY}/oai</request>` +
    '<Identify><repositoryName>Bibliothèque</repositoryName>' +
    `<baseURL>https://${REPOSITORY}/oai</baseURL><protocolVersion>2.0</protocolVersion>` +
    '<adminEmail>admin@example.org</adminEmail><earliestDatestamp>2020-01-01T00:00:00Z</earliestDatestamp>' +
    '<deletedRecord>persistent</deletedRecord><granularity>YYYY-MM-DDThh:mm:ssZ</granularity>' +
    `<description>${description}</description></Identify></OAI-PMH>`
  );
}

const oaiIdentifier = (repositoryIdentifier: string) =>
  '<oai-identifier xmlns="http://www.openarchives.org/OAI/2.0/oai-identifier"' +
  ' xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://www.openarchives.org/OAI/2.0/oai-identifier http://www.openarchives.org/OAI/2.0/oai-identifier.xsd">' +
  `<scheme>oai</scheme><repositoryIdentifier>${repositoryIdentifier}</repositoryIdentifier>` +
  `<delimiter>:</delimiter><sampleIdentifier>oai:${REPOSITORY}:42</sampleIdentifier></oai-identifier>`;

const person = (prenom: string, nom: string, pid = 'labo/1'): HarvestPerson => ({ pid, prenom, nom });

function resource(overrides: Partial<HarvestResource> = {}): HarvestResource {
  return {
    oid: 1,
    rid: 'labo/1',
    titre: 'Fractions égales',
    resume: 'Reconnaître des fractions égales.',
    description: 'Dix questions, de difficulté croissante.',
    langue: 'fra',
    type: 'j3p',
    niveaux: ['6e'],
    categories: [7],
    typePedagogiques: [9],
    typeDocumentaires: [9],
    dateCreation: '2019-09-02T08:30:00.000Z',
    licence: null,
    adresse: null,
    publicUrl: `https://${REPOSITORY}/api/public/1`,
    authors: [person('Marie', 'Curie')],
    contributors: [],
    ...overrides,
  };
}

/** The decoded text of every `<name …>text</name>` (elements with no element inside). */
function texts(xml: string, name: string): string[] {
  const pattern = new RegExp(`<${name}(?:\\s[^>]*)?>([^<]*)</${name}>`, 'g');
  return [...xml.matchAll(pattern)].map((match) => decode(match[1] as string));
}

/** Resolves the references escapeText and escapeAttribute write: the five entities, decimal ones. */
function decode(text: string): string {
  const entities: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
  return text.replace(/&(amp|lt|gt|quot|apos|#\d+);/g, (_, name: string) =>
    name.startsWith('#') ? String.fromCodePoint(Number(name.slice(1))) : (entities[name] as string),
  );
}

/** `[source, value]` of every LOM vocabulary element `<name>` of a record. */
function vocabularyValues(xml: string, name: string): [string, string][] {
  const pattern = new RegExp(`<${name}><source>([^<]*)</source><value>([^<]*)</value></${name}>`, 'g');
  return [...xml.matchAll(pattern)].map((match) => [decode(match[1] as string), decode(match[2] as string)]);
}

/** The LOMv1.0 values of each vocabulary, read from the binding's own list (common/vocabValues.xsd). */
const LOM_VALUES: Record<string, Set<string>> = (() => {
  const xsd = readFileSync(new URL('../schemas/lom/common/vocabValues.xsd', import.meta.url), 'utf8');
  const result: Record<string, Set<string>> = {};
  for (const match of xsd.matchAll(/<xs:simpleType name="(\w+)Values">([\s\S]*?)<\/xs:simpleType>/g)) {
    result[match[1] as string] = new Set(
      [...(match[2] as string).matchAll(/<xs:enumeration value="([^"]*)"\/>/g)].map((m) => m[1] as string),
    );
  }
  return result;
})();

/** Every `<source>LOMv1.0</source>` value of a LOM record that is not a LOMv1.0 value of its element. */
function nonLomValues(xml: string): string[] {
  return [...xml.matchAll(/<(\w+)><source>LOMv1\.0<\/source><value>([^<]*)<\/value><\/\1>/g)].flatMap(
    ([, name, value]) => (LOM_VALUES[name as string]?.has(value as string) ? [] : [`${name}=${value}`]),
  );
}

describe('the OAI-PMH validator', () => {
  it('accepts a GetRecord response in each format, and an Identify with an oai-identifier description', async () => {
    const errors = await validateOaiDocuments([
      getRecord(oaiDcFormat.render(resource())),
      getRecord(lomFormat.render(resource()), 'lom'),
      identify(oaiIdentifier(REPOSITORY)),
    ]);
    expect(errors).toEqual([[], [], []]);
  });

  it('rejects what the schemas forbid, in the envelope, the records and the description', async () => {
    const dc = oaiDcFormat.render(resource());
    const lom = lomFormat.render(resource());
    const cases: [string, string, RegExp][] = [
      [
        'no responseDate',
        getRecord(dc).replace(/<responseDate>[^<]*<\/responseDate>/, ''),
        /Expected is \( \{http:\/\/www\.openarchives\.org\/OAI\/2\.0\/\}responseDate \)/,
      ],
      ['a datestamp not in UTC', getRecord(dc).replace('09:00:00Z', '09:00:00+01:00'), /datestamp/],
      [
        'an element oai_dc does not have',
        getRecord(dc.replace('<dc:title', '<dc:titre').replace('</dc:title>', '</dc:titre>')),
        /titre/,
      ],
      [
        'a LOM element out of place',
        getRecord(lom.replace('<technical>', '<technical><title/>'), 'lom'),
        /title/,
      ],
      [
        'a LOM element twice that may appear once',
        getRecord(lom.replace('</general>', '</general><general/>'), 'lom'),
        /lomUnique/,
      ],
      [
        'a LOM date LOM cannot write',
        getRecord(lom.replace(/<dateTime>[^<]*/, '<dateTime>2019-13-02'), 'lom'),
        /dateTime/,
      ],
      [
        'a LOM language that is no language tag',
        getRecord(lom.replace('<language>fr', '<language>fr!'), 'lom'),
        /language/,
      ],
      [
        'metadata in a namespace no schema describes',
        getRecord('<x:record xmlns:x="urn:example:unknown"/>'),
        /strict wildcard/,
      ],
      ['no metadata at all in <metadata>', getRecord(''), /metadata/],
      [
        'an oai-identifier with a malformed repository identifier',
        identify(oaiIdentifier('not a domain')),
        /repositoryIdentifier/,
      ],
      ['a record alone, with no envelope', dc, /root element is not OAI-PMH/],
      [
        'an envelope in no namespace',
        getRecord(dc).replace(' xmlns="http://www.openarchives.org/OAI/2.0/"', ''),
        /namespace/,
      ],
      ['a character XML 1.0 forbids', getRecord(dc.replace('Fractions', 'Frac\u0001tions')), /error/],
      ['a document that is not well-formed', getRecord(dc).replace('</GetRecord>', ''), /error/],
    ];
    const errors = await validateOaiDocuments(cases.map(([, xml]) => xml));
    cases.forEach(([what, , expected], i) => {
      expect(errors[i], what).not.toEqual([]);
      expect(errors[i]?.join('\n'), what).toMatch(expected);
    });
  });

  it('validates one document with validateOai and fails a test with expectValidOai', async () => {
    expect(await validateOai(getRecord(oaiDcFormat.render(resource())))).toEqual([]);
    await expect(expectValidOai(getRecord('<x/>'))).rejects.toThrow(/Expected is \( ##other/);
  });
});

describe('escapeText and escapeAttribute', () => {
  it('escape markup, drop what XML 1.0 cannot carry, keep every other character', () => {
    for (const escapeValue of [escapeText, escapeAttribute]) {
      expect(escapeValue(`a<b>&"c'`)).toBe('a&lt;b&gt;&amp;&quot;c&apos;');
      expect(escapeValue(']]>')).toBe(']]&gt;');
      expect(escapeValue('\u0000a\u0008\u000Bb\u001F\uFFFE\uFFFFc')).toBe('abc');
      expect(escapeValue('x\uD800y\uDFFFz')).toBe('xyz');
      expect(escapeValue(' é 😀 \uE000 \uFFFD \u0085 \u2028')).toBe(' é 😀 \uE000 \uFFFD \u0085 \u2028');
    }
  });

  it('write CR as a reference, and in attributes TAB and LF too: a parser normalises them raw', () => {
    expect(escapeText('a\r\nb\rc\td\ne')).toBe('a&#13;\nb&#13;c\td\ne');
    expect(escapeAttribute('a\r\nb\rc\td\ne')).toBe('a&#13;&#10;b&#13;c&#9;d&#10;e');
  });

  it('leave no markup character, no forbidden one and nothing a parser would normalise, for any string', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (value) => {
        const text = escapeText(value);
        const attribute = escapeAttribute(value);
        for (const escaped of [text, attribute]) {
          expect(escaped).not.toMatch(/[<>"'\r]|&(?!(amp|lt|gt|quot|apos|#9|#10|#13);)/);
          expect(escaped).not.toMatch(XML_FORBIDDEN);
          expect(decode(escaped)).toBe(value.replace(XML_FORBIDDEN, ''));
        }
        expect(attribute).not.toMatch(/[\t\n]/);
      }),
    );
  });
});

describe('the formats', () => {
  it('are oai_dc then lom, with the addresses ListMetadataFormats gives', () => {
    expect(
      metadataFormats({ repositoryIdentifier: REPOSITORY }).map((f) => [
        f.metadataPrefix,
        f.schema,
        f.metadataNamespace,
      ]),
    ).toEqual([
      [
        'oai_dc',
        'http://www.openarchives.org/OAI/2.0/oai_dc.xsd',
        'http://www.openarchives.org/OAI/2.0/oai_dc/',
      ],
      ['lom', 'http://ltsc.ieee.org/xsd/lomv1.0/lomLoose.xsd', 'http://ltsc.ieee.org/xsd/LOM'],
    ]);
    for (const format of FORMATS) {
      const root = /^<([\w:]+) xmlns(?::\w+)?="([^"]+)"/.exec(format.render(resource()));
      expect(root?.[2]).toBe(format.metadataNamespace);
      expect(format.render(resource())).toContain(`${format.metadataNamespace} ${format.schema}"`);
    }
  });

  it('render every value of every vocabulary into valid records', async () => {
    const resources = [
      ...Object.keys(LEVELS).map((level) => resource({ niveaux: [level] })),
      resource({ niveaux: Object.keys(LEVELS) }),
      ...Object.keys(RESOURCE_TYPES).map((type) => resource({ type })),
      resource({ categories: Object.keys(CATEGORIES).map(Number) }),
      resource({ typePedagogiques: Object.keys(PEDAGOGIC_TYPES).map(Number) }),
      resource({ typeDocumentaires: Object.keys(DOCUMENTARY_TYPES).map(Number) }),
      ...Object.keys(LANGUAGES).map((langue) => resource({ langue })),
      // Names of Object's members, which a lookup in a plain object would find (oai_dc failed on them).
      ...['constructor', '__proto__', 'toString', 'hasOwnProperty'].map((name) =>
        resource({ langue: name, type: name, niveaux: [name] }),
      ),
    ];
    const documents = FORMATS.flatMap((format) =>
      resources.map((r) => getRecord(format.render(r), format.metadataPrefix)),
    );
    expect((await validateOaiDocuments(documents)).flat()).toEqual([]);
    for (const r of resources) expect(nonLomValues(lomFormat.render(r))).toEqual([]);
  });
});

/** Text from the whole domain: any code point, lone surrogates, markup, XML's own delimiters. */
const text = (maxLength = 6): fc.Arbitrary<string> =>
  fc
    .array(
      fc.oneof(
        { weight: 5, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }) },
        { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 30 }) },
        {
          weight: 2,
          arbitrary: fc.constantFrom(
            '',
            ' ',
            ']]>',
            '<&"\'>',
            '\u0000',
            '\uFFFE',
            '\r\n',
            '\\,;',
            '&amp;',
            '<!--',
          ),
        },
        { weight: 1, arbitrary: fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c)) },
        { weight: 1, arbitrary: fc.nat({ max: 20_000 }).map((n) => 'é'.repeat(n)) },
      ),
      { maxLength },
    )
    .map((parts) => parts.join(''));

const oneOf = <T>(known: readonly T[], unknown: fc.Arbitrary<T>) =>
  fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...known) }, { weight: 1, arbitrary: unknown });

const numericIds = (vocabulary: Record<number, string>) =>
  fc.array(oneOf(Object.keys(vocabulary).map(Number), fc.integer()), { maxLength: 12 });

const personArbitrary = fc.record({ pid: text(2), nom: text(3), prenom: text(3) });

const resourceArbitrary: fc.Arbitrary<HarvestResource> = fc.record({
  oid: fc.nat(),
  rid: text(2),
  titre: text(),
  resume: text(),
  description: text(),
  langue: oneOf(Object.keys(LANGUAGES), text(1)),
  type: oneOf(Object.keys(RESOURCE_TYPES), text(1)),
  niveaux: fc.array(oneOf(Object.keys(LEVELS), text(1)), { maxLength: 15 }),
  categories: numericIds(CATEGORIES),
  typePedagogiques: numericIds(PEDAGOGIC_TYPES),
  typeDocumentaires: numericIds(DOCUMENTARY_TYPES),
  // As the DateTime scalar serializes a date: its ISO text, years outside 0–9999 included.
  dateCreation: fc.date({ noInvalidDate: true }).map((date) => date.toISOString()),
  licence: fc.option(
    oneOf(['CC-BY-SA-4.0', 'CC-BY-4.0 OR MIT', 'https://creativecommons.org/licenses/by/4.0/'], text(2)),
  ),
  adresse: fc.option(text(3)),
  publicUrl: text(2),
  authors: fc.array(personArbitrary, { maxLength: 25 }),
  contributors: fc.array(personArbitrary, { maxLength: 25 }),
});

describe('any resource', () => {
  it.each(FORMATS.map((format) => [format.metadataPrefix, format] as const))(
    'renders into a valid %s record',
    async (_, format) => {
      const seed = Date.now();
      const resources = fc.sample(resourceArbitrary, { numRuns: 300, seed });
      const errors = await validateOaiDocuments(
        resources.map((r) => getRecord(format.render(r), format.metadataPrefix)),
      );
      errors.forEach((list, i) => {
        expect(list, `seed ${seed}, resource ${i}: ${JSON.stringify(resources[i])}`).toEqual([]);
      });
      if (format === lomFormat) {
        for (const r of resources) expect(nonLomValues(format.render(r))).toEqual([]);
      }
    },
    60_000,
  );

  it('keeps its title, whatever its characters, less those XML cannot carry', () => {
    fc.assert(
      fc.property(text(), (titre) => {
        const kept = titre.replace(XML_FORBIDDEN, '');
        // Blank is XML's white space only: any other character is kept, a no-break space too.
        const expected = /^[ \t\n\r]*$/.test(kept) ? [] : [kept];
        expect(texts(oaiDcFormat.render(resource({ titre })), 'dc:title')).toEqual(expected);
        const lom = lomFormat.render(resource({ titre }));
        expect(texts(/<title>(.*?)<\/title>/s.exec(lom)?.[1] ?? '', 'string')).toEqual(expected);
      }),
    );
  });

  it('escapes a person name into one vCard property each for FN and N', () => {
    fc.assert(
      fc.property(personArbitrary, (p) => {
        const card = vCard(p);
        if (card === null) {
          expect(`${p.prenom}${p.nom}`.trim()).toBe('');
          return;
        }
        const lines = card.split('\n');
        expect(lines[0]).toBe('BEGIN:VCARD');
        expect(lines[1]).toBe('VERSION:3.0');
        expect(lines[2]).toMatch(/^FN:/);
        expect(lines[3]).toMatch(/^N:/);
        expect(lines[4]).toBe('END:VCARD');
        expect(lines).toHaveLength(5);
        // N has exactly five components: no unescaped ; came from the name.
        expect(lines[3]?.slice(2).split(/(?<!\\)(?:\\\\)*;/)).toHaveLength(5);
      }),
    );
  });
});

describe('oai_dc', () => {
  const dc = (overrides: Partial<HarvestResource> = {}) => oaiDcFormat.render(resource(overrides));

  it('gives title, people, subjects, descriptions, date, types, identifiers, language and rights', () => {
    const xml = dc({
      niveaux: ['6e', '5e', 'inconnu'],
      categories: [7, 404],
      authors: [person('Marie', 'Curie'), person(' ', ' '), person('', 'Noether')],
      contributors: [person('Ada', 'Lovelace')],
      adresse: 'https://ailleurs.example.net/exercice?a=1&b=2',
      typeDocumentaires: [9, 12],
    });
    expect(texts(xml, 'dc:title')).toEqual(['Fractions égales']);
    expect(xml).toContain('<dc:title xml:lang="fr">');
    expect(texts(xml, 'dc:creator')).toEqual(['Marie Curie', 'Noether']);
    expect(texts(xml, 'dc:contributor')).toEqual(['Ada Lovelace']);
    expect(texts(xml, 'dc:subject')).toEqual(['Sixième', 'Cinquième', 'Exercice interactif']);
    expect(texts(xml, 'dc:description')).toEqual([
      'Reconnaître des fractions égales.',
      'Dix questions, de difficulté croissante.',
    ]);
    expect(texts(xml, 'dc:date')).toEqual(['2019-09-02']);
    expect(texts(xml, 'dc:type')).toEqual(['activité j3p', 'InteractiveResource', 'Text']);
    expect(texts(xml, 'dc:identifier')).toEqual([
      `https://${REPOSITORY}/api/public/1`,
      'https://ailleurs.example.net/exercice?a=1&b=2',
    ]);
    expect(texts(xml, 'dc:language')).toEqual(['fr']);
    expect(texts(xml, 'dc:rights')).toEqual([expect.stringContaining('restriction : aucune')]);
  });

  it('gives the licence a resource states as a rights statement of its own', () => {
    for (const licence of ['CC-BY-SA-4.0', 'https://creativecommons.org/licenses/by/4.0/']) {
      const rights = texts(dc({ licence }), 'dc:rights');
      expect(rights).toEqual([expect.stringContaining('restriction : aucune'), licence]);
    }
  });

  it('gives ISO 639-1 tags where they exist, an unknown three-letter code as is, and no garbage', () => {
    const tags = Object.keys(LANGUAGES).map((langue) => texts(dc({ langue }), 'dc:language')[0]);
    expect(tags).toEqual(['de', 'en', 'ar', 'eu', 'br', 'ca', 'es', 'fr', 'it', 'pt']);
    expect(texts(dc({ langue: 'oci' }), 'dc:language')).toEqual(['oci']);
    expect(texts(dc({ langue: 'français' }), 'dc:language')).toEqual([]);
    expect(dc({ langue: '' })).not.toContain('xml:lang');
  });

  it('leaves out what is blank or unknown rather than writing empty or made-up elements', () => {
    const xml = dc({
      titre: ' \u0000 ',
      resume: '',
      description: '\uD800',
      type: 'inconnu',
      niveaux: [],
      categories: [],
      typeDocumentaires: [],
      authors: [],
      dateCreation: new Date(Date.UTC(-50, 0, 1)).toISOString(),
    });
    for (const name of ['title', 'description', 'type', 'subject', 'creator', 'date']) {
      expect(xml).not.toContain(`<dc:${name}`);
    }
  });
});

describe('lom', () => {
  const lom = (overrides: Partial<HarvestResource> = {}) => lomFormat.render(resource(overrides));

  it('identifies the resource by repository identifier and rid, and by its public URL', () => {
    const xml = lom();
    expect(xml).toContain(`<identifier><catalog>${REPOSITORY}</catalog><entry>labo/1</entry></identifier>`);
    expect(xml).toContain(
      `<identifier><catalog>URI</catalog><entry>https://${REPOSITORY}/api/public/1</entry></identifier>`,
    );
  });

  it('tags title, descriptions and language with the resource language, and the keywords in French', () => {
    const xml = lom({ langue: 'eng', titre: 'Equal fractions', categories: [7], typePedagogiques: [9, 191] });
    expect(xml).toContain('<title><string language="en">Equal fractions</string></title>');
    expect(xml).toContain(
      '<description><string language="en">Reconnaître des fractions égales.</string></description>',
    );
    expect(texts(/<general>.*<\/general>/s.exec(xml)?.[0] ?? '', 'language')).toEqual(['en']);
    expect(
      [...xml.matchAll(/<keyword><string language="fr">([^<]*)<\/string><\/keyword>/g)].map((m) => m[1]),
    ).toEqual(['Exercice interactif', 'exercice', 'QCM (question à choix multiples)']);
  });

  it('gives authors and contributors as vCards, escaping , ; \\ and line breaks in names', () => {
    const xml = lom({
      authors: [person('Jean\nLuc', 'Dupont, Jr; \\x')],
      contributors: [person('Ada', 'Lovelace')],
    });
    const entities = texts(xml, 'entity');
    expect(entities).toEqual([
      'BEGIN:VCARD\nVERSION:3.0\nFN:Jean\\nLuc Dupont\\, Jr\\; \\\\x\nN:Dupont\\, Jr\\; \\\\x;Jean\\nLuc;;;\nEND:VCARD',
      'BEGIN:VCARD\nVERSION:3.0\nFN:Ada Lovelace\nN:Lovelace;Ada;;;\nEND:VCARD',
    ]);
    expect(vocabularyValues(xml, 'role')).toEqual([
      ['LOMv1.0', 'author'],
      ['LOMv1.0', 'unknown'],
    ]);
    // The authors' contribution is dated by the creation, in the form LOM's DateTime pattern admits.
    expect(texts(xml, 'dateTime')).toEqual(['2019-09-02T08:30:00.000Z']);
    expect(lom({ authors: [], contributors: [] })).not.toContain('<lifeCycle>');
  });

  it('locates the resource at its own address, else at its public page', () => {
    expect(texts(lom({ adresse: 'https://ailleurs.example.net/a?b=1&c=2' }), 'location')).toEqual([
      'https://ailleurs.example.net/a?b=1&c=2',
    ]);
    expect(texts(lom({ adresse: null }), 'location')).toEqual([`https://${REPOSITORY}/api/public/1`]);
  });

  it('gives levels as ScoLOMFR taxon paths, context school and merged typical age ranges', () => {
    const xml = lom({ niveaux: ['5e', '6e', 'cp', 'tle', 'inconnu'] });
    // Concept URIs as published in ScoLOMFR v3.1 (vocabulary 022), checked there.
    const ids = [...xml.matchAll(/<taxon><id>([^<]*)<\/id>/g)].map((m) =>
      m[1]?.replace(/.*scolomfr-voc-022-/, ''),
    );
    expect(ids).toEqual([
      'num-016',
      'num-020',
      'num-016',
      'num-018',
      'num-008',
      'num-010',
      'num-142',
      'num-088',
    ]);
    expect(xml).toContain(
      '<string language="x-none">http://data.education.fr/voc/scolomfr/scolomfr-voc-022</string>',
    );
    expect(vocabularyValues(xml, 'purpose')).toEqual([['LOMv1.0', 'educational level']]);
    expect(vocabularyValues(xml, 'context')).toEqual([['LOMv1.0', 'school']]);
    expect(texts(xml, 'string').filter((s) => /^\d+-\d+$/.test(s))).toEqual(['6-7', '11-13', '17-18']);
    expect(lom({ niveaux: ['inconnu'] })).not.toContain('<classification>');
  });

  it('gives learning resource types in LOMv1.0 and as ScoLOMFR concepts, each once', () => {
    const xml = lom({ type: 'j3p', typePedagogiques: [9, 7, 82, 91, 12345] });
    expect(vocabularyValues(xml, 'learningResourceType')).toEqual([
      ['LOMv1.0', 'exercise'],
      [
        'http://data.education.fr/voc/scolomfr/scolomfr-voc-010',
        'http://data.education.fr/voc/scolomfr/concept/exercise',
      ],
      [
        'http://data.education.fr/voc/scolomfr/scolomfr-voc-010',
        'http://data.education.fr/voc/scolomfr/concept/scolomfr-voc-010-num-007',
      ],
      [
        'http://data.education.fr/voc/scolomfr/scolomfr-voc-010',
        'http://data.education.fr/voc/scolomfr/concept/scolomfr-voc-010-num-0082',
      ],
    ]);
    expect(vocabularyValues(lom({ type: 'url', typePedagogiques: [] }), 'learningResourceType')).toEqual([]);
  });

  it('states free access, and no copyright claim either way', () => {
    const xml = lom();
    expect(vocabularyValues(xml, 'cost')).toEqual([['LOMv1.0', 'no']]);
    expect(xml).not.toContain('copyrightAndOtherRestrictions');
    expect(/<rights>.*<\/rights>/s.exec(xml)?.[0]).toContain('restriction : aucune');
  });

  it('states the licence a resource states: its use is then subject to conditions', () => {
    const xml = lom({ licence: 'CC-BY-SA-4.0' });
    expect(vocabularyValues(xml, 'cost')).toEqual([['LOMv1.0', 'no']]);
    expect(vocabularyValues(xml, 'copyrightAndOtherRestrictions')).toEqual([['LOMv1.0', 'yes']]);
    const rights = /<rights>.*<\/rights>/s.exec(xml)?.[0];
    expect(rights).toContain('restriction : aucune');
    expect(rights).toContain('Licence : CC-BY-SA-4.0.');
  });
});
