/**
 * A resource's licence (issue 33: the field followed end to end from the catalogue): an SPDX
 * licence expression or the http(s) URL of a licence, optional. Written and read through GraphQL
 * and REST by the callers who may, refused with the legacy message when invalid (nothing saved),
 * filterable and sortable in lists, kept by export and import, and harvested: `dc:rights` and LOM's
 * `rights`, a change giving the record a new datestamp.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { db } from '../../src/db/client.ts';
import { exportFile } from '../../src/transfer/export.service.ts';
import { importFile } from '../../src/transfer/import.service.ts';
import { logIn, tokenHeaders } from '../support/actors.ts';
import { labUser } from '../support/fake-lab.ts';
import { appTest } from '../support/fixtures.ts';
import { errorCode, graphql } from '../support/graphql.ts';
import { createResource, readResource } from '../support/resources.ts';
import { scratchDir } from '../support/scratch.ts';

const test = appTest.override({ labId: 'labL' });

const SAVE = `mutation ($input: ResourceInput!) {
  saveResource(input: $input) { __typename ... on SaveResourceResult { oid warnings } ... on Error { code message } }
}`;
const READ = `query ($oid: Int!) { resource(oid: $oid) { __typename ... on Resource { oid licence } } }`;

/** A new origin, so that each test lists its own resources only. */
const origin = () => `lic${Math.random().toString(36).slice(2, 10)}`;

describe('a resource’s licence', () => {
  test('is written and read through GraphQL, SPDX identifiers in their canonical case', async ({ app }) => {
    const client = app.client();
    for (const [given, stored] of [
      ['CC-BY-SA-4.0', 'CC-BY-SA-4.0'],
      ['cc-by-4.0 or mit', 'CC-BY-4.0 OR MIT'],
      ['Etalab-2.0', 'etalab-2.0'],
      ['https://creativecommons.org/licenses/by/4.0/', 'https://creativecommons.org/licenses/by/4.0/'],
      [null, null],
    ] as const) {
      const saved = await graphql(
        client,
        SAVE,
        { input: { origine: origin(), idOrigine: '1', titre: 'Licence', type: 'url', licence: given } },
        tokenHeaders,
      );
      expect(saved.data?.saveResource.__typename, JSON.stringify(saved)).toBe('SaveResourceResult');
      const read = await graphql(client, READ, { oid: saved.data!.saveResource.oid }, tokenHeaders);
      expect(read.data?.resource.licence, String(given)).toBe(stored);
    }
  });

  test('is refused when it is neither an SPDX expression nor an http(s) URL, and nothing is saved', async ({
    app,
  }) => {
    const origine = origin();
    for (const licence of [
      'libre de droits',
      'CC-BY-SA-9.9',
      'ftp://licences.example/x',
      '',
      'x'.repeat(256),
    ]) {
      const saved = await graphql(
        app.client(),
        SAVE,
        { input: { origine, idOrigine: '1', titre: 'Licence', type: 'url', licence } },
        tokenHeaders,
      );
      expect(errorCode(saved, 'saveResource'), licence).toBe('INVALID_INPUT');
      expect(saved.data?.saveResource.message).toMatch(/^licence : /);
    }
    expect(await db.resource.count({ where: { origine } })).toBe(0);
    const rest = await app
      .client()
      .post('/api/ressource')
      .set(tokenHeaders)
      .send({ origine, idOrigine: '1', titre: 'Licence', type: 'url', licence: 'libre de droits' });
    expect(rest.status).toBe(400);
    expect(rest.body).toEqual({
      success: false,
      error:
        'licence : doit être une expression de licence SPDX (CC-BY-SA-4.0) ou l’URL http(s) d’une licence',
    });
    expect(await db.resource.count({ where: { origine } })).toBe(0);
  });

  test('is written and read through REST, after the historical fields', async ({ app }) => {
    const oid = await createResource(app, { origine: origin(), idOrigine: '1', licence: 'CC-BY-NC-4.0' });
    const legacy = (await readResource(app, oid))!;
    expect(legacy.licence).toBe('CC-BY-NC-4.0');
    expect(Object.keys(legacy).slice(-2)).toEqual(['licence', 'relations']);
    // A merge that does not name it keeps it; one that does changes it.
    const merged = await app
      .client()
      .post('/api/ressource?merge=1')
      .set(tokenHeaders)
      .send({ oid, resume: 'Autre résumé' });
    expect(merged.status, JSON.stringify(merged.body)).toBe(200);
    expect((await readResource(app, oid))!.licence).toBe('CC-BY-NC-4.0');
    await app.client().post('/api/ressource?merge=1').set(tokenHeaders).send({ oid, licence: null });
    expect((await readResource(app, oid))!.licence).toBeNull();
  });

  test('is written by a teacher on their own resource, not by an anonymous caller', async ({ app, lab }) => {
    const user = labUser({ type: 1 });
    const teacher = await logIn(app, lab, user);
    const pid = `${lab.baseId}/${user.oid}`;
    const oid = await createResource(app, { origine: origin(), idOrigine: '1', auteurs: [pid] });
    const own = await graphql(teacher, SAVE, { input: { oid, licence: 'CC0-1.0' } }, {});
    expect(own.data?.saveResource.__typename, JSON.stringify(own)).toBe('SaveResourceResult');
    expect((await readResource(app, oid))!.licence).toBe('CC0-1.0');
    const anonymous = await graphql(app.client(), SAVE, { input: { oid, licence: 'MIT' } }, {});
    expect(anonymous.data?.saveResource ?? null).not.toMatchObject({ __typename: 'SaveResourceResult' });
    expect((await readResource(app, oid))!.licence).toBe('CC0-1.0');
  });

  test('filters and orders lists', async ({ app }) => {
    const origine = origin();
    const bySa = await createResource(app, { origine, idOrigine: '1', licence: 'CC-BY-SA-4.0' });
    const by = await createResource(app, { origine, idOrigine: '2', licence: 'CC-BY-4.0' });
    const none = await createResource(app, { origine, idOrigine: '3' });
    const list = async (filters: unknown[], extra = '') => {
      const response = await app
        .client()
        .get(`/api/liste?filters=${encodeURIComponent(JSON.stringify(filters))}&format=full${extra}`)
        .set(tokenHeaders);
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      return response.body.liste.map((item: { oid: number }) => item.oid);
    };
    const mine = { index: 'origine', values: [origine] };
    expect(await list([mine, { index: 'licence', values: ['CC-BY-SA-4.0'] }])).toEqual([bySa]);
    expect(await list([mine, { index: 'licence' }])).toEqual([bySa, by]);
    // Where nulls sort differs between the databases: the licensed ones' order is compared alone.
    const all = (await list([mine], '&orderBy=licence&order=asc')) as number[];
    expect(all.filter((oid) => oid !== none)).toEqual([by, bySa]);
    expect(all).toContain(none);
    const ordered = (await list([mine, { index: 'licence' }], '&orderBy=licence&order=asc')) as number[];
    expect(ordered).toEqual([by, bySa]);
  });

  test('is kept by export and import', async ({ app }) => {
    const origine = origin();
    const oid = await createResource(app, { origine, idOrigine: '1', licence: 'CC-BY-SA-4.0' });
    const file = join(scratchDir('licence'), 'export.jsonl');
    await exportFile(file, { baseId: app.config.baseId });
    const line = readFileSync(file, 'utf8')
      .split('\n')
      .find((text) => text.includes(`"origine":"${origine}"`));
    expect(JSON.parse(line!).ressource.licence).toBe('CC-BY-SA-4.0');
    await app.client().post('/api/ressource?merge=1').set(tokenHeaders).send({ oid, licence: 'MIT' });
    expect((await readResource(app, oid))!.licence).toBe('MIT');
    const report = await importFile(file, {
      baseId: app.config.baseId,
      roleNames: Object.keys(app.config.roles),
    });
    expect(report.resources.updated).toBeGreaterThanOrEqual(1);
    expect((await readResource(app, oid))!.licence).toBe('CC-BY-SA-4.0');
  });

  test('is harvested in both formats, and a change of it gives the record a new datestamp', async ({
    app,
  }) => {
    const oid = await createResource(app, { origine: origin(), idOrigine: '1', licence: 'CC-BY-SA-4.0' });
    const identify = await app.client().get('/oai?verb=Identify');
    const repository = /<repositoryIdentifier>([^<]+)</.exec(identify.text)![1];
    const record = async (metadataPrefix: string) => {
      const response = await app
        .client()
        .get(`/oai?verb=GetRecord&metadataPrefix=${metadataPrefix}&identifier=oai:${repository}:${oid}`);
      expect(response.status).toBe(200);
      return response.text;
    };
    expect(await record('oai_dc')).toContain('<dc:rights>CC-BY-SA-4.0</dc:rights>');
    const lom = await record('lom');
    expect(lom).toMatch(/<copyrightAndOtherRestrictions>.*<value>yes<\/value>/s);
    expect(lom).toContain('Licence : CC-BY-SA-4.0.');

    const longAgo = new Date('2001-01-01T00:00:00Z');
    const restamped = async (change: Record<string, unknown>) => {
      await db.harvestEntry.update({ where: { oid }, data: { datestamp: longAgo } });
      const saved = await app
        .client()
        .post('/api/ressource?merge=1')
        .set(tokenHeaders)
        .send({ oid, ...change });
      expect(saved.status, JSON.stringify(saved.body)).toBe(200);
      const entry = await db.harvestEntry.findUniqueOrThrow({ where: { oid } });
      return entry.datestamp.getTime() > longAgo.getTime();
    };
    expect(await restamped({ licence: 'CC-BY-4.0' })).toBe(true);
    expect(await restamped({ commentaires: 'sans effet sur les notices' })).toBe(false);
    expect(await restamped({ licence: null })).toBe(true);
    expect(await record('oai_dc')).not.toContain('CC-BY');
  });
});
