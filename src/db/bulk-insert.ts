/**
 * Many rows in few statements, for bulk writes: the import of new resources and the search index
 * rebuild. Prisma's `createMany` spends CPU on every row it converts, and the plans of its large
 * statements stay in Prisma's debug ring (its last 100 calls, kept whatever DEBUG says), which
 * then holds a lot of memory (docs/performance.md). The rows are the ones the resource service writes (built by linkRows
 * and wordRows); only the statement differs:
 *   - SQLite: one multi-row INSERT per few thousand rows, values bound as Prisma binds its own
 *     (dates become the same text);
 *   - PostgreSQL: one parameter holding the rows as JSON, expanded by `json_to_recordset` with the
 *     table's column types, since the driver adapter's cost grows with the number of parameters.
 */
import { provider, type Transaction } from './client.ts';

/** SQLite parameters per statement: under its limit of 32,766. */
const MAX_PARAMETERS = 30_000;
/** PostgreSQL rows per statement (one JSON parameter). */
const ROWS_PER_STATEMENT = 5000;

/**
 * Inserts `rows` (all with the keys of the first) into `table`. Dates are given as Date, JSON
 * columns (`jsonColumns`) as values.
 */
export async function insertRows(
  tx: Transaction,
  table: string,
  rows: Record<string, unknown>[],
  jsonColumns: readonly string[] = [],
): Promise<void> {
  if (rows.length === 0) return;
  const columns = Object.keys(rows[0]!);
  const names = columns.map((column) => `"${column}"`).join(', ');
  if (provider === 'postgresql') {
    const types = await columnTypes(tx, table);
    const definitions = columns.map((column) => `"${column}" ${types.get(column)}`).join(', ');
    for (let start = 0; start < rows.length; start += ROWS_PER_STATEMENT) {
      await tx.$executeRawUnsafe(
        `INSERT INTO "${table}" (${names}) SELECT ${names} FROM json_to_recordset($1::json) AS t(${definitions})`,
        JSON.stringify(rows.slice(start, start + ROWS_PER_STATEMENT)),
      );
    }
    return;
  }
  const perStatement = Math.max(1, Math.floor(MAX_PARAMETERS / columns.length));
  for (let start = 0; start < rows.length; start += perStatement) {
    const chunk = rows.slice(start, start + perStatement);
    const values: unknown[] = [];
    const tuples = chunk.map((row) => {
      for (const column of columns) {
        const value = row[column];
        values.push(jsonColumns.includes(column) && value !== null ? JSON.stringify(value) : value);
      }
      return `(${columns.map(() => '?').join(', ')})`;
    });
    await tx.$executeRawUnsafe(`INSERT INTO "${table}" (${names}) VALUES ${tuples.join(', ')}`, ...values);
  }
}

const typesByTable = new Map<string, Map<string, string>>();

/** The PostgreSQL type of each column of `table` (e.g. `timestamp(3) without time zone`). */
async function columnTypes(tx: Transaction, table: string): Promise<Map<string, string>> {
  let types = typesByTable.get(table);
  if (!types) {
    const rows = await tx.$queryRawUnsafe<{ name: string; type: string }[]>(
      `SELECT attname::text AS name, format_type(atttypid, atttypmod) AS type FROM pg_attribute
        WHERE attrelid = to_regclass($1) AND attnum > 0 AND NOT attisdropped`,
      `"${table}"`,
    );
    types = new Map(rows.map((row) => [row.name, row.type]));
    typesByTable.set(table, types);
  }
  return types;
}

/** The table of a Prisma delegate name (`resourceWord` → `ResourceWord`): models keep their names. */
export const tableOf = (delegate: string) => delegate[0]!.toUpperCase() + delegate.slice(1);
