/**
 * A list's condition as SQL, so that a page is one statement written here (page and documents
 * together, pages.ts) instead of a Prisma query for the page's oids followed by the documents:
 * Prisma compiles every query in its engine, which cost more than the statement for short pages,
 * and a second round trip.
 *
 * It translates the `Prisma.ResourceWhereInput` that filters (src/modules/lists/filters.ts) and
 * rights (src/modules/resources/resources.policy.ts `readableWhere`) build, so both forms keep one
 * source. Those modules write a known set of shapes; any other shape is a programming error
 * (`UntranslatableCondition`), which the tests would meet first: they run every filter and every
 * kind of caller through this translation and through Prisma (test/integration/where-sql.test.ts).
 */
import { resourceFields } from '../catalogue/resource-fields.ts';
import type { Prisma } from '../db/client.ts';
import type { Sql, ValueKind } from './dialect.ts';

type Where = Prisma.ResourceWhereInput;
type ColumnKind = Exclude<ValueKind, 'json'>;

/** Columns of Resource a condition may use, by kind: the catalogue's filterable fields. */
const RESOURCE_COLUMNS: Record<string, ColumnKind> = Object.fromEntries(
  resourceFields.flatMap(([name, field]) =>
    field.filterable && field.kind !== 'json' ? [[name, field.kind]] : [],
  ),
);

/** Relations of Resource a condition may use: their join table and its columns. */
const RELATIONS: Record<string, { table: string; columns: Record<string, ColumnKind> }> = {
  authors: { table: 'ResourceAuthor', columns: { personOid: 'int' } },
  contributors: { table: 'ResourceContributor', columns: { personOid: 'int' } },
  parentAuthors: { table: 'ResourceParentAuthor', columns: { personOid: 'int' } },
  readerGroups: { table: 'ResourceGroup', columns: { groupOid: 'int' } },
  authorGroups: { table: 'ResourceAuthorGroup', columns: { groupOid: 'int' } },
  categories: { table: 'ResourceCategory', columns: { categoryId: 'int' } },
  levels: { table: 'ResourceLevel', columns: { level: 'text' } },
  pedagogicTypes: { table: 'ResourcePedagogicType', columns: { typeId: 'int' } },
  documentaryTypes: { table: 'ResourceDocumentaryType', columns: { typeId: 'int' } },
  words: { table: 'ResourceWord', columns: { kind: 'int', word: 'text' } },
};

/**
 * Relations to a small vocabulary (categories, levels, types): each value is shared by a large
 * share of resources, unlike a person, a group or a word.
 */
const VOCABULARY_RELATIONS = new Set(['categories', 'levels', 'pedagogicTypes', 'documentaryTypes']);

/**
 * Relations that Resource also carries as tags (`|6e|5e|`), kept by the database's triggers (the
 * list_tags migration): a filter on them is a test of the tags, which the list order index holds,
 * so a page walked in that order tests each entry where it is instead of probing the join table
 * (a probe per entry costs more as the repository grows: the join table's index leaves the
 * processor's caches; docs/performance.md).
 */
const TAGGED_RELATIONS: Record<string, { column: string; value: string }> = {
  levels: { column: 'levelTags', value: 'level' },
  categories: { column: 'categoryTags', value: 'categoryId' },
};

/** A value as the tags hold it: `%` and `|` escaped, between two `|`. */
export function tagOf(value: string | number): string {
  return `|${String(value).replaceAll('%', '%25').replaceAll('|', '%7C')}|`;
}

/** The values tags hold, in order: `|6e|a%7Cb%25|` → `6e`, `a|b%` (tagOf undone). */
export function valuesOfTags(tags: string): string[] {
  if (tags === '') return [];
  return tags
    .slice(1, -1)
    .split('|')
    .map((value) => value.replaceAll('%7C', '|').replaceAll('%25', '%'));
}

/** The values of a column filter naming one value or a list (`in`); undefined for any other form. */
function filterValues(filter: unknown): (string | number)[] | undefined {
  let values: unknown = [filter];
  if (typeof filter === 'object' && filter !== null) {
    const operators = Object.entries(filter).filter(([, operand]) => operand !== undefined);
    if (operators.length !== 1) return undefined;
    const [operator, operand] = operators[0]!;
    if (operator === 'in') values = operand;
    else if (operator === 'equals') values = [operand];
    else return undefined;
  }
  if (!Array.isArray(values)) return undefined;
  return values.every((value) => typeof value === 'string' || Number.isInteger(value)) ? values : undefined;
}

/**
 * A tagged relation's `some` filter as a test of the tags: any row (the "has this index" filter),
 * or any of a list of values (filters.ts); undefined for other forms (the join table then).
 */
function tagCondition(sql: Sql, key: string, some: object, alias: string): string | undefined {
  const { column, value } = TAGGED_RELATIONS[key]!;
  const tags = `${alias}."${column}"`;
  const filters = Object.entries(some).filter(([, filter]) => filter !== undefined);
  if (filters.length === 0) return `${tags} <> ''`;
  if (filters.length > 1 || filters[0]![0] !== value) return undefined;
  const values = filterValues(filters[0]![1]);
  if (values === undefined) return undefined;
  return disjunction(values.map((item) => sql.dialect.contains(tags, sql.value(tagOf(item), 'text'))));
}

/** A condition uses a form the translation does not know: a programming error, never the caller's. */
export class UntranslatableCondition extends Error {
  constructor(form: string) {
    super(`A list condition uses a form the read model cannot write: ${form}`);
  }
}

/** A value of a column of `kind`: what the filters give for it, else not a condition they write. */
function checked(kind: ColumnKind, value: unknown): unknown {
  const valid =
    kind === 'date'
      ? value instanceof Date && !Number.isNaN(value.getTime())
      : kind === 'boolean'
        ? typeof value === 'boolean'
        : kind === 'int'
          ? Number.isInteger(value)
          : typeof value === 'string';
  if (!valid) throw new UntranslatableCondition(`${kind} value ${String(value)}`);
  return value;
}

const placeholder = (sql: Sql, kind: ColumnKind, value: unknown) => sql.value(checked(kind, value), kind);

/**
 * `column IN (values)`, with one parameter whatever the number of values; one value is an
 * equality, which lets an index on (column, …, order column) give rows in order (PostgreSQL
 * treats `= ANY(array)` as several values, whose index order is not the column's).
 */
function inList(sql: Sql, column: string, kind: ColumnKind, values: unknown): string {
  if (!Array.isArray(values)) throw new UntranslatableCondition('in');
  if (values.length === 0) return 'FALSE';
  if (values.length === 1) return `${column} = ${placeholder(sql, kind, values[0])}`;
  const list = sql.list(
    values.map((value) => checked(kind, value)),
    kind,
  );
  return sql.dialect.isAnyOf(column, list);
}

/** The condition on one column: a value, or a filter object (`in`, `not`, `equals`, `gte`, `lt`…). */
function columnCondition(sql: Sql, column: string, kind: ColumnKind, filter: unknown): string {
  if (filter === null) return `${column} IS NULL`;
  if (typeof filter !== 'object' || filter instanceof Date) {
    return `${column} = ${placeholder(sql, kind, filter)}`;
  }
  const parts: string[] = [];
  for (const [operator, operand] of Object.entries(filter as Record<string, unknown>)) {
    if (operand === undefined) continue;
    switch (operator) {
      case 'equals':
        parts.push(operand === null ? `${column} IS NULL` : `${column} = ${placeholder(sql, kind, operand)}`);
        break;
      case 'in':
        parts.push(inList(sql, column, kind, operand));
        break;
      case 'not':
        // Prisma's `not: value` leaves NULLs out, like SQL's `<>`.
        parts.push(
          operand === null ? `${column} IS NOT NULL` : `${column} <> ${placeholder(sql, kind, operand)}`,
        );
        break;
      case 'gt':
      case 'gte':
      case 'lt':
      case 'lte': {
        const sign = { gt: '>', gte: '>=', lt: '<', lte: '<=' }[operator];
        parts.push(`${column} ${sign} ${placeholder(sql, kind, operand)}`);
        break;
      }
      default:
        throw new UntranslatableCondition(operator);
    }
  }
  return parts.length === 0 ? 'TRUE' : parts.join(' AND ');
}

function conjunction(parts: string[]): string {
  if (parts.length === 0) return 'TRUE';
  return parts.length === 1 ? parts[0]! : parts.map((part) => `(${part})`).join(' AND ');
}

function disjunction(parts: string[]): string {
  if (parts.length === 0) return 'FALSE';
  return parts.length === 1 ? parts[0]! : parts.map((part) => `(${part})`).join(' OR ');
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [value];
}

/** A condition on the rows of a join table (alias `x`), its columns combined with AND and OR. */
function joinCondition(sql: Sql, columns: Record<string, ColumnKind>, where: object): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(where)) {
    if (value === undefined) continue;
    if (key === 'AND' || key === 'OR') {
      const items = list(value).map((item) => joinCondition(sql, columns, item as object));
      parts.push(key === 'AND' ? conjunction(items) : disjunction(items));
      continue;
    }
    const kind = Object.hasOwn(columns, key) ? columns[key] : undefined;
    if (!kind) throw new UntranslatableCondition(key);
    parts.push(columnCondition(sql, `x."${key}"`, kind, value));
  }
  return conjunction(parts);
}

/** Index seeks one row costs the probes of `where` (SQLite's EXISTS form): one per value looked up. */
function probeSeeks(where: Where): number {
  let seeks = 0;
  for (const [key, value] of Object.entries(where)) {
    if (key === 'AND' || key === 'OR' || key === 'NOT') {
      for (const item of list(value)) seeks += probeSeeks(item as Where);
    } else if (VOCABULARY_RELATIONS.has(key) && !Object.hasOwn(TAGGED_RELATIONS, key)) {
      // A tagged relation is tested on the entry itself (no seek).
      const filters = Object.values((value as { some?: object } | null)?.some ?? {});
      seeks += Math.max(1, ...filters.map((f) => (Array.isArray(f?.in) ? f.in.length : 1)));
    }
  }
  return seeks;
}

/**
 * The items of a conjunction in the order SQLite should test them: it tests them as written, for
 * each row an ordered index gives, so the probes taking fewer seeks go first (before the tags
 * existed, a level before two categories made the filtered, ordered list's page markedly faster;
 * types still probe). A stable sort: items of equal cost keep their order.
 * PostgreSQL's planner orders them itself.
 */
function testOrder(sql: Sql, items: unknown[]): unknown[] {
  if (!sql.dialect.testsInWrittenOrder || items.length < 2) return items;
  return items
    .map((item, index) => ({ item, index, seeks: probeSeeks(item as Where) }))
    .sort((a, b) => a.seeks - b.seeks || a.index - b.index)
    .map(({ item }) => item);
}

function resourceCondition(sql: Sql, where: Where, alias: string): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(where)) {
    if (value === undefined) continue;
    if (key === 'AND') {
      parts.push(
        conjunction(testOrder(sql, list(value)).map((item) => resourceCondition(sql, item as Where, alias))),
      );
    } else if (key === 'OR') {
      parts.push(disjunction(list(value).map((item) => resourceCondition(sql, item as Where, alias))));
    } else if (key === 'NOT') {
      parts.push(
        `NOT (${conjunction(list(value).map((item) => resourceCondition(sql, item as Where, alias)))})`,
      );
    } else if (Object.hasOwn(RESOURCE_COLUMNS, key)) {
      parts.push(columnCondition(sql, `${alias}."${key}"`, RESOURCE_COLUMNS[key]!, value));
    } else if (Object.hasOwn(RELATIONS, key)) {
      const { table, columns } = RELATIONS[key]!;
      const { some, ...rest } = (value ?? {}) as { some?: object };
      if (some === undefined || Object.keys(rest).length > 0)
        throw new UntranslatableCondition(`${key} filter`);
      const tagged = Object.hasOwn(TAGGED_RELATIONS, key) ? tagCondition(sql, key, some, alias) : undefined;
      if (tagged !== undefined) {
        parts.push(tagged);
        continue;
      }
      const inner = joinCondition(sql, columns, some);
      if (sql.dialect.probesVocabularies && VOCABULARY_RELATIONS.has(key)) {
        // A probe per resource: SQLite cannot tell that a value of a small vocabulary matches a
        // large share of resources, and drove a page from all of them, then sorted (a type, two
        // categories and a level, newest first: orders of magnitude slower; docs/performance.md).
        parts.push(
          `EXISTS (SELECT 1 FROM "${table}" x WHERE x."resourceOid" = ${alias}.oid${inner === 'TRUE' ? '' : ` AND ${inner}`})`,
        );
      } else {
        // An IN sub-query: the planner may drive it from the join table's index (few matches) or
        // probe it while walking an ordered index of resources (many matches, short page).
        parts.push(
          `${alias}.oid IN (SELECT x."resourceOid" FROM "${table}" x${inner === 'TRUE' ? '' : ` WHERE ${inner}`})`,
        );
      }
    } else {
      throw new UntranslatableCondition(key);
    }
  }
  return conjunction(parts);
}

/** `where` as an SQL condition on resource alias `alias`, its values bound in `sql`. */
export function whereSql(sql: Sql, where: Where, alias = 'r'): string {
  return resourceCondition(sql, where, alias);
}

/** A Resource column a list may be ordered by here (one a condition may use), else a programming error. */
export function orderable(column: string): string {
  if (!Object.hasOwn(RESOURCE_COLUMNS, column)) throw new UntranslatableCondition(`order by ${column}`);
  return column;
}
