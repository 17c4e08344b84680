/**
 * Resources in the database, as the write path sees them: a whole resource with its join tables
 * (reads go through src/read-model/ instead), its state in the domain's terms, and the writing of
 * a resource's multi-valued fields.
 */
import { randomBytes } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import {
  type FieldValue,
  fieldDefault,
  type RESOURCE_FIELDS,
  type ResourceFieldName,
  type ResourceFieldSpec,
  resourceFields,
} from '../../catalogue/resource-fields.ts';
import type { Prisma, Transaction } from '../../db/client.ts';
import { parseId } from '../../lib/integers.ts';
import { frenchStem, textWords } from '../../lib/text.ts';
import type { RightsFacts } from '../../read-model/documents.ts';
import { WORD_KINDS } from '../../read-model/ranked-search.ts';
import type { Relation } from './resource-input.ts';

const byPosition = { orderBy: { position: 'asc' } } as const;
const personFields = {
  select: { personOid: true, person: { select: { pid: true, nom: true, prenom: true } } },
  ...byPosition,
} as const;
const groupFields = { select: { groupOid: true, group: { select: { nom: true } } }, ...byPosition } as const;

/** Everything, for services that read a whole resource (writes, copies, archives). */
export const fullInclude = {
  authors: personFields,
  contributors: personFields,
  parentAuthors: personFields,
  readerGroups: groupFields,
  authorGroups: groupFields,
  categories: { select: { categoryId: true }, ...byPosition },
  levels: { select: { level: true }, ...byPosition },
  pedagogicTypes: { select: { typeId: true }, ...byPosition },
  documentaryTypes: { select: { typeId: true }, ...byPosition },
  relations: { select: { predicate: true, targetRid: true }, ...byPosition },
} as const;

export type FullResource = Prisma.ResourceGetPayload<{ include: typeof fullInclude }>;
/** The rights facts of a whole resource. */
export function factsOf(row: FullResource): RightsFacts {
  return {
    publie: row.publie,
    restriction: row.restriction,
    type: row.type,
    aliasOf: row.aliasOf,
    authorOids: row.authors.map((a) => a.personOid),
    contributorOids: row.contributors.map((c) => c.personOid),
    readerGroupOids: row.readerGroups.map((g) => g.groupOid),
    authorGroupOids: row.authorGroups.map((g) => g.groupOid),
  };
}

export const ridOf = (baseId: string, oid: number) => `${baseId}/${oid}`;

/** A new read key (`cle`): whoever holds it reads the resource, so it is random and unguessable. */
export const newReadKey = () => randomBytes(18).toString('base64url');

/** The oid a rid names in this repository (`<baseId>/<oid>`), or undefined (a peer's rid, or no oid). */
export function localOid(baseId: string, rid: string): number | undefined {
  return rid.startsWith(`${baseId}/`) ? parseId(rid.slice(baseId.length + 1)) : undefined;
}

/**
 * A stored resource in the domain's terms (the GraphQL names: people by pid, groups by name,
 * relations as `{predicate, rid}`): what a save compares, an archive keeps, an audit entry records
 * and a copy starts from.
 */
export function storedState(row: FullResource, baseId: string) {
  return {
    ...(Object.fromEntries(
      resourceFields.map(([name, field]) => [name, stateValue(row[name], field)]),
    ) as StateFields),
    rid: ridOf(baseId, row.oid),
    niveaux: row.levels.map((l) => l.level),
    categories: row.categories.map((c) => c.categoryId),
    typePedagogiques: row.pedagogicTypes.map((t) => t.typeId),
    typeDocumentaires: row.documentaryTypes.map((t) => t.typeId),
    relations: row.relations.map((r): Relation => ({ predicate: r.predicate, rid: r.targetRid })),
    authors: row.authors.map((a) => a.person.pid),
    auteursParents: row.parentAuthors.map((a) => a.person.pid),
    contributors: row.contributors.map((c) => c.person.pid),
    readerGroups: row.readerGroups.map((g) => g.group.nom),
    authorGroups: row.authorGroups.map((g) => g.group.nom),
  };
}

/** The catalogue's fields in a stored state: dates as ISO text (what an archive or an audit keeps). */
type StateFields = {
  [N in ResourceFieldName]: (typeof RESOURCE_FIELDS)[N]['kind'] extends 'date' ? string : FieldValue<N>;
};

/** A field's value in a stored state: dates as ISO text, JSON with the catalogue's default for none. */
function stateValue(value: unknown, field: ResourceFieldSpec): unknown {
  if (field.kind === 'date') return (value as Date).toISOString();
  if (field.kind === 'json' && value == null) return fieldDefault(field) ?? value;
  return value;
}

export type StoredState = ReturnType<typeof storedState>;

/** The multi-valued fields of a resource, resolved to ids. */
export interface ResourceLinks {
  authorOids: number[];
  contributorOids: number[];
  parentAuthorOids: number[];
  readerGroupOids: number[];
  authorGroupOids: number[];
  categories: number[];
  niveaux: string[];
  typePedagogiques: number[];
  typeDocumentaires: number[];
  relations: Relation[];
}

/** Join table and value column of each multi-valued field. */
const LINK_TABLES = {
  authorOids: ['resourceAuthor', 'personOid'],
  contributorOids: ['resourceContributor', 'personOid'],
  parentAuthorOids: ['resourceParentAuthor', 'personOid'],
  readerGroupOids: ['resourceGroup', 'groupOid'],
  authorGroupOids: ['resourceAuthorGroup', 'groupOid'],
  categories: ['resourceCategory', 'categoryId'],
  niveaux: ['resourceLevel', 'level'],
  typePedagogiques: ['resourcePedagogicType', 'typeId'],
  typeDocumentaires: ['resourceDocumentaryType', 'typeId'],
} as const satisfies Record<Exclude<keyof ResourceLinks, 'relations'>, readonly [keyof Transaction, string]>;

/** The tables holding a resource's links and derived rows, as `linkRows` and `wordRows` fill them. */
export type LinkTableName = (typeof LINK_TABLES)[keyof typeof LINK_TABLES][0] | 'resourceRelation';

// The join tables share one shape (resourceOid, value, position); their Prisma delegates do not
// share a type, hence this narrow view of them.
type LinkTable = {
  deleteMany(args: { where: { resourceOid: number } }): Promise<unknown>;
  createMany(args: { data: Record<string, unknown>[] }): Promise<unknown>;
};

/** The delegate of one of the link tables (for writers that insert rows of many resources at once). */
export function linkTable(tx: Transaction, table: LinkTableName | 'resourceWord'): LinkTable {
  return tx[table] as unknown as LinkTable;
}

/**
 * The join rows of the given multi-valued fields of a resource, per table: values deduplicated,
 * positions in order. `writeLinks` writes them for one resource; the importer for many at once.
 */
export function linkRows(
  resourceOid: number,
  links: Partial<ResourceLinks>,
): Map<LinkTableName, Record<string, unknown>[]> {
  const rows = new Map<LinkTableName, Record<string, unknown>[]>();
  for (const [field, [table, column]] of Object.entries(LINK_TABLES)) {
    const values = links[field as keyof typeof LINK_TABLES];
    if (!values) continue;
    const distinct = [...new Set<unknown>(values)];
    rows.set(
      table,
      distinct.map((value, position) => ({ resourceOid, [column]: value, position })),
    );
  }
  if (links.relations) {
    const distinct = [...new Map(links.relations.map((r) => [`${r.predicate} ${r.rid}`, r])).values()];
    rows.set(
      'resourceRelation',
      distinct.map(({ predicate, rid: targetRid }, position) => ({
        resourceOid,
        predicate,
        targetRid,
        position,
      })),
    );
  }
  return rows;
}

/** What `current` holds of each multi-valued field, in order. */
function heldLinks(current: FullResource): ResourceLinks {
  return {
    authorOids: current.authors.map((a) => a.personOid),
    contributorOids: current.contributors.map((c) => c.personOid),
    parentAuthorOids: current.parentAuthors.map((a) => a.personOid),
    readerGroupOids: current.readerGroups.map((g) => g.groupOid),
    authorGroupOids: current.authorGroups.map((g) => g.groupOid),
    categories: current.categories.map((c) => c.categoryId),
    niveaux: current.levels.map((l) => l.level),
    typePedagogiques: current.pedagogicTypes.map((t) => t.typeId),
    typeDocumentaires: current.documentaryTypes.map((t) => t.typeId),
    relations: current.relations.map((r) => ({ predicate: r.predicate, rid: r.targetRid })),
  };
}

/**
 * The given multi-valued fields whose rows would differ from those `current` holds (values or
 * order, compared as `writeLinks` writes them). Writing only these leaves unchanged rows alone: a
 * rewrite of the same rows fires the harvest entries' triggers (the harvest_entries migration),
 * which restamp the record for a change no harvester can see.
 */
export function changedLinks(current: FullResource, links: Partial<ResourceLinks>): Partial<ResourceLinks> {
  const written = linkRows(current.oid, links);
  const held = linkRows(current.oid, heldLinks(current));
  const changed: Partial<ResourceLinks> = {};
  for (const field of Object.keys(links) as (keyof ResourceLinks)[]) {
    const table = field === 'relations' ? 'resourceRelation' : LINK_TABLES[field][0];
    if (links[field] && !isDeepStrictEqual(written.get(table), held.get(table))) {
      Object.assign(changed, { [field]: links[field] });
    }
  }
  return changed;
}

/** Replaces the given multi-valued fields of a resource (the others are left alone), keeping order. */
export async function writeLinks(tx: Transaction, resourceOid: number, links: Partial<ResourceLinks>) {
  for (const [table, data] of linkRows(resourceOid, links)) {
    const delegate = linkTable(tx, table);
    await delegate.deleteMany({ where: { resourceOid } });
    await delegate.createMany({ data });
  }
}

/** Where a word appears decides its weight in relevance ranking. */
export const WORD_WEIGHTS = { titre: 4, resume: 2, description: 1 } as const;

/**
 * Longer words are left out of the index: nobody types them, and an index entry holds at most
 * 2,704 bytes on PostgreSQL (a pasted blob or identifier can be one "word" of thousands).
 */
export const MAX_INDEXED_WORD_LENGTH = 100;

/**
 * The full-text index rows of a resource, from its texts (see `writeWords`): each distinct word
 * and each distinct stem, weighted by the fields it appears in (a stem that two words of one
 * field share counts that field once).
 */
export function wordRows(resourceOid: number, texts: Record<keyof typeof WORD_WEIGHTS, string>) {
  const weights = [new Map<string, number>(), new Map<string, number>()] as const;
  const add = (kind: number, key: string, weight: number) =>
    weights[kind as 0 | 1].set(key, (weights[kind as 0 | 1].get(key) ?? 0) + weight);
  for (const [field, weight] of Object.entries(WORD_WEIGHTS)) {
    const words = textWords(texts[field as keyof typeof WORD_WEIGHTS]).filter(
      (word) => word.length <= MAX_INDEXED_WORD_LENGTH,
    );
    for (const word of words) add(WORD_KINDS.word, word, weight);
    for (const stem of new Set(words.map(frenchStem))) add(WORD_KINDS.stem, stem, weight);
  }
  return weights.flatMap((byWord, kind) =>
    [...byWord].map(([word, weight]) => ({ kind, word, resourceOid, weight })),
  );
}

/** Rewrites the full-text index rows of a resource from its texts. */
export async function writeWords(
  tx: Transaction,
  resourceOid: number,
  texts: Record<keyof typeof WORD_WEIGHTS, string>,
) {
  await tx.resourceWord.deleteMany({ where: { resourceOid } });
  await tx.resourceWord.createMany({ data: wordRows(resourceOid, texts) });
}
