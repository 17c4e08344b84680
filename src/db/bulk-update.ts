/**
 * One JSON column of many rows rewritten in one statement per chunk, each row with its own value:
 * Prisma's `updateMany` writes one value to every row it matches, and an `update` per row would
 * cost a statement each (the retention purge rewrites thousands of audit entries' `changes`).
 * The rows travel as one JSON parameter on both databases:
 *   - PostgreSQL: expanded by `json_to_recordset` and joined with `UPDATE … FROM`;
 *   - SQLite (which stores JSON as text): each row's value picked out of `json_each` by its id.
 */
import { provider, type Transaction } from './client.ts';

/** Rows per statement: a parameter of a few megabytes at most. */
const ROWS_PER_STATEMENT = 1000;

export interface JsonColumnRow {
  id: number;
  value: unknown;
}

/** Sets `column` (a JSON column) of each row of `table` whose integer `id` is given to its `value`. */
export async function updateJsonColumn(
  tx: Transaction,
  table: string,
  column: string,
  rows: JsonColumnRow[],
): Promise<void> {
  for (let start = 0; start < rows.length; start += ROWS_PER_STATEMENT) {
    const parameter = JSON.stringify(rows.slice(start, start + ROWS_PER_STATEMENT));
    if (provider === 'postgresql') {
      await tx.$executeRawUnsafe(
        `UPDATE "${table}" AS target SET "${column}" = source.value
           FROM json_to_recordset($1::json) AS source(id integer, value jsonb)
          WHERE target."id" = source.id`,
        parameter,
      );
    } else {
      await tx.$executeRawUnsafe(
        `UPDATE "${table}" SET "${column}" = (
            SELECT json_extract(source.value, '$.value') FROM json_each(?) AS source
             WHERE json_extract(source.value, '$.id') = "${table}"."id")
          WHERE "id" IN (SELECT json_extract(value, '$.id') FROM json_each(?))`,
        parameter,
        parameter,
      );
    }
  }
}
