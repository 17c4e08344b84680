/**
 * Pages of lists: the page's rows and their documents in one statement (the page's oids in a
 * sub-query, so the documents' sub-queries run for the page's rows only), by offset or after a
 * cursor. The condition is the list's `Prisma.ResourceWhereInput`, written by conditions.ts.
 */
import type { Prisma } from '../db/client.ts';
import { orderable, whereSql } from './conditions.ts';
import type { Sql } from './dialect.ts';
import { type DocumentParts, documentColumns, type ResourceDocument, toDocuments } from './documents.ts';
import { read, roundedSize, sql } from './rows.ts';

export interface PageOrder {
  /** A Resource column; ties are broken by oid in the same direction. */
  orderColumn: string;
  order: 'asc' | 'desc';
}

/** A page of a list by offset. */
export interface OffsetPage extends PageOrder {
  where: Prisma.ResourceWhereInput;
  start: number;
  nb: number;
}

/** A page of the resources of some authors, in oid order, by offset. */
export interface AuthorsPage {
  /** Oids of the authors (at least one). */
  authorOids: readonly number[];
  /** What else the resources must match (what the caller may list), besides an author. */
  where: Prisma.ResourceWhereInput;
  start: number;
  nb: number;
}

/** A page of a list after a cursor (the oid of the last resource seen; none: from the start). */
export interface CursorPage extends PageOrder {
  where: Prisma.ResourceWhereInput;
  after: number | undefined;
  limit: number;
}

/** `ORDER BY` the order column (`key`), ties broken by oid (`tie`), in the page's direction. */
function orderBy({ orderColumn, order }: PageOrder, key: string, tie: string): string {
  const direction = order === 'desc' ? 'DESC' : 'ASC';
  return orderColumn === 'oid' ? `${tie} ${direction}` : `${key} ${direction}, ${tie} ${direction}`;
}

/**
 * The documents of the first `size` rows `condition` selects, in `order`, after the `offset` ones
 * (none when undefined); `documentColumns` and `condition` write their values in `q` in the order
 * of the text, the bounds after them. The page's oids are cut at the size rounded (`roundedSize`),
 * the page itself by a `LIMIT` parameter around them.
 */
async function pageDocuments(
  q: Sql,
  columns: string,
  condition: string,
  order: PageOrder,
  { size, offset }: { size: number; offset?: number },
  args: Record<string, unknown>,
): Promise<ResourceDocument[]> {
  const column = order.orderColumn;
  const key = column === 'oid' ? '' : `, r."${column}" AS "pageKey"`;
  const skip = offset === undefined ? '' : ` OFFSET ${q.value(offset, 'int')}`;
  const statement = q.statement(
    `SELECT ${columns} FROM (SELECT r.oid AS "pageOid"${key} FROM "Resource" r WHERE ${condition} ` +
      `ORDER BY ${orderBy(order, `r."${column}"`, 'r.oid')} LIMIT ${roundedSize(size)}${skip}) page ` +
      `JOIN "Resource" r ON r.oid = page."pageOid" ORDER BY ${orderBy(order, 'page."pageKey"', 'page."pageOid"')} ` +
      `LIMIT ${q.value(size, 'int')}`,
  );
  return toDocuments(await read(statement, args));
}

/** A page of a list by offset, in its order. One statement. */
export async function loadPage(
  page: OffsetPage,
  baseId: string,
  parts: DocumentParts,
): Promise<ResourceDocument[]> {
  orderable(page.orderColumn);
  const q = sql();
  // In the order of the text: SQLite binds its values by position.
  const columns = documentColumns(q, parts);
  const condition = whereSql(q, page.where);
  return pageDocuments(
    q,
    columns,
    condition,
    page,
    { size: page.nb, offset: page.start },
    { prefix: `${baseId}/` },
  );
}

/**
 * A page of the resources of some authors, in oid order. One statement, walked from the authors'
 * own rows (the `(personOid, resourceOid)` index): the first `start + nb` resources of each author
 * that match, then the page of their union. The page is among them, since each of its resources is
 * among the first of one of its authors. Its cost follows the page and the number of authors, not
 * how many resources there are or what share of them the authors wrote; walking the resources in
 * oid order until `nb` of the authors' were found took twice as long when their share halved
 * (docs/performance.md).
 */
export async function loadAuthorsPage(
  page: AuthorsPage,
  baseId: string,
  parts: DocumentParts,
): Promise<ResourceDocument[]> {
  if (page.authorOids.length === 0) return [];
  const q = sql();
  // In the order of the text: SQLite binds its values by position.
  const columns = documentColumns(q, parts);
  const firstOfEach = q.eachValue(
    page.authorOids,
    'int',
    (author) =>
      `SELECT r.oid FROM "ResourceAuthor" ra JOIN "Resource" r ON r.oid = ra."resourceOid" ` +
      `WHERE ra."personOid" = ${author} AND (${whereSql(q, page.where)}) ` +
      `ORDER BY ra."resourceOid" LIMIT ${q.value(page.start + page.nb, 'int')}`,
    'firsts',
  );
  const statement = q.statement(
    `SELECT ${columns} FROM (SELECT DISTINCT firsts.oid AS "pageOid" FROM ${firstOfEach} ` +
      `ORDER BY firsts.oid LIMIT ${q.value(page.nb, 'int')} OFFSET ${q.value(page.start, 'int')}) page ` +
      `JOIN "Resource" r ON r.oid = page."pageOid" ORDER BY page."pageOid"`,
  );
  return toDocuments(await read(statement, { prefix: `${baseId}/` }));
}

/**
 * The rows after the cursor resource (argument `cursor`) in the order of `page`; none when the
 * cursor names no resource and the order is not by oid (its place is unknown). NULLs fall where
 * each database puts them (`Dialect.nullsFirst`). Placeholders are written in the order of the
 * text, which template literals evaluate left to right.
 */
function afterCursor(q: Sql, page: PageOrder): string {
  const descending = page.order === 'desc';
  const after = descending ? '<' : '>';
  const cursor = () => q.argument('cursor', 'int');
  if (page.orderColumn === 'oid') return `r.oid ${after} ${cursor()}`;
  const column = `r."${page.orderColumn}"`;
  const at = () => `(SELECT c."${page.orderColumn}" FROM "Resource" c WHERE c.oid = ${cursor()})`;
  const tie = () => `r.oid ${after} ${cursor()}`;
  // Ascending with NULLs last, or descending with NULLs first reversed: NULLs follow every value.
  const nullsLast = descending === q.dialect.nullsFirst;
  return (
    `EXISTS (SELECT 1 FROM "Resource" c WHERE c.oid = ${cursor()}) AND CASE WHEN ${at()} IS NULL ` +
    `THEN ((${column} IS NULL AND ${tie()})${nullsLast ? '' : ` OR ${column} IS NOT NULL`}) ` +
    `ELSE (${column} ${after} ${at()} OR (${column} = ${at()} AND ${tie()})${nullsLast ? ` OR ${column} IS NULL` : ''}) END`
  );
}

/** A page of a list after a cursor, in its order. One statement. */
export async function loadPageAfter(
  page: CursorPage,
  baseId: string,
  parts: DocumentParts,
): Promise<ResourceDocument[]> {
  orderable(page.orderColumn);
  const q = sql();
  const columns = documentColumns(q, parts);
  const where = whereSql(q, page.where);
  const condition = page.after === undefined ? where : `(${where}) AND ${afterCursor(q, page)}`;
  return pageDocuments(
    q,
    columns,
    condition,
    page,
    { size: page.limit },
    { prefix: `${baseId}/`, cursor: page.after },
  );
}
