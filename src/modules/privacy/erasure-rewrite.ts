/**
 * The part of an erasure that rewrites JSON the database keeps about the past (audit entries'
 * `changes`, archives' `snapshot`, undelivered outbox `payload`s): which rows name the person, and
 * the same values with the person replaced by their pseudonym. Each table costs one statement to
 * find its rows and one to write them back, whatever their number (src/modules/privacy/
 * erasure.service.ts runs both inside the erasure's transaction).
 *
 * Values are replaced whole (a JSON string equal to the pid, the e-mail, a name or "Prénom Nom"),
 * never inside longer text: a pid is a prefix of other pids (`lab/u1` of `lab/u12`), and a family
 * name can be a word of a resource's title, which is the repository's, not the person's.
 */
import { provider, type Transaction } from '../../db/client.ts';

/** What names a person in stored JSON. */
export interface PersonIdentity {
  oid: number;
  pid: string;
  nom: string;
  prenom: string;
  email: string | null;
}

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

/** Names shorter than this are not looked for as values: "" or "A" would match everything. */
const MIN_NAME_LENGTH = 2;

/** The string values that stand for the person, each replaced whole by the pseudonym. */
export function namingValues(person: PersonIdentity): string[] {
  const names = [
    person.pid,
    person.email ?? '',
    person.nom,
    person.prenom,
    `${person.prenom} ${person.nom}`,
    `${person.nom} ${person.prenom}`,
  ].map((value) => value.trim());
  return [...new Set(names.filter((value) => value.length >= MIN_NAME_LENGTH))];
}

/**
 * `value` with every string equal to one of `names` replaced by `pseudonym`, and the person's oid
 * in a group's `gestionnaires` (audited as oids) too. Keys are left alone.
 */
export function scrubbed(
  value: unknown,
  names: ReadonlySet<string>,
  oid: number,
  pseudonym: string,
): unknown {
  // `field`: the audited field a value belongs to, through its `{before, after}` wrapper.
  const walk = (node: unknown, field: string | undefined): unknown => {
    if (typeof node === 'string') return names.has(node.trim()) ? pseudonym : node;
    if (Array.isArray(node)) {
      return node.map((item) => (field === 'gestionnaires' && item === oid ? pseudonym : walk(item, field)));
    }
    if (node !== null && typeof node === 'object') {
      return Object.fromEntries(Object.entries(node).map(([key, item]) => [key, walk(item, field ?? key)]));
    }
    return node;
  };
  return walk(value, undefined);
}

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
 * Rows found beforehand by a scan of the whole table (`prescan.ts`, for many erasures at once): their
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

/** Every string value of a JSON document, trimmed (what `scrubbed` compares with the names). */
export function stringValues(value: unknown, into: Set<string> = new Set()): Set<string> {
  if (typeof value === 'string') into.add(value.trim());
  else if (Array.isArray(value)) for (const item of value) stringValues(item, into);
  else if (value !== null && typeof value === 'object')
    for (const item of Object.values(value)) stringValues(item, into);
  return into;
}

/** `SELECT key, json FROM table WHERE key > $1 ORDER BY key LIMIT n`, for a scan by pages. */
export function pageSql(target: JsonColumn, size: number): string {
  const after = provider === 'postgresql' ? '$1' : '?';
  return `SELECT "${target.key}" AS "key", ${textOf(target.column)} AS "text" FROM "${target.table}" WHERE "${target.key}" > ${after} ORDER BY "${target.key}" LIMIT ${size}`;
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

/** A row changed between an erasure's read and its write: retried (erasure.service.ts). */
export class WriteConflictError extends Error {
  constructor(table: string) {
    super(`could not serialize the erasure: a row of ${table} changed since it was read`);
  }
}

/** A row's new JSON text, and the text it had when read. */
export interface RewrittenRow extends JsonRow {
  read: string;
}

/** The rows among `rows` that the pseudonym changes, with their new text. */
export function rewrittenRows(rows: JsonRow[], person: PersonIdentity, pseudonym: string): RewrittenRow[] {
  const names = new Set(namingValues(person));
  return rows.flatMap((row) => {
    const text = JSON.stringify(scrubbed(JSON.parse(row.text), names, person.oid, pseudonym));
    return text === JSON.stringify(JSON.parse(row.text)) ? [] : [{ key: row.key, text, read: row.text }];
  });
}
