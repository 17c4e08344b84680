/**
 * Searchable lists of resources. Visibility is part of the database query (never a filter after
 * it), so totals and pages are right; every list page costs the same number of statements
 * whatever its size.
 */
import type { Context } from '../../context.ts';
import { db, type Prisma } from '../../db/client.ts';
import { InvalidInputError } from '../../errors.ts';
import { countResources } from '../../read-model/counts.ts';
import { type DocumentParts, loadDocuments, type ResourceDocument } from '../../read-model/documents.ts';
import { loadAuthorsPage, loadPage, loadPageAfter } from '../../read-model/pages.ts';
import { rankedOids, type SearchTerm } from '../../read-model/ranked-search.ts';
import { isPid } from '../persons/persons.service.ts';
import { readableWhere, rightsNeedRelations, searchableWhere } from '../resources/resources.policy.ts';
import { rightsSubject } from '../resources/resources.service.ts';
import {
  type FilterInput,
  FULLTEXT,
  filterConditions,
  indexDefinition,
  orderColumn,
  type ParsedFilter,
  parseFilterValues,
} from './filters.ts';
import { MAX_SEARCH_TERMS, searchTerms, termCondition } from './fulltext.ts';

export interface SearchArgs {
  filters?: FilterInput[] | null;
  /** Plain `index=value1,value2` parameters of the legacy route; unknown names are ignored with a warning. */
  params?: Record<string, unknown> | null;
  orderBy?: string | null;
  order?: string | null;
  start?: number | null;
  nb?: number | null;
}

export interface SearchPage {
  total: number;
  start: number;
  nb: number;
  orderBy: string | null;
  order: 'asc' | 'desc';
  /** The filters actually applied, index → values (null: "has the index"). */
  query: Record<string, unknown[] | null>;
  items: ResourceDocument[];
  warnings: string[];
  ignored: IgnoredArgument[];
}

/**
 * An argument the legacy contract answers anyway, with another value in its place (compatibility
 * notes §5): REST tells the client in a `Warning` header.
 */
export interface IgnoredArgument {
  name: string;
  value: string;
  /** What was used instead, e.g. `25 (the default)`. */
  used: string;
}

/**
 * A page's size and offset: the default size when absent or not positive, at most `max`; an offset
 * of at least 0. A value given and replaced is recorded in `ignored`, under the caller's names.
 */
export function pageWindow(
  start: number | null | undefined,
  size: number | null | undefined,
  { defaultSize, max, names }: { defaultSize: number; max: number; names: { start: string; size: string } },
  ignored: IgnoredArgument[],
) {
  let used = defaultSize;
  if (size != null && Number.isInteger(size) && size > 0) used = Math.min(size, max);
  if (size != null && used !== size)
    ignored.push({
      name: names.size,
      value: String(size),
      used: size > max ? `${max} (the maximum)` : `${defaultSize} (the default)`,
    });
  const offset = start != null && Number.isInteger(start) && start > 0 ? start : 0;
  if (start != null && offset !== start) ignored.push({ name: names.start, value: String(start), used: '0' });
  return { start: offset, nb: used };
}

/** `nb`: the configured default when absent or not positive, at most `maxSql`. `start`: at least 0. */
export function paging(
  context: Context,
  start?: number | null,
  nb?: number | null,
  ignored: IgnoredArgument[] = [],
) {
  const { listeNbDefault, maxSql } = context.config;
  return pageWindow(
    start,
    nb,
    { defaultSize: listeNbDefault, max: maxSql, names: { start: 'start', size: 'nb' } },
    ignored,
  );
}

/** The filters of a request: `filters`, then plain parameters naming an index. */
function collectFilters(args: SearchArgs, warnings: string[]): FilterInput[] {
  const filters = [...(args.filters ?? [])];
  for (const [index, raw] of Object.entries(args.params ?? {})) {
    if (!indexDefinition(index) && index !== FULLTEXT) {
      warnings.push(`Paramètre ${index} ignoré (ce n’est pas un index)`);
      continue;
    }
    const values = (Array.isArray(raw) ? raw : [raw])
      .flatMap((value) => String(value).split(','))
      .filter(Boolean);
    filters.push({ index, values: index === FULLTEXT ? [values.join(' ')] : values });
  }
  return filters;
}

export interface PreparedSearch {
  where: Prisma.ResourceWhereInput;
  /** Full-text terms (empty: no full-text filter). */
  terms: SearchTerm[];
  orderBy: string | null;
  orderColumn: keyof Prisma.ResourceOrderByWithRelationInput;
  order: 'asc' | 'desc';
  query: Record<string, unknown[] | null>;
  warnings: string[];
  ignored: IgnoredArgument[];
}

/**
 * Validates the arguments of a search and turns them into one database condition, visibility
 * included. Shared by the offset pages and the cursor connection.
 */
export async function prepareSearch(
  context: Context,
  args: SearchArgs,
  forced: FilterInput[] = [],
): Promise<PreparedSearch> {
  const warnings: string[] = [];
  const requested = collectFilters(args, warnings);
  const { maxFilterValues, maxFilters } = context.config.input;
  // Refused before the filters are read: each costs a condition, some a look-up of names.
  if (requested.length > maxFilters) throw new InvalidInputError(`Au plus ${maxFilters} filtres par requête`);
  const filters = [...requested, ...forced];
  const problems: string[] = [];
  const parsed: ParsedFilter[] = [];
  const query: Record<string, unknown[] | null> = {};
  let terms: SearchTerm[] = [];
  for (const filter of filters) {
    if (filter.index === FULLTEXT) {
      const text = [...terms.map((term) => term.word), ...(filter.values ?? []).map(String)].join(' ');
      terms = searchTerms(text);
      if (terms.length === 0) problems.push('fulltext : il faut au moins un mot de deux caractères');
      const maxTerms = Math.min(maxFilterValues, MAX_SEARCH_TERMS);
      if (terms.length > maxTerms) problems.push(`fulltext : au plus ${maxTerms} mots`);
      query[FULLTEXT] = terms.map((term) => term.word);
      continue;
    }
    const { values, problems: found } = parseFilterValues(filter, maxFilterValues);
    problems.push(...found);
    if (found.length === 0) parsed.push({ index: filter.index, values });
  }
  const orderBy = args.orderBy || null;
  let column: keyof Prisma.ResourceOrderByWithRelationInput = 'oid';
  try {
    if (orderBy) column = orderColumn(orderBy);
  } catch (error) {
    problems.push((error as InvalidInputError).message);
  }
  // Everything is checked before the first look-up: a rejected search runs no SQL.
  if (problems.length > 0) throw new InvalidInputError(problems);
  const conditions = await filterConditions(context, parsed);
  for (const { index, values } of parsed) query[index] = values;

  const subject = rightsSubject(context);
  if (!subject.viewer.person && !subject.viewer.allRights) {
    // What an anonymous caller's query really is (compatibility notes §5).
    query.publie = [true];
    query.restriction = [0];
  }
  const where: Prisma.ResourceWhereInput = {
    AND: [...conditions, readableWhere(subject), searchableWhere(subject.viewer)],
  };
  return {
    where,
    terms,
    orderBy,
    orderColumn: column,
    order: args.order === 'desc' ? 'desc' : 'asc',
    query,
    warnings,
    // The legacy contract orders ascending whatever else `order` says.
    ignored:
      args.order != null && args.order !== 'asc' && args.order !== 'desc'
        ? [{ name: 'order', value: args.order, used: "'asc' (the default)" }]
        : [],
  };
}

/** A prepared search's condition with every full-text term required (src/modules/lists/fulltext.ts). */
export function withWords({ where, terms }: PreparedSearch): Prisma.ResourceWhereInput {
  return terms.length > 0 ? { AND: [where, ...terms.map(termCondition)] } : where;
}

/**
 * A page of a search: the total and the documents of the page with the parts the caller's fields
 * need. Two statements whatever the page size (plus the look-ups of names that filters designate);
 * one while the total of the same filters is kept (src/read-model/counts.ts). A ranked full-text
 * page reads its oids, then their documents.
 */
export async function searchResources(
  context: Context,
  args: SearchArgs,
  fieldParts: DocumentParts,
  forced: FilterInput[] = [],
): Promise<SearchPage> {
  const parts = listParts(context, fieldParts);
  const prepared = await prepareSearch(context, args, forced);
  const { where, terms, orderBy, order, query, warnings } = prepared;
  const ignored = [...prepared.ignored];
  const { start, nb } = paging(context, args.start, args.nb, ignored);
  const page = { start, nb, orderBy, order, query, warnings, ignored };
  const { baseId } = context.config;

  if (terms.length > 0 && !orderBy) {
    // Ranked by relevance (fulltext.ts); the total is that of the same filters unranked, kept alike.
    const [total, oids] = await Promise.all([
      countResources(withWords(prepared)),
      rankedOids(terms, where, start, nb),
    ]);
    return { ...page, total, items: await loadDocuments(oids, baseId, parts) };
  }

  const fullWhere = withWords(prepared);
  const [total, items] = await Promise.all([
    countResources(fullWhere),
    loadPage({ where: fullWhere, orderColumn: prepared.orderColumn, order, start, nb }, baseId, parts),
  ]);
  return { ...page, total, items };
}

/**
 * A page of a search after a cursor (the oid of the last resource seen), in the search's order,
 * backwards when `inverted` (then still in the search's order). Full-text words filter only.
 */
export async function searchPageAfter(
  context: Context,
  prepared: PreparedSearch,
  page: { after: number | undefined; limit: number; inverted: boolean },
  fieldParts: DocumentParts,
): Promise<ResourceDocument[]> {
  const order = page.inverted === (prepared.order === 'asc') ? 'desc' : 'asc';
  return loadPageAfter(
    {
      where: withWords(prepared),
      orderColumn: prepared.orderColumn,
      order,
      after: page.after,
      limit: page.limit,
    },
    context.config.baseId,
    listParts(context, fieldParts),
  );
}

/**
 * The document parts of a list for this caller: the fields' parts, without the relations of the
 * rights facts when the caller's rights do not depend on them (a sub-query each, per resource).
 */
export function listParts(context: Context, fieldParts: DocumentParts): DocumentParts {
  return rightsNeedRelations(context.viewer) ? fieldParts : { ...fieldParts, withoutRelationFacts: true };
}

export const PERSONAL_LIST_DENIED =
  'Ressources personnelles inaccessibles (session expirée sur la Sésathèque), veuillez vous déconnecter et reconnecter';

/** The caller's own resources: a search with the author filter forced to the caller. */
export function personalResources(context: Context, args: SearchArgs, parts: DocumentParts) {
  const pid = context.viewer.person!.pid;
  return searchResources(context, args, parts, [{ index: 'auteurs', values: [pid] }]);
}

export interface AuthorList {
  pid: string;
  label: string;
  resources: ResourceDocument[];
}

export interface AuthorsPage {
  authors: AuthorList[];
  total: number;
  skip: number;
  limit: number;
  warnings: string[];
  ignored: IgnoredArgument[];
}

/**
 * Resources of several authors, grouped by author (a resource of two requested authors appears
 * under each). Pages hold at most `listeMax` resources.
 */
export async function authorsResources(
  context: Context,
  pidList: string | null | undefined,
  skip: number | null | undefined,
  limit: number | null | undefined,
  parts: DocumentParts,
): Promise<AuthorsPage> {
  if (pidList == null) throw new InvalidInputError('Argument pids manquant');
  const pids = [...new Set(pidList.split(',').map((pid) => pid.trim()))].filter(isPid);
  if (pids.length === 0) throw new InvalidInputError('Aucun auteur demandé');
  const warnings: string[] = [];
  const persons = await db.person.findMany({
    where: { pid: { in: pids } },
    select: { oid: true, pid: true, nom: true, prenom: true },
  });
  const known = new Map(persons.map((person) => [person.pid, person]));
  for (const pid of pids) if (!known.has(pid)) warnings.push(`Auteur ${pid} inconnu`);

  const { listeMax } = context.config;
  const ignored: IgnoredArgument[] = [];
  const { start: offset, nb: size } = pageWindow(
    skip,
    limit,
    { defaultSize: listeMax, max: listeMax, names: { start: 'skip', size: 'limit' } },
    ignored,
  );
  const subject = rightsSubject(context);
  // What a search would list of these authors to this caller, whatever the rights: the warning
  // below counts what rights alone removed.
  const listed: Prisma.ResourceWhereInput = {
    AND: [
      { authors: { some: { personOid: { in: persons.map((p) => p.oid) } } } },
      searchableWhere(subject.viewer),
    ],
  };
  const where = { AND: [listed, readableWhere(subject)] };
  const [total, all, documents] = await Promise.all([
    countResources(where),
    countResources(listed),
    // Grouping reads the author oids of each document (its rights facts): never left out here.
    loadAuthorsPage(
      {
        authorOids: persons.map((p) => p.oid),
        where: { AND: [searchableWhere(subject.viewer), readableWhere(subject)] },
        start: offset,
        nb: size,
      },
      context.config.baseId,
      parts,
    ),
  ]);
  if (all > total) warnings.push(`${all - total} ressource(s) retirée(s) faute de droits de lecture`);
  const lists = persons
    .sort((a, b) => pids.indexOf(a.pid) - pids.indexOf(b.pid))
    .map((person) => ({
      pid: person.pid,
      label: `${person.prenom} ${person.nom}`.trim(),
      resources: documents.filter((document) => document.facts.authorOids.includes(person.oid)),
    }));
  return { authors: lists, total, skip: offset, limit: size, warnings, ignored };
}
