/**
 * The indexes a list may filter and order on (compatibility notes §5), and their translation to
 * database conditions. Values of one filter are OR-ed, filters are AND-ed; a filter without values
 * matches every resource that has the index. Names and pids are resolved to ids first, so that
 * every condition uses an index of a join table.
 */
import {
  type FieldKind,
  fieldsWhere,
  RESOURCE_FIELDS,
  type ResourceFieldName,
} from '../../catalogue/resource-fields.ts';
import type { Context } from '../../context.ts';
import { db, type Prisma } from '../../db/client.ts';
import { InvalidInputError } from '../../errors.ts';
import { isInt32, parseInt32 } from '../../lib/integers.ts';
import { groupNameKey } from '../groups/groups.service.ts';
import { localOid } from '../resources/resources.repository.ts';

type Where = Prisma.ResourceWhereInput;
type Kind = 'string' | 'int' | 'boolean' | 'date';

interface IndexDefinition {
  kind: Kind;
  /**
   * Values that name persons (pids) or groups (names): `where` receives the oids they designate,
   * looked up for every filter of a request at once (unknown names designate nothing).
   */
  names?: 'persons' | 'groups';
  /** The condition for a list of (parsed) values. */
  where: (values: never[], context: Context) => Where;
  /** The condition "has this index"; undefined: every resource has it. */
  present?: Where;
  /** Column to order by; undefined: not orderable (multi-valued). */
  orderBy?: keyof Prisma.ResourceOrderByWithRelationInput;
}

/** Oids of the persons with these pids. One statement. */
async function personOids(pids: string[]): Promise<Map<string, number>> {
  if (pids.length === 0) return new Map();
  const rows = await db.person.findMany({ where: { pid: { in: pids } }, select: { oid: true, pid: true } });
  return new Map(rows.map((row) => [row.pid, row.oid]));
}

/** Oids of the groups with these names, by name key (`groupNameKey`). One statement. */
async function groupOids(names: string[]): Promise<Map<string, number>> {
  if (names.length === 0) return new Map();
  const rows = await db.group.findMany({
    where: { nomKey: { in: [...new Set(names.map(groupNameKey))] } },
    select: { oid: true, nomKey: true },
  });
  return new Map(rows.map((row) => [row.nomKey, row.oid]));
}

/**
 * Any of `conditions`; none: nothing matches, as for an empty list of values elsewhere (Prisma
 * would drop an empty `OR` nested in an `AND`, matching everything).
 */
function anyOf(conditions: Where[]): Where {
  return conditions.length === 0 ? { oid: { in: [] } } : { OR: conditions };
}

/**
 * The instants a database stores as a DateTime: years 1 to 9999. JavaScript reaches further
 * (±275760), but PostgreSQL refuses year 0 and SQLite compares the ISO text, in which a later year
 * takes a sign and sorts before every stored date.
 */
const FIRST_INSTANT = Date.parse('0001-01-01T00:00:00.000Z');
const LAST_INSTANT = Date.parse('9999-12-31T23:59:59.999Z');

/** A date-only value matches its whole day; a full timestamp matches exactly. */
function dateCondition(values: Date[]): Prisma.DateTimeFilter[] {
  return values.map((date) => {
    if (date.getUTCHours() + date.getUTCMinutes() + date.getUTCSeconds() + date.getUTCMilliseconds() !== 0)
      return { equals: date };
    const next = date.getTime() + 86_400_000;
    // The last day stored has no next day to stop before.
    return next > LAST_INSTANT
      ? { gte: date, lte: new Date(LAST_INSTANT) }
      : { gte: date, lt: new Date(next) };
  });
}

/** How a list index parses its values, by its column's kind in the catalogue. */
const KIND_OF_FIELD: Record<Exclude<FieldKind, 'json'>, Kind> = {
  text: 'string',
  int: 'int',
  boolean: 'boolean',
  date: 'date',
};

/**
 * A list index on one of the catalogue's columns: equal to any of the values (a date: on its day),
 * ordered by the column; "has the index" is "not null" where the column may be null.
 */
function columnIndex(name: ResourceFieldName): IndexDefinition {
  const { kind, nullable } = RESOURCE_FIELDS[name];
  if (kind === 'json') throw new Error(`${name}: a JSON column is no list index`);
  const where =
    kind === 'boolean'
      ? (values: boolean[]) => anyOf(values.map((value) => ({ [name]: value })))
      : kind === 'date'
        ? (values: Date[]) => anyOf(dateCondition(values).map((day) => ({ [name]: day })))
        : (values: unknown[]) => ({ [name]: { in: values } });
  return {
    kind: KIND_OF_FIELD[kind],
    where: where as IndexDefinition['where'],
    ...(nullable ? { present: { [name]: { not: null } } } : {}),
    orderBy: name as keyof Prisma.ResourceOrderByWithRelationInput,
  };
}

/** The catalogue's list indexes: a field declared `filterable: 'list'` needs no line here. */
const COLUMN_INDEXES = Object.fromEntries(
  fieldsWhere((field) => field.filterable === 'list').map((name) => [name, columnIndex(name)]),
);

export const INDEXES: Record<string, IndexDefinition> = {
  ...COLUMN_INDEXES,
  // An empty title is no title.
  titre: { ...COLUMN_INDEXES.titre!, present: { titre: { not: '' } } },
  rid: {
    kind: 'string',
    where: (v: string[], context) => ({
      oid: { in: v.flatMap((rid) => localOid(context.config.baseId, rid) ?? []) },
    }),
    orderBy: 'oid',
  },
  auteurs: {
    kind: 'string',
    names: 'persons',
    where: (oids: number[]) => ({ authors: { some: { personOid: { in: oids } } } }),
    present: { authors: { some: {} } },
  },
  contributeurs: {
    kind: 'string',
    names: 'persons',
    where: (oids: number[]) => ({ contributors: { some: { personOid: { in: oids } } } }),
    present: { contributors: { some: {} } },
  },
  niveaux: {
    kind: 'string',
    where: (v: string[]) => ({ levels: { some: { level: { in: v } } } }),
    present: { levels: { some: {} } },
  },
  categories: {
    kind: 'int',
    where: (v: number[]) => ({ categories: { some: { categoryId: { in: v } } } }),
    present: { categories: { some: {} } },
  },
  typePedagogiques: {
    kind: 'int',
    where: (v: number[]) => ({ pedagogicTypes: { some: { typeId: { in: v } } } }),
    present: { pedagogicTypes: { some: {} } },
  },
  typeDocumentaires: {
    kind: 'int',
    where: (v: number[]) => ({ documentaryTypes: { some: { typeId: { in: v } } } }),
    present: { documentaryTypes: { some: {} } },
  },
  groupes: {
    kind: 'string',
    names: 'groups',
    where: (oids: number[]) => ({ readerGroups: { some: { groupOid: { in: oids } } } }),
    present: { readerGroups: { some: {} } },
  },
  groupesAuteurs: {
    kind: 'string',
    names: 'groups',
    where: (oids: number[]) => ({ authorGroups: { some: { groupOid: { in: oids } } } }),
    present: { authorGroups: { some: {} } },
  },
};

/** The definition of an index, or undefined: `toString` or `__proto__` are no index. */
export function indexDefinition(index: string): IndexDefinition | undefined {
  return Object.hasOwn(INDEXES, index) ? INDEXES[index] : undefined;
}

/** Not an index of the resource: words searched in titre, resume and description. */
export const FULLTEXT = 'fulltext';

export interface FilterInput {
  index: string;
  values?: unknown[] | null;
}

function parseValue(kind: Kind, value: unknown): unknown {
  switch (kind) {
    case 'string':
      return typeof value === 'string' || typeof value === 'number' ? String(value) : undefined;
    case 'int':
      // Every integer index is a 32-bit column: a larger number is no value of it (and no database takes it).
      return typeof value === 'string' ? parseInt32(value) : isInt32(value) ? value : undefined;
    case 'boolean':
      if (value === true || value === 'true' || value === 1 || value === '1') return true;
      if (value === false || value === 'false' || value === 0 || value === '0') return false;
      return undefined;
    case 'date': {
      const time =
        typeof value === 'string' || typeof value === 'number' ? new Date(value).getTime() : Number.NaN;
      return time >= FIRST_INSTANT && time <= LAST_INSTANT ? new Date(time) : undefined;
    }
  }
}

/** Parsed values of a filter (at most `maxValues` of them), or every problem found. */
export function parseFilterValues(
  filter: FilterInput,
  maxValues: number,
): { values: unknown[] | null; problems: string[] } {
  const definition = indexDefinition(filter.index);
  if (!definition) return { values: null, problems: [`Index ${filter.index} inconnu`] };
  if (filter.values == null) return { values: null, problems: [] };
  if (!Array.isArray(filter.values))
    return { values: null, problems: [`${filter.index} : values doit être une liste`] };
  if (filter.values.length > maxValues)
    return { values: null, problems: [`${filter.index} : au plus ${maxValues} valeurs par filtre`] };
  const problems: string[] = [];
  const values = filter.values.map((raw) => {
    const parsed = parseValue(definition.kind, raw);
    if (parsed === undefined) problems.push(`${filter.index} : valeur invalide (${JSON.stringify(raw)})`);
    return parsed;
  });
  return { values, problems };
}

/** A (valid) filter: its index and parsed values, null for "has the index". */
export interface ParsedFilter {
  index: string;
  values: unknown[] | null;
}

/**
 * The conditions of (valid) filters, in order. The pids and group names of every filter are
 * looked up together: one statement for the persons, one for the groups, whatever the filters.
 */
export async function filterConditions(context: Context, filters: readonly ParsedFilter[]): Promise<Where[]> {
  const named = { persons: [] as string[], groups: [] as string[] };
  for (const { index, values } of filters) {
    const { names } = indexDefinition(index)!;
    if (names && values) named[names].push(...(values as string[]));
  }
  const [persons, groups] = await Promise.all([personOids(named.persons), groupOids(named.groups)]);
  const oidsOf = {
    persons: (pid: string) => persons.get(pid),
    groups: (name: string) => groups.get(groupNameKey(name)),
  };
  return filters.map(({ index, values }) => {
    const definition = indexDefinition(index)!;
    if (values === null) return definition.present ?? {};
    const { names } = definition;
    const resolved = names ? (values as string[]).flatMap((name) => oidsOf[names](name) ?? []) : values;
    return definition.where(resolved as never[], context);
  });
}

/** The condition of one (valid) filter. */
export async function filterCondition(
  context: Context,
  index: string,
  values: unknown[] | null,
): Promise<Where> {
  const [condition] = await filterConditions(context, [{ index, values }]);
  return condition!;
}

/** The column to order by, or an InvalidInputError naming the index. */
export function orderColumn(index: string): keyof Prisma.ResourceOrderByWithRelationInput {
  const definition = indexDefinition(index);
  if (!definition) throw new InvalidInputError(`Index ${index} inconnu pour orderBy`);
  if (!definition.orderBy)
    throw new InvalidInputError(`Impossible de trier sur l’index ${index} (plusieurs valeurs par ressource)`);
  return definition.orderBy;
}
