/**
 * What OAI-PMH harvesters read: the harvest entries (one per resource that is or was exposed, kept
 * by the database's triggers: the harvest_entries migration) and, for the live ones, the record's
 * metadata. A page is one statement, whatever its size and filters: the entries in oid order after
 * a keyset, and with metadata the resource's columns and its lists assembled as JSON (as
 * documents.ts does). A page of headers reads the entries alone.
 *
 * Sets are tested on the entry's own `type` and tags, which the triggers copy from the resource
 * while it is exposed: a deleted record keeps the sets it was last in, so a harvest of a set is
 * told of the deletions in it.
 */

import {
  type FieldValue,
  fieldsWhere,
  RESOURCE_FIELDS,
  type ResourceFieldName,
} from '../catalogue/resource-fields.ts';
import { tagOf, valuesOfTags } from './conditions.ts';
import type { Sql, Statement } from './dialect.ts';
import {
  boolean,
  byShape,
  count as countOf,
  DECODE,
  date,
  json,
  once,
  read,
  roundedSize,
  sql,
} from './rows.ts';

/** A set, parsed: its kind and value (`niveau:6e` → level `6e`). */
export type HarvestSetFilter =
  | { kind: 'type'; value: string }
  | { kind: 'level'; value: string }
  | { kind: 'category'; value: number }
  /** The parent sets: a record with any type (every record), any level, any category. */
  | { kind: 'anyType' | 'anyLevel' | 'anyCategory' };

export interface HarvestFilter {
  /** Inclusive bounds, whole seconds (the datestamps are stored truncated to the second). */
  from?: Date;
  until?: Date;
  set?: HarvestSetFilter;
}

export interface HarvestPerson {
  pid: string;
  nom: string;
  prenom: string;
}

/** The catalogue's fields harvesters receive or that decide whether they may (`harvest` set). */
type HarvestedName = {
  [N in ResourceFieldName]: (typeof RESOURCE_FIELDS)[N] extends { harvest: string } ? N : never;
}[ResourceFieldName];

/** A live record's metadata: the catalogue's harvested fields, then the lists and the people. */
export type HarvestMetadata = { [N in HarvestedName]: FieldValue<N> } & {
  niveaux: string[];
  categories: number[];
  typePedagogiques: number[];
  typeDocumentaires: number[];
  authors: HarvestPerson[];
  contributors: HarvestPerson[];
};

export interface HarvestRow {
  oid: number;
  datestamp: Date;
  /** Deleted, or (with metadata) its resource is not exposed. */
  deleted: boolean;
  /** The sets' values the entry holds: the resource's while exposed, its last ones once deleted. */
  type: string;
  levels: string[];
  categories: number[];
  /** With metadata, when live. */
  metadata: HarvestMetadata | null;
}

/** Exposed: what anonymous callers read and searches list (resources.policy.ts `isHarvestable`). */
const exposed = (r: string) =>
  `${r}."publie" AND ${r}."restriction" = 0 AND ${r}."indexable" AND ${r}."aliasOf" IS NULL`;

function people(q: Sql, table: string): string {
  const { dialect } = q;
  return dialect.jsonArray(
    dialect.tuple('p.pid', 'p.nom', 'p.prenom'),
    `"${table}" x JOIN "Person" p ON p.oid = x."personOid" WHERE x."resourceOid" = r.oid`,
    'x.position',
  );
}

const list = (q: Sql, table: string, column: string) =>
  q.dialect.jsonArray(`x."${column}"`, `"${table}" x WHERE x."resourceOid" = r.oid`, 'x.position');

/** The metadata's columns; NULL for an entry without an exposed resource (the LEFT JOIN). */
/** The columns of an entry (`e`), which a page always reads. */
const ENTRY_NAMES = ['oid', 'datestamp', 'deleted', 'type', 'levelTags', 'categoryTags'];
const ENTRY_COLUMNS = ENTRY_NAMES.map((name) => `e."${name}"`).join(', ');

function metadataColumns(q: Sql): string {
  return [
    'r.oid AS "resourceOid"',
    ...HARVESTED_COLUMNS,
    `${list(q, 'ResourceLevel', 'level')} AS niveaux`,
    `${list(q, 'ResourceCategory', 'categoryId')} AS "categoryIds"`,
    `${list(q, 'ResourcePedagogicType', 'typeId')} AS "typePedagogiques"`,
    `${list(q, 'ResourceDocumentaryType', 'typeId')} AS "typeDocumentaires"`,
    `${people(q, 'ResourceAuthor')} AS authors`,
    `${people(q, 'ResourceContributor')} AS contributors`,
  ].join(', ');
}

/**
 * The catalogue's harvested fields of resource alias `r`; one an entry also has (`type`) is named
 * `resource<Name>` (`resourceType`), so that it does not hide the entry's.
 */
const HARVESTED = fieldsWhere((field) => field.harvest !== undefined).map((name) => ({
  name,
  column: ENTRY_NAMES.includes(name) ? `resource${name[0]!.toUpperCase()}${name.slice(1)}` : name,
  decode: DECODE[RESOURCE_FIELDS[name].kind],
}));
const HARVESTED_COLUMNS = HARVESTED.map(({ name, column }) =>
  column === name ? `r."${name}"` : `r."${name}" AS "${column}"`,
);

/** The conditions of `filter` on entry alias `e`, written with their values in `q`'s order. */
function conditions(q: Sql, shape: FilterShape): string[] {
  const where: string[] = [];
  if (shape.from) where.push(`e.datestamp >= ${q.argument('from', 'date')}`);
  if (shape.until) where.push(`e.datestamp <= ${q.argument('until', 'date')}`);
  if (shape.set === 'type') where.push(`e.type = ${q.argument('set', 'text')}`);
  else if (shape.set === 'level') where.push(q.dialect.contains('e."levelTags"', q.argument('set', 'text')));
  else if (shape.set === 'category')
    where.push(q.dialect.contains('e."categoryTags"', q.argument('set', 'text')));
  else if (shape.set === 'anyLevel') where.push(`e."levelTags" <> ''`);
  else if (shape.set === 'anyCategory') where.push(`e."categoryTags" <> ''`);
  return where;
}

/** Which filters a statement has (its text depends on them, not on their values). */
interface FilterShape {
  from: boolean;
  until: boolean;
  set: HarvestSetFilter['kind'] | undefined;
}

const shapeOf = (filter: HarvestFilter): FilterShape => ({
  from: filter.from !== undefined,
  until: filter.until !== undefined,
  set: filter.set?.kind,
});

const shapeKey = (shape: FilterShape) =>
  `${shape.from ? 'f' : ''}${shape.until ? 'u' : ''}${shape.set ?? ''}`;

function filterArgs(filter: HarvestFilter): Record<string, unknown> {
  const { set } = filter;
  return {
    from: filter.from,
    until: filter.until,
    set:
      set === undefined || !('value' in set) ? undefined : set.kind === 'type' ? set.value : tagOf(set.value),
  };
}

function pageStatement(shape: FilterShape, withMetadata: boolean, size: number): Statement {
  const q = sql();
  // Written in the order of the text: SQLite binds its values by position.
  const columns = withMetadata ? `${ENTRY_COLUMNS}, ${metadataColumns(q)}` : ENTRY_COLUMNS;
  const where = [`e.oid > ${q.argument('after', 'int')}`, ...conditions(q, shape)];
  // The page's oids at the size rounded (`roundedSize`: with the size a parameter, PostgreSQL
  // planned this statement again on every page), the page cut by the `limit` parameter.
  const page =
    `(SELECT e.oid AS "pageOid" FROM "HarvestEntry" e WHERE ${where.join(' AND ')} ` +
    `ORDER BY e.oid LIMIT ${size}) page JOIN "HarvestEntry" e ON e.oid = page."pageOid"`;
  // The keyset bounds the resources too: PostgreSQL otherwise merged the entries with Resource read
  // from its first row, a page deep in a harvest filtering every resource before it (22 ms a page
  // instead of 2 on 100k, a whole harvest quadratic).
  const join = withMetadata
    ? ` LEFT JOIN "Resource" r ON r.oid = e.oid AND r.oid > ${q.argument('after', 'int')} AND NOT e.deleted AND ${exposed('r')}`
    : '';
  return q.statement(
    `SELECT ${columns} FROM ${page}${join} ORDER BY e.oid LIMIT ${q.argument('limit', 'int')}`,
  );
}

const recordStatement = once((q) => {
  const columns = `${ENTRY_COLUMNS}, ${metadataColumns(q)}`;
  return q.statement(
    `SELECT ${columns} FROM "HarvestEntry" e LEFT JOIN "Resource" r ON r.oid = e.oid AND NOT e.deleted AND ${exposed('r')} WHERE e.oid = ${q.argument('oid', 'int')}`,
  );
});

function countStatement(shape: FilterShape): Statement {
  const q = sql();
  const where = conditions(q, shape);
  return q.statement(
    `SELECT count(*) AS total FROM "HarvestEntry" e${where.length ? ` WHERE ${where.join(' AND ')}` : ''}`,
    { planEachTime: true },
  );
}

/** Each statement written once per database and shape. */
const pageStatementFor = byShape(
  ({ shape, withMetadata, size }: { shape: FilterShape; withMetadata: boolean; size: number }) =>
    `${shapeKey(shape)}:${withMetadata ? 'm' : 'h'}:${size}`,
  ({ shape, withMetadata, size }) => pageStatement(shape, withMetadata, size),
);
const countStatementFor = byShape(shapeKey, countStatement);
const earliestStatement = once((q) => q.statement('SELECT min(datestamp) AS earliest FROM "HarvestEntry"'));

type Row = Record<string, unknown>;

const personList = (value: unknown) =>
  json<[string, string, string][]>(value).map(([pid, nom, prenom]) => ({ pid, nom, prenom }));

/** A live record's metadata: the harvested fields decoded by kind (a new one needs no line here). */
function harvestMetadata(row: Row): HarvestMetadata {
  const metadata: Record<string, unknown> = {};
  for (const { name, column, decode } of HARVESTED) metadata[name] = decode(row[column]);
  metadata.niveaux = json(row.niveaux);
  metadata.categories = json(row.categoryIds);
  metadata.typePedagogiques = json(row.typePedagogiques);
  metadata.typeDocumentaires = json(row.typeDocumentaires);
  metadata.authors = personList(row.authors);
  metadata.contributors = personList(row.contributors);
  return metadata as HarvestMetadata;
}

function toHarvestRow(row: Row, withMetadata: boolean): HarvestRow {
  const live = withMetadata && row.resourceOid !== null && row.resourceOid !== undefined;
  return {
    oid: row.oid as number,
    datestamp: date(row.datestamp),
    // An entry that says live while its resource is not exposed (which the triggers never leave)
    // gives no metadata, so it is deleted too rather than a record without any.
    deleted: boolean(row.deleted) || (withMetadata && !live),
    type: row.type as string,
    levels: valuesOfTags(row.levelTags as string),
    categories: valuesOfTags(row.categoryTags as string).map(Number),
    metadata: live ? harvestMetadata(row) : null,
  };
}

/**
 * The entries after oid `after` (0: from the start) that `filter` selects, in oid order, at most
 * `limit` of them, with their metadata when `withMetadata`. One statement.
 */
export async function readHarvestPage(
  filter: HarvestFilter,
  { after, limit, withMetadata }: { after: number; limit: number; withMetadata: boolean },
): Promise<HarvestRow[]> {
  const shape = shapeOf(filter);
  const statement = pageStatementFor({ shape, withMetadata, size: roundedSize(limit) });
  const rows = await read<Row>(statement, { ...filterArgs(filter), after, limit });
  return rows.map((row) => toHarvestRow(row, withMetadata));
}

/** How many entries `filter` selects. One statement. */
export async function countHarvestEntries(filter: HarvestFilter): Promise<number> {
  const shape = shapeOf(filter);
  const statement = countStatementFor(shape);
  const [row] = await read<{ total: unknown }>(statement, filterArgs(filter));
  return countOf(row!.total);
}

/** The entry of `oid` with its metadata when live, or null when it was never exposed. One statement. */
export async function readHarvestRecord(oid: number): Promise<HarvestRow | null> {
  const [row] = await read<Row>(recordStatement(), { oid });
  return row ? toHarvestRow(row, true) : null;
}

/** The oldest datestamp of all entries, or null when there are none. One statement. */
export async function earliestHarvestDatestamp(): Promise<Date | null> {
  const [row] = await read<{ earliest: unknown }>(earliestStatement());
  return row?.earliest == null ? null : date(row.earliest);
}
