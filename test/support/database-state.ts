/**
 * A fingerprint of everything stored, to prove that a rejected request wrote nothing: per model, the
 * row count and a digest of every row. One statement for the whole database (fuzz tests take two
 * fingerprints per case), computed by the database itself where it can.
 */
import { createHash } from 'node:crypto';
import { db, provider } from '../../src/db/client.ts';
import { getDatamodel } from '../../src/generated/pothos-types.ts';

/**
 * Tables a request may write whatever its outcome: express-session's rows (touches, sweeps) and the
 * failure counters of the rate limits, which exist to count rejected requests.
 */
const WRITTEN_BY_ANY_REQUEST = new Set(['Session', 'RateLimit']);

const tables = Object.entries(getDatamodel().datamodel.models)
  .filter(([name]) => !WRITTEN_BY_ANY_REQUEST.has(name))
  .map(([name, model]) => ({
    name,
    columns: model.fields.filter((field) => field.kind === 'scalar').map((field) => `"${field.name}"`),
  }));

function statement(): string {
  const perTable =
    provider === 'postgresql'
      ? tables.map(
          ({ name }) =>
            `(SELECT count(*)::text || ':' || coalesce(md5(string_agg(r::text, '|' ORDER BY r::text)), '') FROM "${name}" r) AS "${name}"`,
        )
      : tables.map(
          ({ name, columns }) =>
            `(SELECT count(*) || ':' || coalesce(group_concat(row, '|'), '') FROM (SELECT json_array(${columns.join(', ')}) AS row FROM "${name}" ORDER BY row)) AS "${name}"`,
        );
  return `SELECT ${perTable.join(', ')}`;
}

/** Model name → `<rows>:<digest>`. */
export async function databaseState(): Promise<Record<string, string>> {
  const [row] = await db.$queryRawUnsafe<Record<string, string>[]>(statement());
  return Object.fromEntries(
    Object.entries(row!).map(([name, value]) => {
      const [count, ...rest] = String(value).split(':');
      return [name, `${count}:${createHash('sha256').update(rest.join(':')).digest('hex').slice(0, 16)}`];
    }),
  );
}
