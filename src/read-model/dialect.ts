/**
 * The one place where the read model's SQL differs between the two databases: how a statement
 * takes its values, how values are stored, how JSON is assembled, and how each planner wants a
 * condition written. Everything else in src/read-model/ writes SQL both databases read alike, and
 * asks a `Dialect` (through an `Sql` builder) for the rest.
 */
import type { FieldKind } from '../catalogue/resource-fields.ts';
import { PREPARED } from '../db/client.ts';
import type { Provider } from '../db/database-url.ts';
import { INT32_MAX } from '../lib/integers.ts';

/** How a value is compared with a column, which decides how it is bound: a field's kind. */
export type ValueKind = FieldKind;

export interface Dialect {
  readonly provider: Provider;
  /**
   * Whether the database tests the terms of a conjunction in the order written, for each row an
   * index gives (SQLite), rather than in the order its planner estimates cheapest (PostgreSQL).
   */
  readonly testsInWrittenOrder: boolean;
  /**
   * Whether a condition on a join table of a small vocabulary (categories, levels, types) is best
   * written as a probe per resource: SQLite cannot tell that one such value matches a large share
   * of resources, and drives the page from the join table instead of an ordered index of resources.
   */
  readonly probesVocabularies: boolean;
  /** Whether NULL sorts before every value in ascending order (SQLite), rather than after (PostgreSQL). */
  readonly nullsFirst: boolean;
  /**
   * Whether a sub-query in FROM may read the rows listed before it (PostgreSQL's `LATERAL`); SQLite
   * has no such join, and a statement there repeats the sub-query for each value instead.
   */
  readonly joinsLaterally: boolean;
  /**
   * Whether JSON comes back as its text (SQLite), rather than parsed by the driver (PostgreSQL,
   * where a JSON string value is a JavaScript string too, not text to parse).
   */
  readonly jsonAsText: boolean;
  /** The placeholder of the n-th distinct value (1-based), compared as `kind`. */
  placeholder(n: number, kind: ValueKind | undefined): string;
  /** Whether a placeholder may appear twice for one value (else the value is bound once per use). */
  readonly reusesPlaceholders: boolean;
  /** A placeholder of a list of values of `kind`, as `isAnyOf` reads it. */
  listPlaceholder(n: number, kind: ValueKind): string;
  /** A value as the database stores it for a column of `kind`. */
  encode(kind: ValueKind | undefined, value: unknown): unknown;
  /** A list of values, bound as `listPlaceholder` expects it. */
  encodeList(kind: ValueKind, values: readonly unknown[]): unknown;
  /** `column` is one of the values of a list placeholder. */
  isAnyOf(column: string, list: string): string;
  /** A JSON array of `expression` over the rows of `from`, in `order` (empty: `[]`). */
  jsonArray(expression: string, from: string, order: string): string;
  /** A JSON array of the expressions (a row of a document). */
  tuple(...expressions: string[]): string;
  /** A JSON object of the named expressions, in order (a whole document: one value to decode). */
  object(entries: readonly (readonly [key: string, expression: string])[]): string;
  /** A column holding JSON, as a value of `object` (not as its text). */
  embedJson(column: string): string;
  /** A timestamp column's value as `object` writes it, as a Date. */
  dateInJson(value: string): Date;
  /** `fragment` occurs in `text`. */
  contains(text: string, fragment: string): string;
  /** The integer `key` of the JSON object in text column `column`. */
  jsonInteger(column: string, key: string): string;
  /** `text` with `prefix` removed as an oid within the 32-bit range, or NULL (a local rid's oid). */
  oidAfterPrefix(text: string, prefix: () => string): string;
  /**
   * The statement as sent, marked to be prepared once per connection where that pays (PostgreSQL:
   * the plan of a document's statement costs more than running it; src/db/client.ts names it).
   */
  prepared(text: string): string;
}

const POSTGRES_TYPES: Record<ValueKind, string> = {
  int: 'int',
  text: 'text',
  boolean: 'boolean',
  date: 'timestamp',
  json: 'json',
};

const postgresql: Dialect = {
  provider: 'postgresql',
  testsInWrittenOrder: false,
  probesVocabularies: false,
  nullsFirst: false,
  joinsLaterally: true,
  jsonAsText: false,
  reusesPlaceholders: true,
  placeholder: (n, kind) => (kind ? `$${n}::${POSTGRES_TYPES[kind]}` : `$${n}`),
  listPlaceholder: (n, kind) => `$${n}::${POSTGRES_TYPES[kind]}[]`,
  // `timestamp` without time zone, holding UTC as Prisma writes it.
  encode: (kind, value) =>
    kind === 'date' ? (value as Date).toISOString().replace('T', ' ').replace('Z', '') : value,
  encodeList: (kind, values) => values.map((value) => postgresql.encode(kind, value)),
  // One parameter whatever the number of values (the plan is kept across list lengths).
  isAnyOf: (column, list) => `${column} = ANY(${list})`,
  jsonArray: (expression, from, order) =>
    `(SELECT coalesce(json_agg(${expression} ORDER BY ${order}), '[]') FROM ${from})`,
  tuple: (...expressions) => `json_build_array(${expressions.join(', ')})`,
  object: (entries) => {
    // json_build_object takes at most 100 arguments: larger objects are merged from parts.
    const parts: string[] = [];
    for (let i = 0; i < entries.length; i += 50) {
      const part = entries.slice(i, i + 50).flatMap(([key, expression]) => [`'${key}'`, expression]);
      parts.push(`json_build_object(${part.join(', ')})`);
    }
    return parts.length === 1 ? parts[0]! : `(${parts.map((part) => `${part}::jsonb`).join(' || ')})::json`;
  },
  // jsonb and json columns are embedded as values already.
  embedJson: (column) => column,
  // A `timestamp` (without time zone, holding UTC) is written without an offset.
  dateInJson: (value) => new Date(`${value}Z`),
  contains: (text, fragment) => `strpos(${text}, ${fragment}) > 0`,
  jsonInteger: (column, key) => `(${column}::json->>'${key}')::int`,
  oidAfterPrefix: (text, prefix) => {
    const p = prefix();
    return (
      `CASE WHEN left(${text}, length(${p})) = ${p} AND substr(${text}, length(${p}) + 1) ~ '^[1-9][0-9]{0,9}$' ` +
      `AND substr(${text}, length(${p}) + 1)::bigint <= ${INT32_MAX} THEN substr(${text}, length(${p}) + 1)::int END`
    );
  },
  prepared: (text) => PREPARED + text,
};

/** SQLite, as better-sqlite3 binds it: anonymous `?` taking values in order. */
const sqlite: Dialect = {
  provider: 'sqlite',
  testsInWrittenOrder: true,
  probesVocabularies: true,
  nullsFirst: true,
  joinsLaterally: false,
  jsonAsText: true,
  reusesPlaceholders: false,
  placeholder: () => '?',
  listPlaceholder: () => '?',
  // Prisma stores a DateTime as ISO text with an explicit offset, a Boolean as 0 or 1.
  encode: (kind, value) =>
    kind === 'date'
      ? (value as Date).toISOString().replace('Z', '+00:00')
      : kind === 'boolean'
        ? value
          ? 1
          : 0
        : value,
  encodeList: (kind, values) => JSON.stringify(values.map((value) => sqlite.encode(kind, value))),
  isAnyOf: (column, list) => `${column} IN (SELECT value FROM json_each(${list}))`,
  jsonArray: (expression, from, order) =>
    `(SELECT coalesce(json_group_array(${expression} ORDER BY ${order}), '[]') FROM ${from})`,
  tuple: (...expressions) => `json_array(${expressions.join(', ')})`,
  object: (entries) =>
    `json_object(${entries.flatMap(([key, expression]) => [`'${key}'`, expression]).join(', ')})`,
  // JSON is stored as text, which json_object would embed as a string.
  embedJson: (column) => `json(${column})`,
  // Stored as ISO text with its offset.
  dateInJson: (value) => new Date(value),
  contains: (text, fragment) => `instr(${text}, ${fragment}) > 0`,
  jsonInteger: (column, key) => `json_extract(${column}, '$.${key}')`,
  // The part after the prefix: digits only, no leading zero, within the 32-bit range.
  oidAfterPrefix: (text, prefix) => {
    const rest = () => `substr(${text}, length(${prefix()}) + 1)`;
    return (
      `CASE WHEN substr(${text}, 1, length(${prefix()})) = ${prefix()} AND ${rest()} GLOB '[1-9]*' ` +
      `AND ${rest()} NOT GLOB '*[^0-9]*' AND length(${rest()}) <= 10 ` +
      `AND CAST(${rest()} AS INTEGER) <= ${INT32_MAX} THEN CAST(${rest()} AS INTEGER) END`
    );
  },
  prepared: (text) => text,
};

export const dialects: Readonly<Record<Provider, Dialect>> = { postgresql, sqlite };

type Binding =
  | { kind: 'value'; value: unknown }
  | { kind: 'argument'; name: string; encode: (value: unknown) => unknown };

/**
 * A statement being written: each value it compares is given to `value` (or, for values known
 * only when it runs, to `argument`) where the text uses it, and comes back as the placeholder to
 * write there. The text and its bindings then make a `Statement`, which may be kept and run
 * again with other arguments.
 */
export class Sql {
  private readonly bindings: Binding[] = [];
  private readonly argumentNumbers = new Map<string, number>();

  constructor(readonly dialect: Dialect) {}

  private bind(binding: Binding, placeholder: (n: number) => string): string {
    if (binding.kind === 'argument' && this.dialect.reusesPlaceholders) {
      const known = this.argumentNumbers.get(binding.name);
      if (known !== undefined) return placeholder(known);
      this.argumentNumbers.set(binding.name, this.bindings.length + 1);
    }
    this.bindings.push(binding);
    return placeholder(this.bindings.length);
  }

  /** A value known now, compared with a column of `kind`. */
  value(value: unknown, kind?: ValueKind): string {
    const { dialect } = this;
    return this.bind({ kind: 'value', value: dialect.encode(kind, value) }, (n) =>
      dialect.placeholder(n, kind),
    );
  }

  /** A list of values known now, for `Dialect.isAnyOf`. */
  list(values: readonly unknown[], kind: ValueKind): string {
    const { dialect } = this;
    return this.bind({ kind: 'value', value: dialect.encodeList(kind, values) }, (n) =>
      dialect.listPlaceholder(n, kind),
    );
  }

  /** Argument `name`, given when the statement runs; used twice, it is one argument. */
  argument(name: string, kind?: ValueKind): string {
    const { dialect } = this;
    const encode = (value: unknown) => dialect.encode(kind, value);
    return this.bind({ kind: 'argument', name, encode }, (n) => dialect.placeholder(n, kind));
  }

  /** Argument `name`, a list, for `Dialect.isAnyOf`. */
  argumentList(name: string, kind: ValueKind): string {
    const { dialect } = this;
    const encode = (values: unknown) => dialect.encodeList(kind, values as unknown[]);
    return this.bind({ kind: 'argument', name, encode }, (n) => dialect.listPlaceholder(n, kind));
  }

  /**
   * A FROM item named `alias`: the rows of `branch` for each of `values` (at least one), `branch`
   * being a sub-query written for one value's placeholder, with its own ORDER BY and LIMIT. On
   * PostgreSQL one sub-query joined laterally to the list (one text whatever the number of
   * values); on SQLite, which has no lateral join, one sub-query per value, bound in order.
   */
  eachValue(
    values: readonly unknown[],
    kind: ValueKind,
    branch: (value: string) => string,
    alias: string,
  ): string {
    if (values.length === 0) throw new Error('eachValue: no value');
    if (this.dialect.joinsLaterally) {
      return `unnest(${this.list(values, kind)}) AS each_value(value) CROSS JOIN LATERAL (${branch('each_value.value')}) ${alias}`;
    }
    const branches = values.map((value) => `SELECT * FROM (${branch(this.value(value, kind))})`);
    return `(${branches.join(' UNION ALL ')}) ${alias}`;
  }

  /** The values bound so far, in placeholder order, for statements without arguments. */
  get values(): unknown[] {
    return this.bindings.map((binding) => (binding.kind === 'value' ? binding.value : undefined));
  }

  /**
   * The statement of `text`, prepared unless `planEachTime` (a count, or a statement whose best plan
   * depends on how many rows its values match).
   */
  statement(text: string, { planEachTime = false } = {}): Statement {
    const bindings = [...this.bindings];
    return {
      text: planEachTime ? text : this.dialect.prepared(text),
      bind: (args = {}) =>
        bindings.map((binding) =>
          binding.kind === 'value' ? binding.value : binding.encode(args[binding.name]),
        ),
    };
  }
}

/** SQL text and how to bind its values; made once, run with any arguments. */
export interface Statement {
  text: string;
  bind(args?: Readonly<Record<string, unknown>>): unknown[];
}
