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
import { PREPARED, provider, readRows } from '../../db/client.ts';
import { INT32_MAX } from '../../lib/integers.ts';
import { isSqlOrderColumn, type ParameterSink, parameterSink } from '../lists/where-sql.ts';
import type { RightsFacts } from './resources.policy.ts';

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

export interface ResourceDocument {
  oid: number;
  origine: string;
  idOrigine: string;
  titre: string;
  resume: string;
  description: string;
  commentaires: string;
  type: string;
  langue: string;
  publie: boolean;
  restriction: number;
  indexable: boolean;
  parametres: unknown;
  enfants: unknown;
  aliasOf: string | null;
  cle: string | null;
  version: number;
  inc: number;
  archiveOid: number | null;
  dateCreation: Date;
  dateMiseAJour: Date;
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
// SQL, in each database's JSON dialect

interface Dialect {
  /** The n-th parameter of the statement (1-based), which may be used several times. */
  param(n: number): string;
  /** A JSON array of `expression` over the rows of `from`, in `order` (empty: `[]`). */
  array(expression: string, from: string, order: string): string;
  tuple(...expressions: string[]): string;
  /** `column` is one of the oids in parameter n (a JSON list). */
  inOids(column: string, n: number): string;
  /** The oid a rid names here (parameter n is `<baseId>/`), or NULL. */
  localOid(rid: string, n: number): string;
}

const postgres = (): Dialect => ({
  param: (n) => `$${n}`,
  array: (expression, from, order) =>
    `(SELECT coalesce(json_agg(${expression} ORDER BY ${order}), '[]') FROM ${from})`,
  tuple: (...expressions) => `json_build_array(${expressions.join(', ')})`,
  inOids: (column, n) => `${column} IN (SELECT value::int FROM json_array_elements_text($${n}::json))`,
  localOid: (rid, n) =>
    `CASE WHEN left(${rid}, length($${n})) = $${n} AND substr(${rid}, length($${n}) + 1) ~ '^[1-9][0-9]{0,9}$' ` +
    `AND substr(${rid}, length($${n}) + 1)::bigint <= ${INT32_MAX} THEN substr(${rid}, length($${n}) + 1)::int END`,
});

/**
 * SQLite, as better-sqlite3 binds it: only anonymous `?` take values in order, so a parameter used
 * twice is passed twice; `order` records which parameter each `?` stands for.
 */
const sqlite = (order: number[]): Dialect => {
  const param = (n: number) => {
    order.push(n);
    return '?';
  };
  return {
    param,
    array: (expression, from, sort) =>
      `(SELECT coalesce(json_group_array(${expression} ORDER BY ${sort}), '[]') FROM ${from})`,
    tuple: (...expressions) => `json_array(${expressions.join(', ')})`,
    inOids: (column, n) => `${column} IN (SELECT value FROM json_each(${param(n)}))`,
    localOid: (rid, n) => {
      // The oid part after the prefix: digits only, no leading zero, within the 32-bit range.
      const rest = () => `substr(${rid}, length(${param(n)}) + 1)`;
      return (
        `CASE WHEN substr(${rid}, 1, length(${param(n)})) = ${param(n)} AND ${rest()} GLOB '[1-9]*' ` +
        `AND ${rest()} NOT GLOB '*[^0-9]*' AND length(${rest()}) <= 10 ` +
        `AND CAST(${rest()} AS INTEGER) <= ${INT32_MAX} THEN CAST(${rest()} AS INTEGER) END`
      );
    },
  };
};

/** Oids of one relation of resource `r`, in order. */
function oids(d: Dialect, table: string, column: string, r: string): string {
  return d.array(`x."${column}"`, `"${table}" x WHERE x."resourceOid" = ${r}.oid`, 'x.position');
}

/** Rights facts of resource alias `r`, as columns. */
function factColumns(d: Dialect, r: string): string[] {
  return [
    `${oids(d, 'ResourceAuthor', 'personOid', r)} AS "authorOids"`,
    `${oids(d, 'ResourceContributor', 'personOid', r)} AS "contributorOids"`,
    `${oids(d, 'ResourceGroup', 'groupOid', r)} AS "readerGroupOids"`,
    `${oids(d, 'ResourceAuthorGroup', 'groupOid', r)} AS "authorGroupOids"`,
  ];
}

function people(d: Dialect, table: string): string {
  return d.array(
    d.tuple('p.oid', 'p.pid', 'p.nom', 'p.prenom'),
    `"${table}" x JOIN "Person" p ON p.oid = x."personOid" WHERE x."resourceOid" = r.oid`,
    'x.position',
  );
}

function groups(d: Dialect, table: string): string {
  return d.array(
    d.tuple('g.oid', 'g.nom'),
    `"${table}" x JOIN "Group" g ON g.oid = x."groupOid" WHERE x."resourceOid" = r.oid`,
    'x.position',
  );
}

/** The columns every document has: a list's summary, and what rights depend on. */
export const SUMMARY_COLUMNS = [
  'oid',
  'titre',
  'resume',
  'description',
  'commentaires',
  'type',
  'publie',
  'restriction',
  'aliasOf',
];

/** The other columns, in documents with the `detail` part. */
const DETAIL_COLUMNS = [
  'origine',
  'idOrigine',
  'langue',
  'indexable',
  'parametres',
  'enfants',
  'cle',
  'version',
  'inc',
  'archiveOid',
  'dateCreation',
  'dateMiseAJour',
];

type KeyKind = 'oid' | 'oids' | 'cle' | 'origin';

/**
 * The statement for documents designated by `key` (its parameters come first), with `parts`.
 * The rid prefix (`<baseId>/`) is the last parameter, when targets are asked for.
 */
function statement(d: Dialect, key: KeyKind, parts: DocumentParts): string {
  const keyParams = key === 'origin' ? 2 : 1;
  const columns = documentColumns(d, parts, keyParams + 1);
  // Built after the columns: parameters are numbered in the order the SQL text uses them.
  const where = {
    oid: () => `r.oid = ${d.param(1)}`,
    oids: () => d.inOids('r.oid', 1),
    cle: () => `r.cle = ${d.param(1)}`,
    origin: () => `r.origine = ${d.param(1)} AND r."idOrigine" = ${d.param(2)}`,
  }[key]();
  return `SELECT ${columns} FROM "Resource" r WHERE ${where}`;
}

/** The columns of a document of resource alias `r`; parameter `prefix` is the rid prefix (targets). */
function documentColumns(d: Dialect, parts: DocumentParts, prefix: number): string {
  const columns = [...SUMMARY_COLUMNS, ...(parts.detail ? DETAIL_COLUMNS : [])].map(
    (column) => `r."${column}"`,
  );
  // With both named lists, the rights facts are read off them (`toDocument`), not selected again.
  if (!parts.withoutRelationFacts && !(parts.people && parts.groups)) columns.push(...factColumns(d, 'r'));
  if (parts.links) {
    columns.push(
      `${oids(d, 'ResourceCategory', 'categoryId', 'r')} AS categories`,
      `${oids(d, 'ResourceLevel', 'level', 'r')} AS niveaux`,
      `${oids(d, 'ResourcePedagogicType', 'typeId', 'r')} AS "typePedagogiques"`,
      `${oids(d, 'ResourceDocumentaryType', 'typeId', 'r')} AS "typeDocumentaires"`,
      `${d.array(d.tuple('x.predicate', 'x."targetRid"'), `"ResourceRelation" x WHERE x."resourceOid" = r.oid`, 'x.position')} AS relations`,
    );
  }
  if (parts.people) {
    columns.push(
      `${people(d, 'ResourceAuthor')} AS authors`,
      `${people(d, 'ResourceParentAuthor')} AS "parentAuthors"`,
      `${people(d, 'ResourceContributor')} AS contributors`,
    );
  }
  if (parts.groups) {
    columns.push(
      `${groups(d, 'ResourceGroup')} AS "readerGroups"`,
      `${groups(d, 'ResourceAuthorGroup')} AS "authorGroups"`,
    );
  }
  if (parts.targets) {
    const facts = factColumns(d, 't').map((column) => column.replace(/ AS "\w+"$/, ''));
    columns.push(
      `${d.array(
        d.tuple('t.oid', 't.titre', 't.type', 't.publie', 't.restriction', 't."aliasOf"', ...facts),
        `"ResourceRelation" x JOIN "Resource" t ON t.oid = ${d.localOid('x."targetRid"', prefix)} WHERE x."resourceOid" = r.oid`,
        't.oid',
      )} AS targets`,
    );
  }
  return columns.join(', ');
}

interface Statement {
  sql: string;
  /** Arguments in the order the SQL takes them, from the statement's parameters (1-based). */
  bind(params: unknown[]): unknown[];
}

/** Statements are built once per shape. */
const statements = new Map<string, Statement>();
function statementFor(key: KeyKind, parts: DocumentParts): Statement {
  const id = `${provider}:${key}:${parts.detail ? 'd' : ''}${parts.links ? 'l' : ''}${parts.people ? 'p' : ''}${parts.groups ? 'g' : ''}${parts.targets ? 't' : ''}${parts.withoutRelationFacts ? '-' : ''}`;
  let built = statements.get(id);
  if (!built) {
    if (provider === 'postgresql') {
      built = { sql: PREPARED + statement(postgres(), key, parts), bind: (params) => params };
    } else {
      const order: number[] = [];
      const sql = statement(sqlite(order), key, parts);
      built = { sql, bind: (params) => order.map((n) => params[n - 1]) };
    }
    statements.set(id, built);
  }
  return built;
}

// ---------------------------------------------------------------------------------------------
// Rows to documents

type Row = Record<string, unknown>;

/** JSON built by the database: parsed by the driver on PostgreSQL, text on SQLite. */
const json = <T>(value: unknown): T => (typeof value === 'string' ? JSON.parse(value) : value) as T;

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
 * getters are on the prototype: defining them per object cost a list of 500 about 3% of its CPU.
 */
class FactsWithoutRelations implements RightsFacts {
  readonly publie: boolean;
  readonly restriction: number;
  readonly type: string;
  readonly aliasOf: string | null;
  constructor(row: Row) {
    this.publie = Boolean(row.publie);
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

function toDocument(row: Row): ResourceDocument {
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
    publie: Boolean(row.publie),
    restriction: row.restriction,
    aliasOf: row.aliasOf,
    facts: relations
      ? {
          publie: Boolean(row.publie),
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
    Object.assign(document, {
      origine: row.origine,
      idOrigine: row.idOrigine,
      langue: row.langue,
      indexable: Boolean(row.indexable),
      parametres: json(row.parametres ?? null),
      enfants: json(row.enfants ?? null),
      cle: row.cle,
      version: row.version,
      inc: row.inc,
      archiveOid: row.archiveOid,
      dateCreation:
        row.dateCreation instanceof Date ? row.dateCreation : new Date(row.dateCreation as string),
      dateMiseAJour:
        row.dateMiseAJour instanceof Date ? row.dateMiseAJour : new Date(row.dateMiseAJour as string),
    });
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
  if (row.targets !== undefined) {
    document.targets = new Map(
      json<TargetTuple[]>(row.targets).map(([oid, titre, type, publie, restriction, aliasOf, ...facts]) => [
        oid,
        {
          oid,
          titre,
          type,
          facts: {
            publie: Boolean(publie),
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
  return document;
}

// ---------------------------------------------------------------------------------------------
// Loading

async function run({ sql, bind }: Statement, params: unknown[]): Promise<ResourceDocument[]> {
  const rows = await readRows<Row>(sql, bind(params));
  return rows.map(toDocument);
}

/** The document of the resource designated by `key`, or null. One statement. */
export async function loadDocument(
  key: DocumentKey,
  baseId: string,
  parts: DocumentParts = ALL_PARTS,
): Promise<ResourceDocument | null> {
  const prefix = parts.targets ? [`${baseId}/`] : [];
  let rows: ResourceDocument[];
  if ('oid' in key) rows = await run(statementFor('oid', parts), [key.oid, ...prefix]);
  else if ('cle' in key) rows = await run(statementFor('cle', parts), [key.cle, ...prefix]);
  else {
    const { origine, idOrigine } = key.origine_idOrigine;
    rows = await run(statementFor('origin', parts), [origine, idOrigine, ...prefix]);
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
  const prefix = parts.targets ? [`${baseId}/`] : [];
  const rows = await run(statementFor('oids', parts), [JSON.stringify(oids), ...prefix]);
  const byOid = new Map(rows.map((row) => [row.oid, row]));
  return oids.flatMap((oid) => byOid.get(oid) ?? []);
}

/** A page of a list: its condition (see src/modules/lists/where-sql.ts), order and bounds. */
export interface PageQuery {
  /** The condition on resource alias `r`, its values added to the sink; undefined: not expressible. */
  where: (sink: ParameterSink) => string | undefined;
  /** A Resource column; ties are broken by oid in the same direction. */
  orderColumn: string;
  order: 'asc' | 'desc';
  start: number;
  nb: number;
}

/**
 * The documents of a page of a list, in its order: page and documents in one statement (the page's
 * oids in a sub-query, so the documents' sub-queries run for the page's rows only). Undefined when
 * the condition cannot be written here (the caller then reads the page's oids first).
 */
export async function loadPage(
  query: PageQuery,
  baseId: string,
  parts: DocumentParts,
): Promise<ResourceDocument[] | undefined> {
  // The rid prefix of targets is parameter 1 of the columns; the condition's values follow.
  const prefix = `${baseId}/`;
  const values: unknown[] = [];
  let columns: string;
  if (provider === 'postgresql') {
    columns = documentColumns(postgres(), parts, 1);
    if (parts.targets) values.push(prefix);
  } else {
    const order: number[] = [];
    columns = documentColumns(sqlite(order), parts, 1);
    for (const _use of order) values.push(prefix);
  }
  const { sink } = parameterSink(provider, values);
  if (!isSqlOrderColumn(query.orderColumn)) return undefined;
  const condition = query.where(sink);
  if (condition === undefined) return undefined;
  const direction = query.order === 'desc' ? 'DESC' : 'ASC';
  const byOid = query.orderColumn === 'oid';
  const inner = byOid ? `r.oid ${direction}` : `r."${query.orderColumn}" ${direction}, r.oid ${direction}`;
  const outer = byOid
    ? `page."pageOid" ${direction}`
    : `page."pageKey" ${direction}, page."pageOid" ${direction}`;
  const sql =
    `SELECT ${columns} FROM (SELECT r.oid AS "pageOid"${byOid ? '' : `, r."${query.orderColumn}" AS "pageKey"`} ` +
    `FROM "Resource" r WHERE ${condition} ORDER BY ${inner} LIMIT ${sink.add(query.nb)} OFFSET ${sink.add(query.start)}) page ` +
    `JOIN "Resource" r ON r.oid = page."pageOid" ORDER BY ${outer}`;
  const rows = await readRows<Row>(provider === 'postgresql' ? PREPARED + sql : sql, values);
  return rows.map(toDocument);
}
