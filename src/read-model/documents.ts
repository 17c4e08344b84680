/**
 * Reading resources in one statement. A resource's multi-valued fields live in join tables (the
 * indexes that filters and rights use); a read needs them all, with the names of authors and
 * groups, and for `_relations` the title, type and rights facts of local targets. Loading them
 * relation by relation cost one statement each (16 for one resource); here the database assembles
 * everything as JSON in one statement, for one resource or for a page of them, on both databases.
 *
 * What a page needs depends on the fields asked for (`DocumentParts`): a light list needs the
 * rights facts only, a Ref its categories, `format=full` everything.
 */
import {
  type FieldValue,
  fieldsWhere,
  RESOURCE_FIELDS,
  type ResourceFieldName,
} from '../catalogue/resource-fields.ts';
import type { Sql, Statement } from './dialect.ts';
import { boolean, byShape, DECODE, DECODE_IN_JSON, json, read, sql } from './rows.ts';

/** The facts about a resource that its rights depend on (src/modules/resources/resources.policy.ts). */
export interface RightsFacts {
  publie: boolean;
  restriction: number;
  type: string;
  aliasOf: string | null;
  authorOids: readonly number[];
  contributorOids: readonly number[];
  readerGroupOids: readonly number[];
  authorGroupOids: readonly number[];
}

export interface PersonSummary {
  oid: number;
  pid: string;
  nom: string;
  prenom: string;
}

export interface GroupSummary {
  oid: number;
  nom: string;
}

/** A local target of `relations`: enough to show it (`_relations`) to those who may read it. */
export interface TargetSummary {
  oid: number;
  titre: string;
  type: string;
  facts: RightsFacts;
}

/** A resource's fields, as the catalogue declares them (src/catalogue/resource-fields.ts). */
type DocumentFields = { [N in ResourceFieldName]: FieldValue<N> };

export interface ResourceDocument extends DocumentFields {
  /** Always loaded: what the rights depend on. */
  facts: RightsFacts;
  /** `links` part. */
  categories?: number[];
  niveaux?: string[];
  typePedagogiques?: number[];
  typeDocumentaires?: number[];
  relations?: Array<{ predicate: number; targetRid: string }>;
  /** `people` part, in order. */
  authors?: PersonSummary[];
  parentAuthors?: PersonSummary[];
  contributors?: PersonSummary[];
  /** `groups` part, in order. */
  readerGroups?: GroupSummary[];
  authorGroups?: GroupSummary[];
  /** `targets` part: local targets of `relations`, by oid. */
  targets?: ReadonlyMap<number, TargetSummary>;
}

export interface DocumentParts {
  /** The columns beyond a list's summary (`DETAIL_COLUMNS`); a summary has the others only. */
  detail?: boolean;
  links?: boolean;
  people?: boolean;
  groups?: boolean;
  targets?: boolean;
  /**
   * Leave out the authors, contributors and groups of the rights facts: for callers whose rights
   * never depend on them (`rightsNeedRelations`). Reading them then throws, never answers empty
   * (unless the document has the `people` and `groups` parts, which carry them).
   */
  withoutRelationFacts?: boolean;
}

export const ALL_PARTS: Readonly<Required<Omit<DocumentParts, 'withoutRelationFacts'>>> = {
  detail: true,
  links: true,
  people: true,
  groups: true,
  targets: true,
};

/** How a resource is designated (the `where` of an identification). */
export type DocumentKey =
  | { oid: number }
  | { cle: string }
  | { origine_idOrigine: { origine: string; idOrigine: string } };

// ---------------------------------------------------------------------------------------------
// SQL

/** Oids of one relation of resource `r`, in order. */
function oids(q: Sql, table: string, column: string, r: string): string {
  return q.dialect.jsonArray(`x."${column}"`, `"${table}" x WHERE x."resourceOid" = ${r}.oid`, 'x.position');
}

type Entry = readonly [key: string, expression: string];

/** Rights facts of resource alias `r`, as entries of its document. */
function factEntries(q: Sql, r: string): Entry[] {
  return [
    ['authorOids', oids(q, 'ResourceAuthor', 'personOid', r)],
    ['contributorOids', oids(q, 'ResourceContributor', 'personOid', r)],
    ['readerGroupOids', oids(q, 'ResourceGroup', 'groupOid', r)],
    ['authorGroupOids', oids(q, 'ResourceAuthorGroup', 'groupOid', r)],
  ];
}

function people(q: Sql, table: string): string {
  const { dialect } = q;
  return dialect.jsonArray(
    dialect.tuple('p.oid', 'p.pid', 'p.nom', 'p.prenom'),
    `"${table}" x JOIN "Person" p ON p.oid = x."personOid" WHERE x."resourceOid" = r.oid`,
    'x.position',
  );
}

function groups(q: Sql, table: string): string {
  const { dialect } = q;
  return dialect.jsonArray(
    dialect.tuple('g.oid', 'g.nom'),
    `"${table}" x JOIN "Group" g ON g.oid = x."groupOid" WHERE x."resourceOid" = r.oid`,
    'x.position',
  );
}

/** The columns every document has: a list's summary, and what rights depend on. */
export const SUMMARY_COLUMNS: readonly string[] = fieldsWhere((field) => field.part === 'summary');

/** The other columns, in documents with the `detail` part. */
const DETAIL_COLUMNS: readonly string[] = fieldsWhere((field) => field.part === 'detail');

/** How a row gives a document's detail columns: as columns, or as entries of one JSON object. */
type DetailDecoders = readonly (readonly [column: string, decode: (value: unknown) => unknown])[];

/**
 * The detail columns with their decoders, from the catalogue: a field added there is read with no
 * line here. Always stored in the same order, so documents share one shape (V8 keeps them fast).
 */
const detailDecoders = (decoders: typeof DECODE): DetailDecoders =>
  DETAIL_COLUMNS.map(
    (column) => [column, decoders[RESOURCE_FIELDS[column as ResourceFieldName].kind]] as const,
  );
const DETAIL_COLUMN_DECODERS = detailDecoders(DECODE);
const DETAIL_ENTRY_DECODERS = detailDecoders(DECODE_IN_JSON);

type KeyKind = 'oid' | 'oids' | 'cle' | 'origin';

const isJsonColumn = (key: string) =>
  key in RESOURCE_FIELDS && RESOURCE_FIELDS[key as ResourceFieldName].kind === 'json';

/**
 * The document of resource alias `r` with `parts`, as columns (`key AS "key"`): for pages, whose
 * rows the driver decodes column by column faster than it parses as many JSON objects (and
 * PostgreSQL writes them faster too).
 */
export function documentColumns(q: Sql, parts: DocumentParts): string {
  return documentEntries(q, parts)
    .map(([key, expression]) => `${expression} AS "${key}"`)
    .join(', ');
}

/**
 * The document of resource alias `r` with `parts`, as one JSON column `doc`, built whole by the
 * database: for one resource, whose row is then one value for the driver to decode instead of
 * some thirty columns, each with its parser set up for the one row (13–19% less CPU in the read
 * model for a full read, docs/performance.md).
 */
function documentObject(q: Sql, parts: DocumentParts): string {
  const entries = documentEntries(q, parts).map(
    ([key, expression]): Entry =>
      isJsonColumn(key) ? [key, q.dialect.embedJson(expression)] : [key, expression],
  );
  return `${q.dialect.object(entries)} AS doc`;
}

/**
 * The entries of the document of resource alias `r` with `parts`. Targets are found by the rid
 * prefix `<baseId>/`, argument `prefix`.
 */
function documentEntries(q: Sql, parts: DocumentParts): Entry[] {
  const { dialect } = q;
  const entries: Entry[] = [...SUMMARY_COLUMNS, ...(parts.detail ? DETAIL_COLUMNS : [])].map((column) => [
    column,
    `r."${column}"`,
  ]);
  // With both named lists, the rights facts are read off them (`toDocument`), not selected again.
  if (!parts.withoutRelationFacts && !(parts.people && parts.groups)) entries.push(...factEntries(q, 'r'));
  if (parts.links) {
    entries.push(
      ['categories', oids(q, 'ResourceCategory', 'categoryId', 'r')],
      ['niveaux', oids(q, 'ResourceLevel', 'level', 'r')],
      ['typePedagogiques', oids(q, 'ResourcePedagogicType', 'typeId', 'r')],
      ['typeDocumentaires', oids(q, 'ResourceDocumentaryType', 'typeId', 'r')],
      [
        'relations',
        dialect.jsonArray(
          dialect.tuple('x.predicate', 'x."targetRid"'),
          `"ResourceRelation" x WHERE x."resourceOid" = r.oid`,
          'x.position',
        ),
      ],
    );
  }
  if (parts.people) {
    entries.push(
      ['authors', people(q, 'ResourceAuthor')],
      ['parentAuthors', people(q, 'ResourceParentAuthor')],
      ['contributors', people(q, 'ResourceContributor')],
    );
  }
  if (parts.groups) {
    entries.push(
      ['readerGroups', groups(q, 'ResourceGroup')],
      ['authorGroups', groups(q, 'ResourceAuthorGroup')],
    );
  }
  if (parts.targets) {
    const facts = factEntries(q, 't').map(([, expression]) => expression);
    const target = dialect.oidAfterPrefix('x."targetRid"', () => q.argument('prefix', 'text'));
    entries.push([
      'targets',
      dialect.jsonArray(
        dialect.tuple('t.oid', 't.titre', 't.type', 't.publie', 't.restriction', 't."aliasOf"', ...facts),
        `"ResourceRelation" x JOIN "Resource" t ON t.oid = ${target} WHERE x."resourceOid" = r.oid`,
        't.oid',
      ),
    ]);
  }
  return entries;
}

/** The statement of the documents designated by `key` (arguments `key`, and `idOrigine` for an origin pair). */
function keyedStatement(key: KeyKind, parts: DocumentParts): Statement {
  const q = sql();
  // Written in the order of the text: SQLite binds its values by position. One resource as one
  // object, several as columns (see documentColumns).
  const columns = key === 'oids' ? documentColumns(q, parts) : documentObject(q, parts);
  const where = {
    oid: () => `r.oid = ${q.argument('key', 'int')}`,
    oids: () => q.dialect.isAnyOf('r.oid', q.argumentList('key', 'int')),
    cle: () => `r.cle = ${q.argument('key', 'text')}`,
    origin: () =>
      `r.origine = ${q.argument('key', 'text')} AND r."idOrigine" = ${q.argument('idOrigine', 'text')}`,
  }[key]();
  return q.statement(`SELECT ${columns} FROM "Resource" r WHERE ${where}`);
}

/** Built once per key kind, parts and database. */
const statementFor = byShape(
  ({ key, parts }: { key: KeyKind; parts: DocumentParts }) =>
    `${key}:${parts.detail ? 'd' : ''}${parts.links ? 'l' : ''}${parts.people ? 'p' : ''}${parts.groups ? 'g' : ''}${parts.targets ? 't' : ''}${parts.withoutRelationFacts ? '-' : ''}`,
  ({ key, parts }) => keyedStatement(key, parts),
);

// ---------------------------------------------------------------------------------------------
// Rows to documents

type Row = Record<string, unknown>;

const person = ([oid, pid, nom, prenom]: [number, string, string, string]): PersonSummary => ({
  oid,
  pid,
  nom,
  prenom,
});
const group = ([oid, nom]: [number, string]): GroupSummary => ({ oid, nom });

type TargetTuple = [number, string, string, boolean | number, number, string | null, ...unknown[]];

const notLoaded = (): never => {
  throw new Error('The rights facts of this document were loaded without authors and groups');
};

/**
 * Facts of a document read `withoutRelationFacts`: reading a relation is a programming error. The
 * getters are on the prototype: defining them per object cost a list of 500 measurable CPU.
 */
class FactsWithoutRelations implements RightsFacts {
  readonly publie: boolean;
  readonly restriction: number;
  readonly type: string;
  readonly aliasOf: string | null;
  constructor(row: Row) {
    this.publie = boolean(row.publie);
    this.restriction = row.restriction as number;
    this.type = row.type as string;
    this.aliasOf = row.aliasOf as string | null;
  }
  get authorOids(): never {
    return notLoaded();
  }
  get contributorOids(): never {
    return notLoaded();
  }
  get readerGroupOids(): never {
    return notLoaded();
  }
  get authorGroupOids(): never {
    return notLoaded();
  }
}

const oidOf = ({ oid }: { oid: number }) => oid;

type RelationFacts = Pick<
  RightsFacts,
  'authorOids' | 'contributorOids' | 'readerGroupOids' | 'authorGroupOids'
>;

/**
 * The relations the rights depend on: selected as oid lists, or read off the named lists of a
 * document that has the `people` and `groups` parts; undefined when the row has neither.
 */
function relationFacts(row: Row, named: Partial<ResourceDocument>): RelationFacts | undefined {
  if (row.authorOids !== undefined) {
    return {
      authorOids: json<number[]>(row.authorOids),
      contributorOids: json<number[]>(row.contributorOids),
      readerGroupOids: json<number[]>(row.readerGroupOids),
      authorGroupOids: json<number[]>(row.authorGroupOids),
    };
  }
  const { authors, contributors, readerGroups, authorGroups } = named;
  if (!authors || !contributors || !readerGroups || !authorGroups) return undefined;
  return {
    authorOids: authors.map(oidOf),
    contributorOids: contributors.map(oidOf),
    readerGroupOids: readerGroups.map(oidOf),
    authorGroupOids: authorGroups.map(oidOf),
  };
}

const personList = (value: unknown) => json<[number, string, string, string][]>(value).map(person);
const groupList = (value: unknown) => json<[number, string][]>(value).map(group);

/** The resources a document's relations point to, by oid, with what their rights depend on. */
function targetsOf(targets: unknown): ResourceDocument['targets'] {
  return new Map(
    json<TargetTuple[]>(targets).map(([oid, titre, type, publie, restriction, aliasOf, ...facts]) => [
      oid,
      {
        oid,
        titre,
        type,
        facts: {
          publie: boolean(publie),
          restriction,
          type,
          aliasOf,
          authorOids: json<number[]>(facts[0]),
          contributorOids: json<number[]>(facts[1]),
          readerGroupOids: json<number[]>(facts[2]),
          authorGroupOids: json<number[]>(facts[3]),
        },
      },
    ]),
  );
}

function toDocument(row: Row, detailDecoders: DetailDecoders): ResourceDocument {
  const named: Partial<ResourceDocument> = {};
  if (row.authors !== undefined) {
    named.authors = personList(row.authors);
    named.parentAuthors = personList(row.parentAuthors);
    named.contributors = personList(row.contributors);
  }
  if (row.readerGroups !== undefined) {
    named.readerGroups = groupList(row.readerGroups);
    named.authorGroups = groupList(row.authorGroups);
  }
  const relations = relationFacts(row, named);
  const document = {
    oid: row.oid,
    titre: row.titre,
    resume: row.resume,
    description: row.description,
    commentaires: row.commentaires,
    type: row.type,
    publie: boolean(row.publie),
    restriction: row.restriction,
    aliasOf: row.aliasOf,
    facts: relations
      ? {
          publie: boolean(row.publie),
          restriction: row.restriction as number,
          type: row.type as string,
          aliasOf: row.aliasOf as string | null,
          authorOids: relations.authorOids,
          contributorOids: relations.contributorOids,
          readerGroupOids: relations.readerGroupOids,
          authorGroupOids: relations.authorGroupOids,
        }
      : (new FactsWithoutRelations(row) as RightsFacts),
  } as ResourceDocument;
  if (row.origine !== undefined) {
    const detail = document as unknown as Record<string, unknown>;
    for (const [column, decode] of detailDecoders) detail[column] = decode(row[column]);
  }
  if (row.categories !== undefined) {
    document.categories = json(row.categories);
    document.niveaux = json(row.niveaux);
    document.typePedagogiques = json(row.typePedagogiques);
    document.typeDocumentaires = json(row.typeDocumentaires);
    document.relations = json<[number, string][]>(row.relations).map(([predicate, targetRid]) => ({
      predicate,
      targetRid,
    }));
  }
  if (named.authors) {
    document.authors = named.authors;
    document.parentAuthors = named.parentAuthors;
    document.contributors = named.contributors;
  }
  if (named.readerGroups) {
    document.readerGroups = named.readerGroups;
    document.authorGroups = named.authorGroups;
  }
  if (row.targets !== undefined) document.targets = targetsOf(row.targets);
  return document;
}

// ---------------------------------------------------------------------------------------------
// Loading

/** The documents of the rows of a statement selecting `documentObject`. */
async function run(statement: Statement, args: Record<string, unknown>): Promise<ResourceDocument[]> {
  const rows = await read<Row>(statement, args);
  return rows.map((row) => toDocument(json<Row>(row.doc), DETAIL_ENTRY_DECODERS));
}

/** The document of the resource designated by `key`, or null. One statement. */
export async function loadDocument(
  key: DocumentKey,
  baseId: string,
  parts: DocumentParts = ALL_PARTS,
): Promise<ResourceDocument | null> {
  const prefix = `${baseId}/`;
  let rows: ResourceDocument[];
  if ('oid' in key) rows = await run(statementFor({ key: 'oid', parts }), { key: key.oid, prefix });
  else if ('cle' in key) rows = await run(statementFor({ key: 'cle', parts }), { key: key.cle, prefix });
  else {
    const { origine, idOrigine } = key.origine_idOrigine;
    rows = await run(statementFor({ key: 'origin', parts }), { key: origine, idOrigine, prefix });
  }
  return rows[0] ?? null;
}

/** The documents of `oids`, in the order given (missing ones left out). One statement. */
export async function loadDocuments(
  oids: readonly number[],
  baseId: string,
  parts: DocumentParts,
): Promise<ResourceDocument[]> {
  if (oids.length === 0) return [];
  const rows = toDocuments(
    await read<Row>(statementFor({ key: 'oids', parts }), { key: oids, prefix: `${baseId}/` }),
  );
  const byOid = new Map(rows.map((row) => [row.oid, row]));
  return oids.flatMap((oid) => byOid.get(oid) ?? []);
}

/** Documents from the rows of a statement selecting `documentColumns` (pages.ts). */
export const toDocuments = (rows: Row[]): ResourceDocument[] =>
  rows.map((row) => toDocument(row, DETAIL_COLUMN_DECODERS));
