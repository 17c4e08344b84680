/**
 * Reading a transfer file and validating its records (src/transfer/import-records.ts),
 * without a database: the header's refusals, invalid lines reported with their numbers, and each
 * kind of record accepted or refused with the id and message the import report shows.
 */
import { describe, expect, it } from 'vitest';
import {
  checkGroup,
  checkPerson,
  checkResource,
  declaredOid,
  localReferences,
  readRecords,
  TransferFormatError,
} from '../../src/transfer/import-records.ts';

const HEADER = JSON.stringify({ format: 'resource-repository-transfer', version: 1, baseId: 'repo' });

async function read(chunks: string[], baseId = 'repo') {
  const records: unknown[] = [];
  const invalid: Array<[number, string]> = [];
  async function* stream() {
    yield* chunks;
  }
  for await (const record of readRecords(stream(), baseId, (line, message) =>
    invalid.push([line, message]),
  )) {
    records.push(record);
  }
  return { records, invalid };
}

describe('readRecords', () => {
  it('yields the records after the header with their line numbers, across chunks cut anywhere', async () => {
    const text = `${HEADER}\r\n{"personne":{"pid":"a/1"}}\n\n{"groupe":{"nom":"G"}}\n{"ressource":{"oid":7}}`;
    const cut = [text.slice(0, 10), text.slice(10, 70), text.slice(70)];
    const { records, invalid } = await read(cut);
    expect(records).toEqual([
      { line: 2, kind: 'person', value: { pid: 'a/1' } },
      { line: 4, kind: 'group', value: { nom: 'G' } },
      { line: 5, kind: 'resource', value: { oid: 7 } },
    ]);
    expect(invalid).toEqual([]);
  });

  it('tells each line that is no record, with its number, and goes on', async () => {
    const { records, invalid } = await read([
      `${HEADER}\n{"ressource": {"oid": 1, "titre": "coupé\n[1, 2]\n{"ressources": []}\n{"a": 1, "b": 2}\n{"groupe":{}}\n`,
    ]);
    expect(invalid).toEqual([
      [2, 'invalid JSON'],
      [3, 'a line must be a JSON object'],
      [4, 'a line must have a single key: personne, groupe or ressource'],
      [5, 'a line must have a single key: personne, groupe or ressource'],
    ]);
    expect(records).toEqual([{ line: 6, kind: 'group', value: {} }]);
  });

  it('skips invalid lines silently when nobody listens (the second reading)', async () => {
    const records: unknown[] = [];
    async function* stream() {
      yield `${HEADER}\nnot json\n{"groupe":{"nom":"G"}}\n`;
    }
    for await (const record of readRecords(stream(), 'repo')) records.push(record);
    expect(records).toEqual([{ line: 3, kind: 'group', value: { nom: 'G' } }]);
  });

  it('refuses a file without a header, or whose header is not JSON or not the format', async () => {
    await expect(read([])).rejects.toThrow(
      new TransferFormatError('empty file: it needs at least the header line'),
    );
    await expect(read(['\n  \n'])).rejects.toThrow('empty file');
    await expect(read(['\nnope\n'])).rejects.toThrow(
      new TransferFormatError('line 2: the header is not JSON'),
    );
    const wrong = read([`${JSON.stringify({ format: 'autre', version: 2, baseId: 'repo' })}\n`]);
    await expect(wrong).rejects.toBeInstanceOf(TransferFormatError);
    await expect(
      read([`${JSON.stringify({ format: 'autre', version: 2, baseId: 'repo' })}\n`]),
    ).rejects.toThrow(/^line 1: invalid header \(format: .*; version: .*\)$/);
  });

  it('refuses a file of another baseId before yielding anything, naming both bases', async () => {
    const yielded: unknown[] = [];
    async function* stream() {
      yield `${HEADER.replace('"repo"', '"ailleurs"')}\n{"personne":{"pid":"a/1"}}\n`;
    }
    const reading = (async () => {
      for await (const record of readRecords(stream(), 'repo')) yielded.push(record);
    })();
    await expect(reading).rejects.toThrow(
      'the file comes from the base ailleurs and this service is repo: rids would change ' +
        '(ailleurs/<oid> would become repo/<oid>). Set baseId (or BASE_ID) to ailleurs.',
    );
    expect(yielded).toEqual([]);
  });
});

describe('checkPerson', () => {
  it('accepts a person of the previous service, its roles map as the sorted granted roles', () => {
    expect(
      checkPerson({
        oid: 12,
        pid: 'lab/12',
        nom: 'N',
        roles: { formateur: true, admin: true, eleve: false },
      }),
    ).toEqual({
      valid: {
        oid: 12,
        pid: 'lab/12',
        nom: 'N',
        prenom: '',
        email: null,
        roles: ['admin', 'formateur'],
        groupesMembre: [],
        groupesSuivis: [],
      },
    });
  });

  it('refuses a person without a proper pid or oid, with the pid when there is one', () => {
    expect(checkPerson({ oid: 3, nom: 'Sans pid' })).toEqual({
      problem: { id: undefined, message: 'pid: required' },
    });
    expect(checkPerson({ oid: 0, pid: 'lab/0' })).toEqual({
      problem: { id: 'lab/0', message: 'oid: must be a positive integer' },
    });
    expect(checkPerson({ oid: 4, pid: 'sans-origine' })).toEqual({
      problem: { id: 'sans-origine', message: 'pid: must be <origin>/<id>' },
    });
  });
});

describe('checkGroup', () => {
  it('accepts a group with its name trimmed and the key names are compared by', () => {
    const checked = checkGroup({ oid: 5, nom: '  Classe de 6e A ', gestionnaires: [1, 2] });
    expect(checked).toMatchObject({
      valid: { nom: 'Classe de 6e A', group: { oid: 5, nom: '  Classe de 6e A ', gestionnaires: [1, 2] } },
    });
    const again = checkGroup({ oid: 6, nom: 'classe DE 6E a' });
    expect('valid' in checked && 'valid' in again && checked.valid.nomKey === again.valid.nomKey).toBe(true);
  });

  it('refuses a group whose name the groups refuse, with the name as the file gives it', () => {
    expect(checkGroup({ oid: 5, nom: '  !!  ' })).toEqual({
      problem: {
        id: '  !!  ',
        message: 'Nom de groupe invalide : !! (il faut au moins une lettre ou un chiffre)',
      },
    });
    expect(checkGroup({ oid: 'x', nom: 'G' })).toEqual({
      problem: { id: 'G', message: 'oid: must be a positive integer' },
    });
  });
});

describe('checkResource', () => {
  const resource = { oid: 40, titre: 'T', type: 'url' };

  it('accepts a resource by the service’s rules; without an origin it is its own (baseId, oid)', () => {
    expect(checkResource(9, { ...resource, rid: 'repo/40', inconnue: 1, _droits: 'RW' }, 'repo')).toEqual({
      valid: {
        candidate: {
          line: 9,
          oid: 40,
          origine: 'repo',
          idOrigine: '40',
          fields: { oid: 40, titre: 'T', type: 'url', rid: 'repo/40' },
          managed: { oid: 40 },
        },
        warnings: ['Propriété inconnue inconnue, ignorée'],
      },
    });
    const withOrigin = checkResource(1, { ...resource, origine: 'ed', idOrigine: 'e-1', cle: 'k' }, 'repo');
    expect(withOrigin).toMatchObject({
      valid: { candidate: { origine: 'ed', idOrigine: 'e-1', managed: { oid: 40, cle: 'k' } } },
    });
  });

  it('refuses what the service would, all the problems of a record in one message', () => {
    expect(checkResource(1, { oid: 40, rid: 'repo/41', origine: 'ed' }, 'repo')).toEqual({
      problem: {
        id: '40',
        message:
          'rid: repo/41 does not match the oid (repo/40); type: required; titre: required; ' +
          'origine and idOrigine go together: both or neither',
      },
    });
    expect(checkResource(1, { ...resource, restriction: 7 }, 'repo')).toEqual({
      problem: { id: '40', message: 'restriction : doit valoir 0, 1, 2 ou 3' },
    });
  });

  it('refuses a record without a valid oid, with the oid it gives', () => {
    expect(checkResource(1, { ...resource, oid: -2 }, 'repo')).toEqual({
      problem: { id: '-2', message: 'oid: must be a positive integer' },
    });
    expect(checkResource(1, { ...resource, oid: undefined }, 'repo')).toMatchObject({
      problem: { id: undefined },
    });
  });
});

describe('references of a record', () => {
  it('declaredOid: an integer oid, unchecked otherwise', () => {
    expect(declaredOid({ oid: 12 })).toBe(12);
    expect(declaredOid({ oid: -3 })).toBe(-3);
    expect(declaredOid({ oid: 1.5 })).toBeUndefined();
    expect(declaredOid({ oid: '12' })).toBeUndefined();
    expect(declaredOid(null)).toBeUndefined();
  });

  it('localReferences: relation targets, the alias source and every alias in the tree', () => {
    expect(
      localReferences({
        relations: [
          { predicate: 1, rid: 'repo/2' },
          { predicate: 3, rid: 'ailleurs/9' },
        ],
        aliasOf: 'repo/5',
        enfants: [
          { titre: 'a', aliasOf: 'repo/6' },
          { titre: 'dossier', enfants: [{ titre: 'b', aliasOf: 'repo/7' }, { titre: 'c' }] },
        ],
      }),
    ).toEqual(['repo/2', 'ailleurs/9', 'repo/5', 'repo/6', 'repo/7']);
    expect(localReferences({})).toEqual([]);
  });
});
