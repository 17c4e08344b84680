/**
 * Many rows in few statements, for the import of new resources. Prisma's `createMany` spends about
 * a millisecond of CPU per resource row and a tenth per join row (10,000 resources took 26 s of
 * writes); one multi-row INSERT per few thousand rows takes a fraction of that. The rows are the
 * ones the resource service writes (built by linkRows and wordRows); only the statement differs.
 * Dates and JSON go through the driver adapter as Prisma's own writes do (the same text on SQLite),
 * with casts on PostgreSQL where a parameter's type cannot be inferred from a text.
 */
import { provider, type Transaction } from '../../db/client.ts';

/** Parameters per statement: under SQLite's 32,766 and PostgreSQL's 65,535. */
const MAX_PARAMETERS = 30_000;

export type Casts = Record<string, string>;

/** Inserts `rows` (all with the keys of the first) into `table`, in as few statements as fit. */
export async function insertRows(
  tx: Transaction,
  table: string,
  rows: Record<string, unknown>[],
  casts: Casts = {},
): Promise<void> {
  if (rows.length === 0) return;
  const columns = Object.keys(rows[0]!);
  const perStatement = Math.max(1, Math.floor(MAX_PARAMETERS / columns.length));
  const names = columns.map((column) => `"${column}"`).join(', ');
  for (let start = 0; start < rows.length; start += perStatement) {
    const chunk = rows.slice(start, start + perStatement);
    const values: unknown[] = [];
    const tuples = chunk.map((row) => {
      const placeholders = columns.map((column) => {
        values.push(row[column]);
        return provider === 'postgresql' ? `$${values.length}${casts[column] ?? ''}` : '?';
      });
      return `(${placeholders.join(', ')})`;
    });
    await tx.$executeRawUnsafe(`INSERT INTO "${table}" (${names}) VALUES ${tuples.join(', ')}`, ...values);
  }
}

/** The table of a Prisma delegate name (`resourceWord` → `ResourceWord`): models keep their names. */
export const tableOf = (delegate: string) => delegate[0]!.toUpperCase() + delegate.slice(1);
