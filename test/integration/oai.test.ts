/**
 * The OAI-PMH data provider as a harvester meets it (issue 26): `/oai` on the service, over the
 * GraphQL harvest source and the database's harvest entries, every answer validated against the
 * OAI-PMH 2.0, oai_dc, oai-identifier and LOM schemas (test/schemas/). The protocol's own rules
 * (arguments, errors, tokens) are driven in test/unit/oai-protocol.test.ts; what the source exposes,
 * in test/integration/harvest.test.ts.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_TOKEN, startApp, type TestApp } from '../support/app.ts';
import { createResource } from '../support/resources.ts';
import { validateOaiDocuments } from '../support/xml-schema.ts';
import { at, childrenNamed, parseXml, type XmlElement } from '../support/xml-tree.ts';

let app: TestApp;
const PAGE_SIZE = 3;

beforeAll(async () => {
  app = await startApp({
    baseUrl: 'http://repo.example.org/',
    oai: { pageSize: PAGE_SIZE, adminEmail: ['oai@example.org'] },
  });
});

afterAll(async () => {
  await app.close();
});

const oai = async (query: Record<string, string>) => {
  const response = await app.client().get('/oai').query(query);
  expect(response.status).toBe(200);
  expect(response.headers['content-type']).toBe('text/xml; charset=utf-8');
  return response.text;
};

const update = async (oid: number, fields: Record<string, unknown>) => {
  const response = await app
    .client()
    .post('/api/ressource')
    .query({ merge: '1' })
    .set('X-ApiToken', API_TOKEN)
    .send({ oid, ...fields });
  expect(response.body.success, JSON.stringify(response.body)).toBe(true);
};

const identifierOf = (oid: number) => `oai:repo.example.org:${oid}`;

/** Every header of a list, following resumption tokens to the end. */
async function listHeaders(verb: 'ListIdentifiers' | 'ListRecords', query: Record<string, string>) {
  const headers: XmlElement[] = [];
  const pages: string[] = [];
  let next: Record<string, string> = { verb, ...query };
  for (;;) {
    const body = await oai(next);
    pages.push(body);
    const root = await parseXml(body);
    const errors = childrenNamed(root, 'error');
    // An empty selection is an error in OAI-PMH (the schema forbids an empty list).
    if (errors.length === 1 && errors[0]!.attributes.code === 'noRecordsMatch') return { headers, pages };
    expect(errors).toEqual([]);
    const list = at(root, verb);
    const items = verb === 'ListRecords' ? childrenNamed(list, 'record').map((r) => at(r, 'header')) : [];
    headers.push(...(verb === 'ListRecords' ? items : childrenNamed(list, 'header')));
    const token = childrenNamed(list, 'resumptionToken')[0];
    if (!token?.text) return { headers, pages };
    next = { verb, resumptionToken: token.text };
  }
}

const oidsOf = (headers: XmlElement[]) =>
  headers.map((header) => Number(at(header, 'identifier').text.split(':')[2]));

describe('/oai on the service', () => {
  it('answers every verb with documents the OAI-PMH, oai_dc, oai-identifier and LOM schemas accept', async () => {
    const oid = await createResource(app, {
      titre: 'Fractions <égales> & "équivalentes"',
      resume: 'Résumé',
      niveaux: ['6e', '5e'],
      categories: [7],
      parametres: { adresse: 'https://example.org/fractions' },
    });
    const documents = [
      await oai({ verb: 'Identify' }),
      await oai({ verb: 'ListMetadataFormats' }),
      await oai({ verb: 'ListMetadataFormats', identifier: identifierOf(oid) }),
      await oai({ verb: 'ListSets' }),
      await oai({ verb: 'ListIdentifiers', metadataPrefix: 'oai_dc' }),
      await oai({ verb: 'ListRecords', metadataPrefix: 'oai_dc' }),
      await oai({ verb: 'ListRecords', metadataPrefix: 'lom', set: 'niveau:6e' }),
      await oai({ verb: 'GetRecord', metadataPrefix: 'oai_dc', identifier: identifierOf(oid) }),
      await oai({ verb: 'GetRecord', metadataPrefix: 'lom', identifier: identifierOf(oid) }),
      await oai({ verb: 'GetRecord', metadataPrefix: 'lom', identifier: identifierOf(999_999_999) }),
      await oai({ verb: 'Nonsense' }),
    ];
    expect(await validateOaiDocuments(documents)).toEqual(documents.map(() => []));

    const identify = at(await parseXml(documents[0]!), 'Identify');
    expect(at(identify, 'baseURL').text).toBe('http://repo.example.org/oai');
    expect(at(identify, 'adminEmail').text).toBe('oai@example.org');
    expect(at(identify, 'deletedRecord').text).toBe('persistent');
    const record = at(await parseXml(documents[7]!), 'GetRecord', 'record');
    expect(at(record, 'header', 'identifier').text).toBe(identifierOf(oid));
    expect(at(record, 'metadata', 'oai_dc:dc', 'dc:title').text).toBe('Fractions <égales> & "équivalentes"');
    expect(documents[9]).toContain('code="idDoesNotExist"');
    expect(documents[10]).toContain('code="badVerb"');
  });

  it('exposes public, published resources only: every restricted kind is unknown to a harvester', async () => {
    const exposed = await createResource(app, { titre: 'Exposée' });
    const hidden = [
      await createResource(app, { titre: 'Correction', restriction: 1 }),
      await createResource(app, { titre: 'Groupe', restriction: 2 }),
      await createResource(app, { titre: 'Privée', restriction: 3 }),
      await createResource(app, { titre: 'Brouillon', publie: false }),
      await createResource(app, { titre: 'Non listée', indexable: false }),
    ];
    const { headers } = await listHeaders('ListIdentifiers', { metadataPrefix: 'oai_dc' });
    const oids = oidsOf(headers);
    expect(oids).toContain(exposed);
    for (const oid of hidden) {
      expect(oids).not.toContain(oid);
      const answer = await oai({
        verb: 'GetRecord',
        metadataPrefix: 'oai_dc',
        identifier: identifierOf(oid),
      });
      expect(answer).toContain('code="idDoesNotExist"');
    }
  });

  it('gives an incremental harvest the deletion, the unpublication and the change of restriction as deleted records', async () => {
    const [deleted, unpublished, restricted, changed] = [
      await createResource(app, { titre: 'Supprimée' }),
      await createResource(app, { titre: 'Dépubliée' }),
      await createResource(app, { titre: 'Restreinte' }),
      await createResource(app, { titre: 'Modifiée' }),
    ];
    // Datestamps are to the second: the changes come in a later second than the creations.
    await new Promise((done) => setTimeout(done, 1100));
    const from = new Date(Math.floor(Date.now() / 1000) * 1000).toISOString().replace('.000Z', 'Z');
    const before = oidsOf((await listHeaders('ListIdentifiers', { metadataPrefix: 'oai_dc', from })).headers);
    expect(before).not.toContain(deleted);
    const removed = await app.client().delete(`/api/ressource/${deleted}`).set('X-ApiToken', API_TOKEN);
    expect(removed.body.success).toBe(true);
    await update(unpublished, { publie: false });
    await update(restricted, { restriction: 2 });
    await update(changed, { titre: 'Modifiée, deux' });

    const { headers, pages } = await listHeaders('ListRecords', { metadataPrefix: 'lom', from });
    expect(await validateOaiDocuments(pages)).toEqual(pages.map(() => []));
    const byOid = new Map(headers.map((header) => [oidsOf([header])[0]!, header]));
    for (const oid of [deleted, unpublished, restricted]) {
      expect(byOid.get(oid)?.attributes.status, `oid ${oid}`).toBe('deleted');
      expect(at(byOid.get(oid)!, 'datestamp').text >= from).toBe(true);
    }
    expect(byOid.get(changed)?.attributes.status).toBeUndefined();
    // Before the changes, none of them was in this window.
    const until = new Date(new Date(from).getTime() - 1000).toISOString().replace('.000Z', 'Z');
    const earlier = oidsOf(
      (await listHeaders('ListIdentifiers', { metadataPrefix: 'oai_dc', until })).headers,
    );
    for (const oid of [deleted, unpublished, restricted]) expect(earlier).not.toContain(oid);
    // A deleted record stays known: GetRecord answers its deleted header.
    const gone = await oai({
      verb: 'GetRecord',
      metadataPrefix: 'oai_dc',
      identifier: identifierOf(deleted),
    });
    expect(at(await parseXml(gone), 'GetRecord', 'record', 'header').attributes.status).toBe('deleted');
  });

  it('keeps a harvest exact while resources change between its pages: each record once, none skipped', async () => {
    const ours = [];
    for (let i = 0; i < PAGE_SIZE * 3; i++) ours.push(await createResource(app, { titre: `Pendant ${i}` }));
    const seen: number[] = [];
    let next: Record<string, string> = { verb: 'ListIdentifiers', metadataPrefix: 'oai_dc' };
    let changedOnce = false;
    for (;;) {
      const list = at(await parseXml(await oai(next)), 'ListIdentifiers');
      seen.push(...oidsOf(childrenNamed(list, 'header')));
      if (!changedOnce && seen.includes(ours[0]!)) {
        // One record already harvested and one still ahead change; a new one comes.
        changedOnce = true;
        await update(ours[0]!, { titre: 'Déjà moissonnée, modifiée' });
        await update(ours.at(-1)!, { titre: 'Pas encore moissonnée, modifiée' });
        ours.push(await createResource(app, { titre: 'Arrivée pendant la moisson' }));
      }
      const token = childrenNamed(list, 'resumptionToken')[0];
      if (!token?.text) break;
      next = { verb: 'ListIdentifiers', resumptionToken: token.text };
    }
    expect(changedOnce).toBe(true);
    expect(new Set(seen).size).toBe(seen.length);
    for (const oid of ours) expect(seen).toContain(oid);
  });

  it('is described in the OpenAPI document and answers POSTed forms as GET', async () => {
    const document = await app.client().get('/api/openapi.json');
    expect(Object.keys(document.body.paths)).toContain('/oai');
    const posted = await app.client().post('/oai').type('form').send({ verb: 'Identify' });
    expect(posted.status).toBe(200);
    const got = await oai({ verb: 'Identify' });
    const strip = (xml: string) => xml.replace(/<responseDate>[^<]*<\/responseDate>/, '');
    expect(strip(posted.text)).toBe(strip(got));
  });
});

/** The characters XML 1.0 has no way to write, even as a character reference (its production Char). */
const NOT_XML = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

/**
 * Any well-formed Unicode text the API stores (NUL is refused before it), biased towards what XML
 * writes specially: line ends and tabs, markup, characters it cannot carry, Unicode's own line ends.
 */
const storedText = () =>
  fc
    .string({
      unit: fc.oneof(
        { weight: 4, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
        {
          weight: 3,
          arbitrary: fc.constantFrom('\r', '\n', '\r\n', '\t', ' ', '<', '&', '>', ']]>', '"', "'", '&#13;'),
        },
        {
          weight: 1,
          arbitrary: fc.constantFrom('\u0001', '\u001F', '\uFFFE', '\uFFFF', '\u0085', '\u2028', '\u00A0'),
        },
      ),
      maxLength: 40,
    })
    .map((text) => text.replaceAll('\u0000', ''));

/** What a harvester reads of a stored text: the text less what XML cannot carry, nothing when blank. */
const harvestedAs = (stored: string) => {
  const kept = stored.replace(NOT_XML, '');
  return /^[ \t\n\r]*$/.test(kept) ? [] : [kept];
};

const FUZZ_SEED = Number(process.env.FUZZ_SEED ?? 20_261_127);
const FUZZ_RUNS = Number(process.env.FUZZ_RUNS ?? 15);

describe('/oai text, as a harvester’s parser reads it', () => {
  /** The texts a record carries of the resource's title and descriptions, in oai_dc and in LOM. */
  async function harvestedTexts(oid: number) {
    const record = async (metadataPrefix: string) =>
      at(
        await parseXml(await oai({ verb: 'GetRecord', metadataPrefix, identifier: identifierOf(oid) })),
        'GetRecord',
        'record',
        'metadata',
      );
    const [dcRecord, lomRecord] = await Promise.all([record('oai_dc'), record('lom')]);
    const dc = at(dcRecord, 'oai_dc:dc');
    const general = at(lomRecord, 'lom', 'general');
    const strings = (elements: XmlElement[]) => elements.map((element) => at(element, 'string').text);
    return {
      oai_dc: {
        title: childrenNamed(dc, 'dc:title').map((element) => element.text),
        descriptions: childrenNamed(dc, 'dc:description').map((element) => element.text),
      },
      lom: {
        title: strings(childrenNamed(general, 'title')),
        descriptions: strings(childrenNamed(general, 'description')),
      },
    };
  }

  it('keeps carriage returns: a stored CR is read back as CR, not as the LF a raw one becomes', async () => {
    const titre = 'Sonde T\r\nligne';
    const resume = 'Un\rdeux\r';
    const description = '\r\nTrois\n\r\n';
    const oid = await createResource(app, { titre, resume, description });
    const expected = { title: [titre], descriptions: [resume, description] };
    expect(await harvestedTexts(oid)).toEqual({ oai_dc: expected, lom: expected });
  });

  it('echoes arguments with their tabs and line breaks, which a parser turns into spaces in a raw attribute', async () => {
    const identifier = 'oai:repo.example.org:1\tun\ndeux\r\ntrois\r';
    const resumptionToken = 'jeton\t\n\r fin';
    for (const [query, code] of [
      [{ verb: 'GetRecord', metadataPrefix: 'oai_dc', identifier }, 'idDoesNotExist'],
      [{ verb: 'ListMetadataFormats', identifier }, 'idDoesNotExist'],
      [{ verb: 'ListRecords', resumptionToken }, 'badResumptionToken'],
    ] as const) {
      const root = await parseXml(await oai(query));
      expect(childrenNamed(root, 'error').map((error) => error.attributes.code)).toEqual([code]);
      expect(at(root, 'request').attributes).toEqual(query);
    }
    const errorText = at(
      await parseXml(await oai({ verb: 'GetRecord', metadataPrefix: 'oai_dc', identifier })),
      'error',
    ).text;
    expect(errorText).toContain(`"${identifier}"`);
  });

  it('gives back any text stored through the API, less only the characters XML 1.0 cannot carry', async () => {
    const oid = await createResource(app, { titre: 'Propriété' });
    await fc.assert(
      fc.asyncProperty(storedText(), storedText(), storedText(), async (titre, resume, description) => {
        await update(oid, { titre, resume, description });
        const expected = {
          title: harvestedAs(titre),
          descriptions: [...harvestedAs(resume), ...harvestedAs(description)],
        };
        expect(await harvestedTexts(oid)).toEqual({ oai_dc: expected, lom: expected });
      }),
      { seed: FUZZ_SEED, numRuns: FUZZ_RUNS },
    );
  }, 60_000);
});

describe('/oai sets', () => {
  it('lists the set hierarchy: each kind of set is the parent of its values', async () => {
    const root = await parseXml(await oai({ verb: 'ListSets' }));
    const specs = childrenNamed(at(root, 'ListSets'), 'set').map((set) => at(set, 'setSpec').text);
    for (const parent of ['type', 'niveau', 'categorie']) expect(specs).toContain(parent);
    expect(specs).toContain('niveau:6e');
    for (const spec of specs.filter((spec) => spec.includes(':')))
      expect(specs, `parent of ${spec}`).toContain(spec.split(':')[0]);
  });

  it('selects the records of a parent set: those in any of its children (OAI-PMH §2.6)', async () => {
    const leveled = await createResource(app, { titre: 'Avec niveau', niveaux: ['4e'], categories: [] });
    const unleveled = await createResource(app, { titre: 'Sans niveau', niveaux: [], categories: [] });
    const inLevels = oidsOf(
      (await listHeaders('ListIdentifiers', { metadataPrefix: 'oai_dc', set: 'niveau' })).headers,
    );
    expect(inLevels).toContain(leveled);
    expect(inLevels).not.toContain(unleveled);
    const inTypes = oidsOf(
      (await listHeaders('ListIdentifiers', { metadataPrefix: 'oai_dc', set: 'type' })).headers,
    );
    expect(inTypes).toEqual(expect.arrayContaining([leveled, unleveled]));
    const inCategories = oidsOf(
      (await listHeaders('ListIdentifiers', { metadataPrefix: 'oai_dc', set: 'categorie' })).headers,
    );
    expect(inCategories).not.toContain(leveled);
    // A header names the sets it is in at their most specific (§2.6), not their parents.
    const record = await oai({
      verb: 'GetRecord',
      metadataPrefix: 'oai_dc',
      identifier: identifierOf(leveled),
    });
    const specs = childrenNamed(at(await parseXml(record), 'GetRecord', 'record', 'header'), 'setSpec');
    expect(specs.map((spec) => spec.text)).toEqual(['type:url', 'niveau:4e']);
  });

  it('answers a well-formed set no record is in with noRecordsMatch, a malformed one with badArgument', async () => {
    for (const set of ['inconnu', 'type:inconnu', 'categorie:999999', 'niveau:zz', 'inconnu:x:y']) {
      const answer = await oai({ verb: 'ListIdentifiers', metadataPrefix: 'oai_dc', set });
      expect(answer, set).toContain('code="noRecordsMatch"');
    }
    const malformed = await oai({ verb: 'ListIdentifiers', metadataPrefix: 'oai_dc', set: 'a b' });
    expect(malformed).toContain('code="badArgument"');
  });
});

describe('/oai errors on the service', () => {
  it('answers each protocol error with its code, a schema-valid document and nothing echoed it should not', async () => {
    const oid = await createResource(app, { titre: 'Pour les erreurs' });
    for (let i = 0; i < PAGE_SIZE; i++) await createResource(app, { titre: `Page ${i}` });
    const first = await oai({ verb: 'ListIdentifiers', metadataPrefix: 'oai_dc' });
    const token = /<resumptionToken[^>]*>([^<]+)<\/resumptionToken>/.exec(first)?.[1];
    expect(token, first).toBeDefined();
    const tampered = `${token!.slice(0, -2)}${token!.at(-2) === 'A' ? 'B' : 'A'}${token!.at(-1)}`;
    const cases: [Record<string, string>, string][] = [
      [{}, 'badVerb'],
      [{ verb: 'ListThings' }, 'badVerb'],
      [{ verb: 'ListRecords' }, 'badArgument'],
      [{ verb: 'ListRecords', metadataPrefix: 'oai_dc', from: '2026-13-01' }, 'badArgument'],
      [
        { verb: 'ListRecords', metadataPrefix: 'oai_dc', from: '2026-01-02', until: '2026-01-01' },
        'badArgument',
      ],
      [
        { verb: 'ListRecords', metadataPrefix: 'oai_dc', from: '2026-01-01', until: '2026-01-02T00:00:00Z' },
        'badArgument',
      ],
      [{ verb: 'Identify', color: 'blue' }, 'badArgument'],
      [{ verb: 'ListIdentifiers', resumptionToken: tampered }, 'badResumptionToken'],
      [{ verb: 'ListRecords', resumptionToken: token! }, 'badResumptionToken'],
      [{ verb: 'ListRecords', metadataPrefix: 'marc21' }, 'cannotDisseminateFormat'],
      [{ verb: 'GetRecord', metadataPrefix: 'oai_dc', identifier: 'oai:elsewhere.org:1' }, 'idDoesNotExist'],
      [{ verb: 'ListMetadataFormats', identifier: identifierOf(999_999_999) }, 'idDoesNotExist'],
      [{ verb: 'ListRecords', metadataPrefix: 'oai_dc', until: '1990-01-01' }, 'noRecordsMatch'],
    ];
    const documents: string[] = [];
    for (const [query, code] of cases) {
      const body = await oai(query);
      documents.push(body);
      const root = await parseXml(body);
      expect(
        childrenNamed(root, 'error').map((error) => error.attributes.code),
        JSON.stringify(query),
      ).toContain(code);
      if (code === 'badVerb' || code === 'badArgument') expect(at(root, 'request').attributes).toEqual({});
    }
    // A repeated argument, as a query string alone can carry it.
    const repeated = await app.client().get('/oai?verb=ListRecords&metadataPrefix=oai_dc&metadataPrefix=lom');
    expect(repeated.text).toContain('code="badArgument"');
    documents.push(repeated.text);
    expect(await validateOaiDocuments(documents)).toEqual(documents.map(() => []));
    // The same token, untouched, goes on.
    expect(await oai({ verb: 'ListIdentifiers', resumptionToken: token! })).not.toContain('<error');
    expect(oid).toBeGreaterThan(0);
  });
});
