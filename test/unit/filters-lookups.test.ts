/**
 * The list filters that designate people and groups (src/modules/lists/filters.ts) look up their
 * ids by pid and by name, in the file's database (rows made here).
 */
import { beforeAll, expect, it } from 'vitest';
// The file's database, also when a configuration without it runs this file (vitest.mutation.config.ts);
// under vitest.config.ts it is the setup file already loaded, so nothing runs twice.
import '../setup/database.ts';
import type { Context } from '../../src/context.ts';
import { db } from '../../src/db/client.ts';
import { filterCondition } from '../../src/modules/lists/filters.ts';

const context = { config: { baseId: 'repo' } } as Context;
let personOid: number;
let groupOid: number;

beforeAll(async () => {
  personOid = (
    await db.person.create({
      data: { pid: 'unit/filtres', nom: 'Filtre', prenom: 'F' },
      select: { oid: true },
    })
  ).oid;
  groupOid = (
    await db.group.create({ data: { nom: 'Les Filtrés', nomKey: 'les filtres' }, select: { oid: true } })
  ).oid;
  // Others beside them, which no filter designates.
  await db.person.create({ data: { pid: 'unit/autre', nom: 'Autre', prenom: 'A' } });
  await db.group.create({ data: { nom: 'Les Autres', nomKey: 'les autres' } });
});

it('people and groups: looked up by pid and by name (any spelling), unknown ones match nothing', async () => {
  expect(await filterCondition(context, 'auteurs', ['unit/filtres', 'unit/personne'])).toEqual({
    authors: { some: { personOid: { in: [personOid] } } },
  });
  expect(await filterCondition(context, 'contributeurs', ['unit/filtres'])).toEqual({
    contributors: { some: { personOid: { in: [personOid] } } },
  });
  expect(await filterCondition(context, 'groupes', ['LES FILTRÉS', 'Aucun'])).toEqual({
    readerGroups: { some: { groupOid: { in: [groupOid] } } },
  });
  expect(await filterCondition(context, 'groupesAuteurs', ['les filtrés'])).toEqual({
    authorGroups: { some: { groupOid: { in: [groupOid] } } },
  });
  expect(await filterCondition(context, 'auteurs', ['personne/inconnue'])).toEqual({
    authors: { some: { personOid: { in: [] } } },
  });
});
