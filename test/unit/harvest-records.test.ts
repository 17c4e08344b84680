/**
 * The harvest module's half of the rule of what is harvested: each entry the read model gives is
 * checked against the resources' policy (`isHarvestable`), so a row with metadata of a resource that
 * is not harvestable (which the read model's statements withhold too: test/integration/harvest.test.ts)
 * still gives a deleted record without metadata.
 */
import { describe, expect, it } from 'vitest';
import { harvestRecordOf } from '../../src/modules/harvest/harvest.service.ts';
import type { HarvestMetadata, HarvestRow } from '../../src/read-model/harvest.ts';

const metadata = (fields: Partial<HarvestMetadata> = {}): HarvestMetadata => ({
  publie: true,
  restriction: 0,
  indexable: true,
  aliasOf: null,
  titre: 'Fractions',
  resume: '',
  description: '',
  langue: 'fra',
  type: 'url',
  parametres: { adresse: 'https://example.org/fractions' },
  niveaux: ['6e'],
  categories: [7],
  typePedagogiques: [],
  typeDocumentaires: [],
  dateCreation: new Date('2020-01-01T00:00:00Z'),
  dateMiseAJour: new Date('2020-01-02T00:00:00Z'),
  licence: null,
  authors: [],
  contributors: [],
  ...fields,
});

const row = (fields: Partial<HarvestRow> = {}): HarvestRow => ({
  oid: 12,
  datestamp: new Date('2020-01-02T00:00:00Z'),
  deleted: false,
  type: 'url',
  levels: ['6e'],
  categories: [7],
  metadata: metadata(),
  ...fields,
});

const site = { baseId: 'repo', baseUrl: 'http://repo.test/' };

describe('harvestRecordOf', () => {
  it('gives the metadata of a harvestable resource, its rid, public page, address and sets', () => {
    const record = harvestRecordOf(row(), site);
    expect(record).toMatchObject({
      oid: 12,
      deleted: false,
      setSpecs: ['type:url', 'niveau:6e', 'categorie:7'],
      resource: {
        oid: 12,
        rid: 'repo/12',
        publicUrl: 'http://repo.test/api/public/12',
        titre: 'Fractions',
        address: 'https://example.org/fractions',
      },
    });
    // The rule's facts stay in the module: a record does not carry them.
    for (const fact of ['publie', 'restriction', 'indexable', 'aliasOf']) {
      expect(record.resource).not.toHaveProperty(fact);
    }
  });

  it.each<[string, Partial<HarvestMetadata>]>([
    ['unpublished', { publie: false }],
    ['restriction 1', { restriction: 1 }],
    ['restriction 2', { restriction: 2 }],
    ['restriction 3', { restriction: 3 }],
    ['not indexable', { indexable: false }],
    ['an alias', { aliasOf: 'ailleurs/3' }],
  ])('withholds the metadata the read model gave of a resource %s: a deleted record', (_, fields) => {
    const record = harvestRecordOf(row({ metadata: metadata(fields) }), site);
    expect(record).toMatchObject({ oid: 12, deleted: true, resource: null });
    expect(record.setSpecs).toEqual(['type:url', 'niveau:6e', 'categorie:7']);
  });

  it('keeps a deleted entry deleted, and a header read without metadata as the entry says', () => {
    expect(harvestRecordOf(row({ deleted: true, metadata: null }), site)).toMatchObject({
      deleted: true,
      resource: null,
    });
    expect(harvestRecordOf(row({ metadata: null }), site)).toMatchObject({ deleted: false, resource: null });
  });
});
