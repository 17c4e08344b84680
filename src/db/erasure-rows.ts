/**
 * The statements of an erasure (src/modules/privacy/erasure.service.ts) that Prisma's client cannot
 * write as one: everything linking a person, the rows of the audit log, the archives and the outbox
 * whose JSON names them (several conditions, several tables, one statement), their rewrite in one
 * statement per table, and the locks on the resources whose rights change. Both dialects.
 */
import { db, provider, type Transaction } from './client.ts';

/** A JSON column the erasure rewrites, and the rows it may look at. */
export interface JsonColumn {
  table: 'AuditEntry' | 'ResourceArchive' | 'OutboxMessage';
  key: 'id' | 'oid';
  /** The key's PostgreSQL type, for the recordset the rewrite reads. */
  keyType: 'int' | 'text';
  column: 'changes' | 'snapshot' | 'payload';
  /** A further SQL condition (a message already delivered is history the peer holds, not ours). */
  only?: string;
}

export const AUDIT_CHANGES: JsonColumn = {
  table: 'AuditEntry',
  key: 'id',
  keyType: 'int',
  column: 'changes',
};
export const ARCHIVE_SNAPSHOTS: JsonColumn = {
  table: 'ResourceArchive',
  key: 'oid',
  keyType: 'int',
  column: 'snapshot',
};
export const UNDELIVERED_PAYLOADS: JsonColumn = {
  table: 'OutboxMessage',
  key: 'id',
  keyType: 'text',
  column: 'payload',
  only: `"status" IN ('pending', 'failed')`,
};

const textOf = (column: string) => (provider === 'postgresql' ? `"${column}"::text` : `"${column}"`);
const containsSql = (column: string, placeholder: string) =>
  provider === 'postgresql'
    ? `strpos(${textOf(column)}, ${placeholder}) > 0`
    : `instr("${column}", ${placeholder}) > 0`;

export interface JsonRow {
  key: number | string;
  text: string;
}

/**
 * Rows found beforehand by a scan of the whole table (src/modules/privacy/erasure-prescan.ts, for many erasures): their
 * keys, and the last key the scan saw. Only rows after it are searched again; rows are never
 * changed to name someone afterwards (an audit entry or an archive is written once).
 */
export interface KnownRows {
  scannedThrough: number;
  keys: number[];
}

/** Parameters in the order the SQL names them (SQLite's `?` are positional). */
export class Parameters {
  readonly values: unknown[] = [];
  /** The placeholder of `value`. */
  add(value: unknown): string {
    this.values.push(value);
    return provider === 'postgresql' ? `$${this.values.length}` : '?';
  }
  /** `column IN (<the numbers of a JSON array>)`. */
  inList(column: string, values: readonly number[]): string {
    const list = this.add(JSON.stringify(values));
    return provider === 'postgresql'
      ? `${column} IN (SELECT value::int FROM json_array_elements_text(${list}::json))`
      : `${column} IN (SELECT value FROM json_each(${list}))`;
  }
}

/** Where to look for the names in one table. */
export interface NamingQuery {
  target: JsonColumn;
  known?: KnownRows;
  /** A further condition (OR) that selects rows of `target`. */
  extra?: (parameters: Parameters) => string;
}

/**
 * The SELECTs of one table's rows naming `names`, keys as text so that tables can be united: one
 * per condition rather than one with OR, which would make PostgreSQL read the whole table for the
 * rows an index finds.
 */
function namingSelects(
  parameters: Parameters,
  { target, known, extra }: NamingQuery,
  names: readonly string[],
) {
  const key = `"${target.key}"`;
  const select = (condition: string) =>
    `SELECT '${target.table}' AS "tableName", CAST(${key} AS TEXT) AS "key", ${textOf(target.column)} AS "text" ` +
    `FROM "${target.table}" WHERE ${target.only ? `${target.only} AND ` : ''}${condition}`;
  const after = known ? `${key} > ${parameters.add(known.scannedThrough)} AND ` : '';
  const naming = names.map((name) => containsSql(target.column, parameters.add(JSON.stringify(name))));
  const selects = [select(`${after}(${naming.join(' OR ')})`)];
  if (known && known.keys.length > 0) selects.push(select(parameters.inList(key, known.keys)));
  if (extra) selects.push(select(extra(parameters)));
  return selects;
}

/**
 * For each query, the rows of its table whose JSON holds one of `names` as a string value (its JSON
 * form, quotes included, so that `"lab/u1"` does not find `"lab/u12"`), or that its `extra` selects:
 * one statement for all. A table without `known` is read whole.
 */
export async function rowsNaming(
  tx: Transaction,
  queries: readonly NamingQuery[],
  names: readonly string[],
): Promise<JsonRow[][]> {
  const parameters = new Parameters();
  const sql = queries.flatMap((query) => namingSelects(parameters, query, names)).join(' UNION ALL ');
  const rows = await tx.$queryRawUnsafe<{ tableName: string; key: string; text: unknown }[]>(
    sql,
    ...parameters.values,
  );
  // A row two selects found comes twice: once is enough.
  return queries.map(({ target }) => [
    ...new Map(
      rows
        .filter((row) => row.tableName === target.table)
        .map((row) => [
          row.key,
          jsonRow({ key: target.keyType === 'int' ? Number(row.key) : row.key, text: row.text }),
        ]),
    ).values(),
  ]);
}

/** A row as read: a numeric key as a number, the JSON as text. */
export function jsonRow(row: { key: number | string | bigint; text: unknown }): JsonRow {
  return {
    key: typeof row.key === 'bigint' ? Number(row.key) : row.key,
    // The SQLite adapter hands a JSON column back parsed, PostgreSQL's cast to text as text.
    text: typeof row.text === 'string' ? row.text : JSON.stringify(row.text ?? null),
  };
}

/** The next `size` rows of `target` after the key `after`, in key order: a scan by pages. */
export async function jsonPage(target: JsonColumn, after: number, size: number): Promise<JsonRow[]> {
  const placeholder = provider === 'postgresql' ? '$1' : '?';
  const rows = await db.$queryRawUnsafe<{ key: number | bigint; text: unknown }[]>(
    `SELECT "${target.key}" AS "key", ${textOf(target.column)} AS "text" FROM "${target.table}" WHERE "${target.key}" > ${placeholder} ORDER BY "${target.key}" LIMIT ${size}`,
    after,
  );
  return rows.map(jsonRow);
}

/** Writes each row's new JSON text back in one statement (chunks on SQLite only past its limits). */
export async function writeJsonRows(
  tx: Transaction,
  target: JsonColumn,
  rows: RewrittenRow[],
): Promise<void> {
  if (rows.length === 0) return;
  if (provider === 'postgresql') {
    // Only where the row is still as read: two erasures running at once may rewrite one entry (a
    // resource both authored), and the second must not put back the first one's names. A row that
    // changed meanwhile fails the erasure as a write conflict, and it runs again on fresh rows.
    const recordset = JSON.stringify(rows.map((row) => ({ k: row.key, v: row.text, o: row.read })));
    const written = await tx.$executeRawUnsafe(
      `UPDATE "${target.table}" SET "${target.column}" = t.v::jsonb FROM json_to_recordset($1::json) AS t(k ${target.keyType}, v text, o text) WHERE "${target.table}"."${target.key}" = t.k AND "${target.table}"."${target.column}"::text = t.o`,
      recordset,
    );
    if (written < rows.length) throw new WriteConflictError(target.table);
    return;
  }
  // SQLite has one writer: a transaction whose reads are older than another's commit cannot write.
  await tx.$executeRawUnsafe(
    `UPDATE "${target.table}" SET "${target.column}" = json_extract(j.value, '$.v') FROM json_each(?) AS j WHERE "${target.table}"."${target.key}" = json_extract(j.value, '$.k')`,
    JSON.stringify(rows.map((row) => ({ k: row.key, v: row.text }))),
  );
}

/** A row changed between an erasure's read and its write: the erasure runs again. */
export class WriteConflictError extends Error {
  constructor(table: string) {
    super(`could not serialize the erasure: a row of ${table} changed since it was read`);
  }
}

/** A row's new JSON text, and the text it had when read. */
export interface RewrittenRow extends JsonRow {
  read: string;
}

/** The tables linking a person to something, each with the column naming what (none for roles). */
export const LINK_TABLES = [
  ['ResourceAuthor', '"resourceOid"'],
  ['ResourceContributor', '"resourceOid"'],
  ['ResourceParentAuthor', '"resourceOid"'],
  ['GroupManager', '"groupOid"'],
  ['GroupMember', '"groupOid"'],
  ['GroupFollower', '"groupOid"'],
  ['PersonRole', '0'],
] as const;

export type LinkTable = (typeof LINK_TABLES)[number][0];

/**
 * Every row linking the person to a resource, a group or a role, in one statement (an index read
 * per table; Prisma's relation counts aggregate each whole table first).
 */
export async function personLinks(tx: Transaction, personOid: number) {
  const parameters = new Parameters();
  const rows = await tx.$queryRawUnsafe<{ link: LinkTable; oid: number | bigint }[]>(
    LINK_TABLES.map(
      ([table, column]) =>
        `SELECT '${table}' AS "link", ${column} AS "oid" FROM "${table}" WHERE "personOid" = ${parameters.add(personOid)}`,
    ).join(' UNION ALL '),
    ...parameters.values,
  );
  return rows.map((row) => ({ link: row.link, oid: Number(row.oid) }));
}

/** Locks resources in oid order (PostgreSQL; SQLite's one writer needs none). */
export async function lockResources(tx: Transaction, oids: number[]): Promise<void> {
  if (provider !== 'postgresql') return;
  const parameters = new Parameters();
  await tx.$queryRawUnsafe(
    `SELECT "oid" FROM "Resource" WHERE ${parameters.inList('"oid"', oids)} ORDER BY "oid" FOR UPDATE`,
    ...parameters.values,
  );
}
