/**
 * What a record of a transfer file becomes here and whether the database holds it already
 * (src/transfer/import-rows.ts), and when it cannot take its place (conflictOf), without a
 * database: the comparisons are what makes a second import change nothing.
 */
import { describe, expect, it } from 'vitest';
import type { FullResource, ResourceLinks } from '../../src/modules/resources/resources.repository.ts';
import { conflictOf, originKey } from '../../src/transfer/import-identities.ts';
import type { Candidate } from '../../src/transfer/import-records.ts';
import {
  groupFields,
  type Prepared,
  type ResourceRow,
  resourceRow,
  sameGroup,
  samePerson,
  sameResource,
} from '../../src/transfer/import-rows.ts';

const created = new Date('2018-01-01T10:00:00.000Z');
const changed = new Date('2019-01-01T10:00:00.000Z');

function candidate(fields: Candidate['fields'], managed: Partial<Candidate['managed']> = {}): Candidate {
  return {
    line: 2,
    oid: 40,
    origine: 'ed',
    idOrigine: 'e-40',
    fields: { titre: 'T', type: 'url', ...fields },
    managed: { oid: 40, ...managed },
  };
}

const noLinks: ResourceLinks = {
  authorOids: [],
  contributorOids: [],
  parentAuthorOids: [],
  readerGroupOids: [],
  authorGroupOids: [],
  categories: [],
  niveaux: [],
  typePedagogiques: [],
  typeDocumentaires: [],
  relations: [],
};

/** The row and links as the database gives them back (positions kept). */
function stored(row: ResourceRow, links: ResourceLinks): FullResource {
  const person = (personOid: number) => ({
    personOid,
    person: { pid: `p/${personOid}`, nom: '', prenom: '' },
  });
  const group = (groupOid: number) => ({ groupOid, group: { nom: `g${groupOid}` } });
  return {
    ...row,
    parametres: row.parametres as FullResource['parametres'],
    enfants: row.enfants as FullResource['enfants'],
    archiveOid: null,
    // Kept by the database's triggers; nothing compared here reads them.
    levelTags: '',
    categoryTags: '',
    authors: links.authorOids.map(person),
    contributors: links.contributorOids.map(person),
    parentAuthors: links.parentAuthorOids.map(person),
    readerGroups: links.readerGroupOids.map(group),
    authorGroups: links.authorGroupOids.map(group),
    categories: links.categories.map((categoryId) => ({ categoryId })),
    levels: links.niveaux.map((level) => ({ level })),
    pedagogicTypes: links.typePedagogiques.map((typeId) => ({ typeId })),
    documentaryTypes: links.typeDocumentaires.map((typeId) => ({ typeId })),
    relations: links.relations.map(({ predicate, rid: targetRid }) => ({ predicate, targetRid })),
  };
}

describe('resourceRow', () => {
  it('gives what the record leaves out the service’s defaults, and a new resource a version 1', () => {
    const row = resourceRow(candidate({ restriction: 3 }, { dateCreation: created }), undefined);
    expect(row).toEqual({
      oid: 40,
      origine: 'ed',
      idOrigine: 'e-40',
      titre: 'T',
      resume: '',
      description: '',
      commentaires: '',
      type: 'url',
      langue: 'fra',
      publie: false,
      restriction: 3,
      indexable: true,
      parametres: {},
      enfants: null,
      aliasOf: null,
      cle: expect.stringMatching(/^[\w-]{24}$/),
      version: 1,
      inc: 0,
      dateCreation: created,
      // Never changed: changed when created.
      dateMiseAJour: created,
      licence: null,
    });
  });

  it('keeps what the service manages as the record gives it, else as the row here holds it', () => {
    const here = stored(
      { ...resourceRow(candidate({}), undefined), cle: 'here', version: 4, inc: 9, dateCreation: created },
      noLinks,
    );
    here.dateMiseAJour = changed;
    const kept = resourceRow(candidate({}), here);
    expect(kept).toMatchObject({
      cle: 'here',
      version: 4,
      inc: 9,
      dateCreation: created,
      dateMiseAJour: changed,
    });
    const given = resourceRow(
      candidate({}, { cle: 'file', version: 2, inc: 1, dateMiseAJour: created }),
      here,
    );
    expect(given).toMatchObject({
      cle: 'file',
      version: 2,
      inc: 1,
      dateCreation: created,
      dateMiseAJour: created,
    });
  });

  it('gives a read key only to what is not public and published, a fresh one each time', () => {
    expect(
      resourceRow(candidate({ publie: true, restriction: 0 }, { cle: 'file' }), undefined).cle,
    ).toBeNull();
    const unpublished = resourceRow(candidate({ publie: false, restriction: 0 }), undefined).cle;
    const restricted = resourceRow(candidate({ publie: true, restriction: 1 }), undefined).cle;
    expect(unpublished).toEqual(expect.any(String));
    expect(restricted).toEqual(expect.any(String));
    expect(unpublished).not.toBe(restricted);
  });
});

describe('sameResource', () => {
  const links: ResourceLinks = {
    ...noLinks,
    authorOids: [3, 1],
    readerGroupOids: [7],
    categories: [2, 5],
    niveaux: ['n1'],
    relations: [{ predicate: 1, rid: 'repo/2' }],
  };
  const row = resourceRow(
    candidate(
      { parametres: { a: 1, b: [1, 2] }, enfants: [{ titre: 'x' }] },
      { cle: 'k', dateCreation: created },
    ),
    undefined,
  );
  const prepared: Prepared = { line: 2, oid: 40, row, links };

  it('is true for the rows the record was written as, repeated links counted once', () => {
    expect(sameResource(stored(row, links), prepared)).toBe(true);
    const repeated = {
      ...links,
      authorOids: [3, 1, 3],
      relations: [
        { predicate: 1, rid: 'repo/2' },
        { predicate: 1, rid: 'repo/2' },
      ],
    };
    expect(sameResource(stored(row, links), { ...prepared, links: repeated })).toBe(true);
    // JSON read back from the database: null parametres are the empty object.
    expect(
      sameResource(
        { ...stored({ ...row, parametres: {} }, links), parametres: null },
        {
          ...prepared,
          row: { ...row, parametres: {} },
        },
      ),
    ).toBe(true);
  });

  it('is false when a column, a date, a link or the order of a list differs', () => {
    const here = stored(row, links);
    expect(sameResource({ ...here, titre: 'Autre' }, prepared)).toBe(false);
    expect(sameResource({ ...here, parametres: { a: 1, b: [2, 1] } }, prepared)).toBe(false);
    expect(sameResource({ ...here, dateMiseAJour: changed }, prepared)).toBe(false);
    expect(sameResource(stored(row, { ...links, authorOids: [1, 3] }), prepared)).toBe(false);
    expect(sameResource(stored(row, { ...links, niveaux: [] }), prepared)).toBe(false);
    expect(
      sameResource(stored(row, { ...links, relations: [{ predicate: 2, rid: 'repo/2' }] }), prepared),
    ).toBe(false);
  });
});

describe('persons and groups', () => {
  const person = {
    oid: 1,
    pid: 'lab/1',
    nom: 'N',
    prenom: 'P',
    email: null,
    roles: ['admin', 'formateur'],
    groupesMembre: [],
    groupesSuivis: [],
  };

  it('samePerson: names, e-mail and roles, whatever order the roles are read in', () => {
    const here = { nom: 'N', prenom: 'P', email: null, roles: [{ role: 'formateur' }, { role: 'admin' }] };
    expect(samePerson(here, person)).toBe(true);
    expect(samePerson({ ...here, email: '' }, person)).toBe(false);
    expect(samePerson({ ...here, roles: [{ role: 'admin' }] }, person)).toBe(false);
    expect(samePerson({ ...here, prenom: 'Q' }, person)).toBe(false);
  });

  it('sameGroup: the creation date only when the file gives one; managers in their order', () => {
    const group = { oid: 5, nom: ' G ', description: 'd', ouvert: true, public: false, gestionnaires: [] };
    const fields = groupFields({ group, nom: 'G', nomKey: 'g' });
    expect(fields).toEqual({ nom: 'G', description: 'd', ouvert: true, public: false });
    const here = { ...fields, createdAt: created, managers: [{ personOid: 3 }, { personOid: 1 }] };
    expect(sameGroup(here, fields, [3, 1])).toBe(true);
    expect(sameGroup(here, fields, [1, 3])).toBe(false);
    expect(sameGroup(here, { ...fields, ouvert: false }, [3, 1])).toBe(false);
    const dated = groupFields({ group: { ...group, dateCreation: changed }, nom: 'G', nomKey: 'g' });
    expect(dated.createdAt).toEqual(changed);
    expect(sameGroup(here, dated, [3, 1])).toBe(false);
    expect(sameGroup({ ...here, createdAt: changed }, dated, [3, 1])).toBe(true);
  });
});

describe('conflictOf', () => {
  const record = candidate({}, { cle: 'k' });
  const here = stored(resourceRow(record, undefined), noLinks);

  it('lets a record take its own place, or a free one', () => {
    expect(
      conflictOf(record, here, new Map([[originKey('ed', 'e-40'), 40]]), new Map([['k', 40]])),
    ).toBeUndefined();
    expect(conflictOf(record, undefined, new Map(), new Map())).toBeUndefined();
  });

  it('refuses an oid that is another resource here, an origin or a read key another resource holds', () => {
    expect(conflictOf(record, { ...here, idOrigine: 'autre' }, new Map(), new Map())).toBe(
      'oid 40 is another resource here (ed/autre)',
    );
    expect(conflictOf(record, undefined, new Map([[originKey('ed', 'e-40'), 41]]), new Map())).toBe(
      'ed/e-40 is resource 41 here',
    );
    expect(conflictOf(record, undefined, new Map(), new Map([['k', 42]]))).toBe(
      'the read key is already that of resource 42',
    );
  });
});
