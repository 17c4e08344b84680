/**
 * The indexes a list may filter and order on (compatibility notes §5), and their translation to
 * database conditions. Values of one filter are OR-ed, filters are AND-ed; a filter without values
 * matches every resource that has the index. Names and pids are resolved to ids first, so that
 * every condition uses an index of a join table.
 */
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
  /** The condition for a list of (parsed) values. */
  where: (values: never[], context: Context) => Where | Promise<Where>;
  /** The condition "has this index"; undefined: every resource has it. */
  present?: Where;
  /** Column to order by; undefined: not orderable (multi-valued). */
  orderBy?: keyof Prisma.ResourceOrderByWithRelationInput;
}

async function personOids(pids: string[]): Promise<number[]> {
  const rows = await db.person.findMany({ where: { pid: { in: pids } }, select: { oid: true } });
  return rows.map((row) => row.oid);
}

async function groupOids(names: string[]): Promise<number[]> {
  const rows = await db.group.findMany({
    where: { nomKey: { in: names.map(groupNameKey) } },
    select: { oid: true },
  });
  return rows.map((row) => row.oid);
}

/**
 * Any of `conditions`; none: nothing matches, as for an empty list of values elsewhere (Prisma
 * would drop an empty `OR` nested in an `AND`, matching everything).
 */
function anyOf(conditions: Where[]): Where {
  return conditions.length === 0 ? { oid: { in: [] } } : { OR: conditions };
}

/** A date-only value matches its whole day; a full timestamp matches exactly. */
function dateCondition(values: Date[]): Prisma.DateTimeFilter[] {
  return values.map((date) =>
    date.getUTCHours() + date.getUTCMinutes() + date.getUTCSeconds() + date.getUTCMilliseconds() === 0
      ? { gte: date, lt: new Date(date.getTime() + 86_400_000) }
      : { equals: date },
  );
}

export const INDEXES: Record<string, IndexDefinition> = {
  titre: {
    kind: 'string',
    where: (v: string[]) => ({ titre: { in: v } }),
    present: { titre: { not: '' } },
    orderBy: 'titre',
  },
  oid: { kind: 'int', where: (v: number[]) => ({ oid: { in: v } }), orderBy: 'oid' },
  rid: {
    kind: 'string',
    where: (v: string[], context) => ({
      oid: { in: v.flatMap((rid) => localOid(context.config.baseId, rid) ?? []) },
    }),
    orderBy: 'oid',
  },
  origine: { kind: 'string', where: (v: string[]) => ({ origine: { in: v } }), orderBy: 'origine' },
  idOrigine: { kind: 'string', where: (v: string[]) => ({ idOrigine: { in: v } }), orderBy: 'idOrigine' },
  type: { kind: 'string', where: (v: string[]) => ({ type: { in: v } }), orderBy: 'type' },
  langue: { kind: 'string', where: (v: string[]) => ({ langue: { in: v } }), orderBy: 'langue' },
  auteurs: {
    kind: 'string',
    where: async (v: string[]) => ({ authors: { some: { personOid: { in: await personOids(v) } } } }),
    present: { authors: { some: {} } },
  },
  contributeurs: {
    kind: 'string',
    where: async (v: string[]) => ({ contributors: { some: { personOid: { in: await personOids(v) } } } }),
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
    where: async (v: string[]) => ({ readerGroups: { some: { groupOid: { in: await groupOids(v) } } } }),
    present: { readerGroups: { some: {} } },
  },
  groupesAuteurs: {
    kind: 'string',
    where: async (v: string[]) => ({ authorGroups: { some: { groupOid: { in: await groupOids(v) } } } }),
    present: { authorGroups: { some: {} } },
  },
  publie: {
    kind: 'boolean',
    where: (v: boolean[]) => anyOf(v.map((publie) => ({ publie }))),
    orderBy: 'publie',
  },
  restriction: { kind: 'int', where: (v: number[]) => ({ restriction: { in: v } }), orderBy: 'restriction' },
  aliasOf: {
    kind: 'string',
    where: (v: string[]) => ({ aliasOf: { in: v } }),
    present: { aliasOf: { not: null } },
    orderBy: 'aliasOf',
  },
  dateCreation: {
    kind: 'date',
    where: (v: Date[]) => anyOf(dateCondition(v).map((dateCreation) => ({ dateCreation }))),
    orderBy: 'dateCreation',
  },
  dateMiseAJour: {
    kind: 'date',
    where: (v: Date[]) => anyOf(dateCondition(v).map((dateMiseAJour) => ({ dateMiseAJour }))),
    orderBy: 'dateMiseAJour',
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
      const date = typeof value === 'string' || typeof value === 'number' ? new Date(value) : undefined;
      return date && !Number.isNaN(date.getTime()) ? date : undefined;
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

/** The condition of one (valid) filter. */
export async function filterCondition(
  context: Context,
  index: string,
  values: unknown[] | null,
): Promise<Where> {
  const definition = indexDefinition(index)!;
  if (values === null) return definition.present ?? {};
  return definition.where(values as never[], context);
}

/** The column to order by, or an InvalidInputError naming the index. */
export function orderColumn(index: string): keyof Prisma.ResourceOrderByWithRelationInput {
  const definition = indexDefinition(index);
  if (!definition) throw new InvalidInputError(`Index ${index} inconnu pour orderBy`);
  if (!definition.orderBy)
    throw new InvalidInputError(`Impossible de trier sur l’index ${index} (plusieurs valeurs par ressource)`);
  return definition.orderBy;
}
