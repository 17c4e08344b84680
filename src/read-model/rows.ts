/**
 * Running the read model's statements and reading their rows. Statements go straight to the
 * driver (src/db/client.ts `readRows`: the pool Prisma uses on PostgreSQL, a read-only connection
 * on SQLite), outside any transaction; values come back as that driver gives them, which the
 * decoders below even out (SQLite: booleans as 0 or 1, dates and JSON as text; PostgreSQL: counts
 * as text, JSON parsed).
 */
import type { FieldKind } from '../catalogue/resource-fields.ts';
import { provider, readRows } from '../db/client.ts';
import type { Provider } from '../db/database-url.ts';
import { dialects, Sql, type Statement } from './dialect.ts';

/** A statement to write for the database in use. */
export const sql = (): Sql => new Sql(dialects[provider]);

/**
 * A page's size as written in its statement: the size rounded up to a power of two, the page
 * itself cut by a `LIMIT` parameter around a sub-query holding it. With the size a parameter,
 * PostgreSQL's generic plan assumes a tenth of the matching rows, looks costlier than the plans
 * made for the values, and once a page's statement matches some thousands of rows it is planned
 * again on every execution (test/integration/page-plan-cache.test.ts: a list's page, an OAI-PMH
 * harvest's). Rounded, a statement has a few texts (one per power of two) instead of one per size
 * a client asks.
 */
export const roundedSize = (size: number): number => 2 ** Math.ceil(Math.log2(Math.max(size, 1)));

/** A statement whose text depends on the database only: written once for each. */
export function once(write: (q: Sql) => Statement): () => Statement {
  const written = new Map<Provider, Statement>();
  return () => {
    let statement = written.get(provider);
    if (!statement) {
      statement = write(sql());
      written.set(provider, statement);
    }
    return statement;
  };
}

/**
 * Statements whose text depends on the database and a shape (which filters, which parts): each
 * written once per database and shape, `shape` naming it.
 */
export function byShape<Shape>(
  name: (shape: Shape) => string,
  write: (shape: Shape) => Statement,
): (shape: Shape) => Statement {
  const written = new Map<string, Statement>();
  return (shape) => {
    const id = `${provider}:${name(shape)}`;
    let statement = written.get(id);
    if (!statement) {
      statement = write(shape);
      written.set(id, statement);
    }
    return statement;
  };
}

/** The rows of `statement`, run with `args`. */
export function read<Row>(statement: Statement, args?: Readonly<Record<string, unknown>>): Promise<Row[]> {
  return readRows<Row>(statement.text, statement.bind(args));
}

/**
 * JSON the database built or stored: text on SQLite (a list nested in a list too), parsed by the
 * driver on PostgreSQL, where a string is a JSON string value.
 */
export const json = <T>(value: unknown): T =>
  (dialects[provider].jsonAsText && typeof value === 'string' ? JSON.parse(value) : value) as T;

export const boolean = (value: unknown): boolean => Boolean(value);

export const date = (value: unknown): Date => (value instanceof Date ? value : new Date(value as string));

/**
 * A catalogue field's value as the drivers give it (SQLite: booleans as 0/1, JSON and dates as
 * text) → the read model's, by the field's kind.
 */
export const DECODE: Record<FieldKind, (value: unknown) => unknown> = {
  text: (value) => value,
  int: (value) => value,
  boolean,
  date,
  json: (value) => json(value ?? null),
};

/**
 * A catalogue field's value inside a JSON document the database built (`Dialect.object`, its JSON
 * columns embedded as values) → the read model's, by the field's kind.
 */
export const DECODE_IN_JSON: Record<FieldKind, (value: unknown) => unknown> = {
  text: (value) => value,
  int: (value) => value,
  boolean,
  date: (value) => (value === null ? null : dialects[provider].dateInJson(value as string)),
  json: (value) => value ?? null,
};

/** A count: a bigint sent as text by PostgreSQL. */
export const count = (value: unknown): number => Number(value);
