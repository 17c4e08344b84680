/**
 * The read model's resource document (src/read-model/documents.ts: one statement the service
 * writes) against Prisma's read of the same resource (test/support/prisma-oracles.ts): for every
 * combination of parts (the formats and fields a caller asks for map to one of them), with and
 * without the rights facts' relations (callers whose rights do not depend on them), by every key,
 * one at a time and by pages; and the rights each kind of caller gets from either.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { fieldsWhere } from '../../src/catalogue/resource-fields.ts';
import { db } from '../../src/db/client.ts';
import { canRead, type RightsSubject, rightsString } from '../../src/modules/resources/resources.policy.ts';
import type { Permission } from '../../src/permissions.ts';
import {
  type DocumentParts,
  loadDocument,
  loadDocuments,
  type ResourceDocument,
  type RightsFacts,
} from '../../src/read-model/documents.ts';
import { loadPage, loadPageAfter } from '../../src/read-model/pages.ts';
import { prismaDocument } from '../support/prisma-oracles.ts';
import { anonymous, personViewer, subjectOf, tokenCaller } from '../support/viewers.ts';

const BASE_ID = 'docs';

/** Every combination of the parts, with and without the relations of the rights facts. */
const PART_NAMES = ['detail', 'links', 'people', 'groups', 'targets'] as const;
const COMBINATIONS: DocumentParts[] = Array.from({ length: 2 ** (PART_NAMES.length + 1) }, (_, bits) => {
  const parts: DocumentParts = {};
  PART_NAMES.forEach((name, i) => {
    if (bits & (1 << i)) parts[name] = true;
  });
  if (bits & (1 << PART_NAMES.length)) parts.withoutRelationFacts = true;
  return parts;
});
const label = (parts: DocumentParts) =>
  Object.keys(parts)
    .filter((key) => parts[key as keyof DocumentParts])
    .join('+') || 'summary';

const FIELDS_OF_PART: Record<(typeof PART_NAMES)[number], (keyof ResourceDocument)[]> = {
  detail: fieldsWhere((field) => field.part === 'detail'),
  links: ['categories', 'niveaux', 'typePedagogiques', 'typeDocumentaires', 'relations'],
  people: ['authors', 'parentAuthors', 'contributors'],
  groups: ['readerGroups', 'authorGroups'],
  targets: ['targets'],
};
const SUMMARY: (keyof ResourceDocument)[] = fieldsWhere((field) => field.part === 'summary');
const RELATION_FACTS = ['authorOids', 'contributorOids', 'readerGroupOids', 'authorGroupOids'] as const;

/** The oracle's document as the read model gives it with `parts`: the fields of those parts only. */
function expectedWith(oracle: ResourceDocument, parts: DocumentParts) {
  const fields = [...SUMMARY, ...PART_NAMES.flatMap((name) => (parts[name] ? FIELDS_OF_PART[name] : []))];
  return Object.fromEntries(fields.map((field) => [field, oracle[field]]));
}

function documentFields(document: ResourceDocument) {
  const { facts: _facts, ...fields } = document;
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
}

/** Facts read from the document: the relations, when the document has them, else `absent`. */
function factsRead(facts: RightsFacts) {
  const relations = Object.fromEntries(
    RELATION_FACTS.map((name) => {
      try {
        return [name, facts[name]];
      } catch {
        return [name, 'absent'];
      }
    }),
  );
  const { publie, restriction, type, aliasOf } = facts;
  return { publie, restriction, type, aliasOf, ...relations };
}

function expectSame(
  actual: ResourceDocument | null | undefined,
  oracle: ResourceDocument,
  parts: DocumentParts,
) {
  expect(actual, `${oracle.oid} ${label(parts)}`).toBeTruthy();
  expect(documentFields(actual!), `${oracle.oid} ${label(parts)}`).toEqual(expectedWith(oracle, parts));
  const relationsShown = !parts.withoutRelationFacts || (parts.people && parts.groups);
  const expectedFacts = factsRead(oracle.facts);
  if (!relationsShown) for (const name of RELATION_FACTS) expectedFacts[name] = 'absent';
  expect(factsRead(actual!.facts), `facts of ${oracle.oid} ${label(parts)}`).toEqual(expectedFacts);
}

let persons: { oid: number; pid: string }[] = [];
let groups: { oid: number; nom: string }[] = [];
let oids: number[] = [];
const oracles = new Map<number, ResourceDocument>();

beforeAll(async () => {
  persons = await Promise.all(
    ['ada', 'bob', 'chloé', 'dan'].map((name, i) =>
      db.person.create({
        data: { pid: `eq/${name}`, nom: `Nom ${name}`, prenom: i % 2 ? '' : 'Prénom "x"' },
        select: { oid: true, pid: true },
      }),
    ),
  );
  groups = await Promise.all(
    ['Classe A', 'Équipe ☃'].map((nom) =>
      db.group.create({ data: { nom, nomKey: nom.toLowerCase() }, select: { oid: true, nom: true } }),
    ),
  );
  const [ada, bob, chloe, dan] = persons.map((p) => p.oid) as [number, number, number, number];
  const [classe, equipe] = groups.map((g) => g.oid) as [number, number];
  const create = async (data: Record<string, unknown>, links: Record<string, unknown[]> = {}) => {
    const resource = await db.resource.create({
      data: {
        origine: 'eq',
        idOrigine: `id-${Math.random().toString(36).slice(2)}`,
        titre: 'Titre',
        type: 'url',
        ...data,
      } as never,
    });
    const rows = (table: string, column: string, values: unknown[]) =>
      values.length === 0
        ? Promise.resolve()
        : (db as unknown as Record<string, { createMany(args: unknown): Promise<unknown> }>)[
            table
          ]!.createMany({
            data: values.map((value, position) =>
              typeof value === 'object' && value !== null && !Array.isArray(value)
                ? { resourceOid: resource.oid, position, ...value }
                : { resourceOid: resource.oid, position, [column]: value },
            ),
          });
    await rows('resourceAuthor', 'personOid', links.authors ?? []);
    await rows('resourceParentAuthor', 'personOid', links.parentAuthors ?? []);
    await rows('resourceContributor', 'personOid', links.contributors ?? []);
    await rows('resourceGroup', 'groupOid', links.readerGroups ?? []);
    await rows('resourceAuthorGroup', 'groupOid', links.authorGroups ?? []);
    await rows('resourceCategory', 'categoryId', links.categories ?? []);
    await rows('resourceLevel', 'level', links.levels ?? []);
    await rows('resourcePedagogicType', 'typeId', links.pedagogicTypes ?? []);
    await rows('resourceDocumentaryType', 'typeId', links.documentaryTypes ?? []);
    await rows('resourceRelation', 'targetRid', links.relations ?? []);
    return resource.oid;
  };
  const bare = await create({ titre: '', resume: '', publie: false, restriction: 3 });
  const privateTarget = await create(
    { titre: 'Cible privée', restriction: 3, type: 'em', cle: 'k-private' },
    { authors: [dan], readerGroups: [equipe], authorGroups: [classe] },
  );
  const groupTarget = await create({ titre: 'Cible de groupe', restriction: 2 }, { readerGroups: [classe] });
  const tree = await create(
    {
      titre: 'Arbre « ünïcode » \u2028 et \\ "guillemets"',
      type: 'arbre',
      enfants: [{ titre: 'enfant', aliasOf: `${BASE_ID}/${bare}`, enfants: [{ titre: 'petit' }] }],
      parametres: { nombre: 2 ** 53 - 1, liste: [null, true, 'é'], vide: {} },
      cle: 'k-tree',
      version: 7,
      inc: 12,
      langue: 'eng',
      indexable: false,
      dateCreation: new Date('0001-01-01T00:00:00.000Z'),
      dateMiseAJour: new Date('9999-12-31T23:59:59.999Z'),
    },
    {
      authors: [bob, ada, chloe],
      parentAuthors: [dan],
      contributors: [chloe, ada],
      readerGroups: [equipe, classe],
      authorGroups: [classe],
      categories: [7, 5, 2_147_483_647],
      levels: ['6e', 'a|b%', ''],
      pedagogicTypes: [3],
      documentaryTypes: [1, 2],
      relations: [
        { predicate: 2, targetRid: `${BASE_ID}/${privateTarget}` },
        { predicate: 1, targetRid: `${BASE_ID}/${groupTarget}` },
        { predicate: 3, targetRid: `${BASE_ID}/${groupTarget}` },
        { predicate: 1, targetRid: 'ailleurs/12' },
        { predicate: 1, targetRid: `${BASE_ID}/0${groupTarget}` },
        { predicate: 1, targetRid: `${BASE_ID}/99999999999` },
        { predicate: 1, targetRid: `${BASE_ID}/2147483648` },
        { predicate: 1, targetRid: `${BASE_ID}/${groupTarget}x` },
        { predicate: 1, targetRid: `${BASE_ID}/` },
        { predicate: 1, targetRid: `${BASE_ID}/999999` },
      ],
    },
  );
  const alias = await create(
    { titre: 'Alias', aliasOf: 'ailleurs/3', type: 'ecjs', publie: true, restriction: 1 },
    { authors: [ada], relations: [{ predicate: 4, targetRid: `${BASE_ID}/${tree}` }] },
  );
  // JSON values that are strings: PostgreSQL's driver gives them parsed, as strings.
  const textParameters = await create({ titre: 'Paramètres texte', type: 'sequenceModele', parametres: '' });
  const numberParameters = await create({
    titre: 'Paramètres nombre',
    parametres: 'abc',
    enfants: 2 ** 53 - 1,
  });
  oids = [bare, privateTarget, groupTarget, tree, alias, textParameters, numberParameters];
  for (const oid of oids) oracles.set(oid, (await prismaDocument({ oid }, BASE_ID))!);
});

describe('a resource document', () => {
  it('is what Prisma reads, part by part, for every combination of parts, by oid', async () => {
    for (const parts of COMBINATIONS) {
      for (const oid of oids)
        expectSame(await loadDocument({ oid }, BASE_ID, parts), oracles.get(oid)!, parts);
    }
  });

  it('is the same by read key and by origin pair, and null for a key that names nothing', async () => {
    for (const oid of oids) {
      const oracle = oracles.get(oid)!;
      for (const parts of [
        COMBINATIONS[0]!,
        COMBINATIONS.at(-1)!,
        { detail: true, links: true, targets: true },
      ]) {
        const byOrigin = { origine_idOrigine: { origine: oracle.origine, idOrigine: oracle.idOrigine } };
        expectSame(await loadDocument(byOrigin, BASE_ID, parts), oracle, parts);
        if (oracle.cle) expectSame(await loadDocument({ cle: oracle.cle }, BASE_ID, parts), oracle, parts);
      }
    }
    expect(await loadDocument({ oid: 2_147_483_647 }, BASE_ID)).toBeNull();
    expect(await loadDocument({ cle: 'aucune' }, BASE_ID)).toBeNull();
    expect(await loadDocument({ origine_idOrigine: { origine: 'eq', idOrigine: '' } }, BASE_ID)).toBeNull();
  });

  it('is the same in a batch (in the order asked, missing ones left out) and in list pages', async () => {
    const asked = [...oids].reverse().flatMap((oid) => [oid, 999_999]);
    for (const parts of COMBINATIONS) {
      const documents = await loadDocuments(asked, BASE_ID, parts);
      expect(documents.map((d) => d.oid)).toEqual([...oids].reverse());
      for (const document of documents) expectSame(document, oracles.get(document.oid)!, parts);
      const where = { oid: { in: oids } };
      const page = await loadPage(
        { where, orderColumn: 'titre', order: 'desc', start: 0, nb: 10 },
        BASE_ID,
        parts,
      );
      const after = await loadPageAfter(
        { where, orderColumn: 'oid', order: 'asc', after: oids[0], limit: 10 },
        BASE_ID,
        parts,
      );
      expect(after.map((d) => d.oid)).toEqual(oids.slice(1));
      for (const document of [...page, ...after]) expectSame(document, oracles.get(document.oid)!, parts);
    }
  });

  it('gives every kind of caller the rights, and the targets, that Prisma’s read gives', async () => {
    const [ada, , chloe, dan] = persons.map((p) => p.oid) as [number, number, number, number];
    const [classe, equipe] = groups.map((g) => g.oid) as [number, number];
    const person = (oid: number, permissions: Permission[], groupOids: number[]) =>
      subjectOf(personViewer(oid, permissions, groupOids));
    const callers: Record<string, RightsSubject> = {
      anonymous: subjectOf(anonymous),
      token: subjectOf(tokenCaller),
      author: person(ada, ['read'], []),
      contributor: person(chloe, ['read'], []),
      'author group member': person(dan, ['read'], [classe]),
      'reader group member': person(9_999, ['read'], [equipe]),
      corrector: person(9_998, ['read', 'correction'], []),
      'all rights': person(9_997, ['allRights'], []),
      'read key holder': { ...person(9_996, ['read'], []), hasReadKey: true },
    };
    for (const [name, subject] of Object.entries(callers)) {
      // As lists read them: without the relations when the caller's rights never depend on them.
      const withoutRelationFacts = subject.viewer.person === null || subject.viewer.allRights;
      for (const oid of oids) {
        const oracle = oracles.get(oid)!;
        const document = (await loadDocument({ oid }, BASE_ID, { targets: true, withoutRelationFacts }))!;
        expect(rightsString(subject, document.facts), `${name} on ${oid}`).toBe(
          rightsString(subject, oracle.facts),
        );
        const readable = (targets: ReadonlyMap<number, { facts: RightsFacts }>) =>
          [...targets].map(([target, { facts }]) => [target, canRead(subject, facts)]);
        expect(readable(document.targets!), `${name}: targets of ${oid}`).toEqual(readable(oracle.targets!));
      }
    }
  });
});
