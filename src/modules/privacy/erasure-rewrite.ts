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
const containsSql = (column: string, index: number) =>
  provider === 'postgresql' ? `strpos(${textOf(column)}, $${index}) > 0` : `instr("${column}", ?) > 0`;

export interface JsonRow {
  key: number | string;
  text: string;
}

/**
 * The rows of `target` whose JSON holds one of `names` as a string value (its JSON form, quotes
 * included, so that `"lab/u1"` does not find `"lab/u12"`), plus `extraCondition`'s. One statement.
 */
export async function rowsNaming(
  tx: Transaction,
  target: JsonColumn,
  names: readonly string[],
  extraCondition?: { sql: (firstIndex: number) => string; params: unknown[] },
): Promise<JsonRow[]> {
  const needles = names.map((name) => JSON.stringify(name));
  const conditions = needles.map((_, i) => containsSql(target.column, i + 1));
  if (extraCondition) conditions.push(extraCondition.sql(needles.length + 1));
  const sql =
    `SELECT "${target.key}" AS "key", ${textOf(target.column)} AS "text" FROM "${target.table}" ` +
    `WHERE ${target.only ? `${target.only} AND ` : ''}(${conditions.join(' OR ')})`;
  const rows = await tx.$queryRawUnsafe<{ key: number | string | bigint; text: unknown }[]>(
    sql,
    ...needles,
    ...(extraCondition?.params ?? []),
  );
  return rows.map((row) => ({
    key: typeof row.key === 'bigint' ? Number(row.key) : row.key,
    // The SQLite adapter hands a JSON column back parsed, PostgreSQL's cast to text as text.
    text: typeof row.text === 'string' ? row.text : JSON.stringify(row.text ?? null),
  }));
}

/** Writes each row's new JSON text back in one statement (chunks on SQLite only past its limits). */
export async function writeJsonRows(tx: Transaction, target: JsonColumn, rows: JsonRow[]): Promise<void> {
  if (rows.length === 0) return;
  const recordset = JSON.stringify(rows.map((row) => ({ k: row.key, v: row.text })));
  if (provider === 'postgresql') {
    await tx.$executeRawUnsafe(
      `UPDATE "${target.table}" SET "${target.column}" = t.v::jsonb FROM json_to_recordset($1::json) AS t(k ${target.keyType}, v text) WHERE "${target.table}"."${target.key}" = t.k`,
      recordset,
    );
    return;
  }
  await tx.$executeRawUnsafe(
    `UPDATE "${target.table}" SET "${target.column}" = json_extract(j.value, '$.v') FROM json_each(?) AS j WHERE "${target.table}"."${target.key}" = json_extract(j.value, '$.k')`,
    recordset,
  );
}

/** The rows among `rows` that the pseudonym changes, with their new text. */
export function rewrittenRows(rows: JsonRow[], person: PersonIdentity, pseudonym: string): JsonRow[] {
  const names = new Set(namingValues(person));
  return rows.flatMap((row) => {
    const text = JSON.stringify(scrubbed(JSON.parse(row.text), names, person.oid, pseudonym));
    return text === JSON.stringify(JSON.parse(row.text)) ? [] : [{ key: row.key, text }];
  });
}
