/**
 * Legacy list routes (API document, "Lists"; compatibility notes §5). This file only reads the
 * legacy argument forms (`json`, `filters` as JSON or form arrays, `skip`/`limit`, plain index
 * parameters) and shapes the answers; the rules are in the lists module.
 */
import { InvalidInputError } from '../../errors.ts';
import { parseInt32 } from '../../lib/integers.ts';
import { FORBIDDEN_KEYS } from '../../security/input-limits.ts';
import { listQuery, ref } from '../api-schemas.ts';
import { type LegacyRoute, type RequestParts, text } from '../route-table.ts';
import { legacyFields, legacyRef, type Result } from '../shapes/resources.ts';

/** Arguments that are not plain index filters. */
const RESERVED = new Set([
  'json',
  'filters',
  'orderBy',
  'order',
  'start',
  'nb',
  'skip',
  'limit',
  'format',
  'droits',
]);

/** A whole number, or null (the service then applies its default, as for any unusable value). */
function integer(value: unknown): number | null {
  const raw = text(value);
  return raw === undefined ? null : (parseInt32(raw) ?? null);
}

/** The arguments of a list request, from `json` (GET only) or from the query string. */
function listArguments({ query }: RequestParts): Record<string, unknown> {
  if (typeof query.json !== 'string') return query;
  try {
    const parsed = JSON.parse(query.json);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      throw new Error('not an object');
    return parsed;
  } catch {
    throw new InvalidInputError('json : ce n’est pas un objet JSON valide');
  }
}

function filtersOf(raw: unknown): unknown {
  if (typeof raw !== 'string') return raw;
  try {
    return JSON.parse(raw);
  } catch {
    throw new InvalidInputError('filters : ce n’est pas du JSON valide');
  }
}

function listVariables(parts: RequestParts) {
  const args = listArguments(parts);
  // Values as text, as the search reads them (each then split at commas).
  const indexParameters = Object.entries(args)
    .filter(([key]) => !RESERVED.has(key))
    .map(([index, raw]) => ({ index, values: (Array.isArray(raw) ? raw : [raw]).map(String) }));
  // Names became values: the input limits, which refuse these keys in variables, no longer see them.
  const forbidden = indexParameters.find(({ index }) => FORBIDDEN_KEYS.has(index));
  if (forbidden) throw new InvalidInputError(`${forbidden.index} : propriété interdite`);
  const format = text(args.format) ?? 'ref';
  return {
    filters: filtersOf(args.filters),
    indexParameters: indexParameters.length > 0 ? indexParameters : null,
    orderBy: text(args.orderBy) ?? null,
    order: text(args.order) ?? null,
    start: integer(args.start ?? args.skip),
    nb: integer(args.nb ?? args.limit),
    asRef: format !== 'light' && format !== 'full',
    light: format === 'light',
    full: format === 'full',
  };
}

/**
 * The request URL with its offset moved to `start`: in `json` when the request used it, else under
 * the name the request used (`start` or `skip`), else under the route's own name.
 */
function pageUrl(
  { path, query }: RequestParts,
  start: number,
  offsetName: 'start' | 'skip' = 'start',
): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (key === 'json' && typeof value === 'string') continue;
    if (key === 'start' || key === 'skip') continue;
    for (const item of Array.isArray(value) ? value : [value]) {
      search.append(key, typeof item === 'string' ? item : JSON.stringify(item));
    }
  }
  if (typeof query.json === 'string') {
    const { skip: _skip, ...args } = JSON.parse(query.json);
    search.set('json', JSON.stringify({ ...args, start }));
  } else {
    const name = query.start !== undefined ? 'start' : query.skip !== undefined ? 'skip' : offsetName;
    search.set(name, String(start));
  }
  return `${path}?${search.toString()}`;
}

function listItem(item: Result, format: string) {
  if (format === 'light') {
    const { oid, titre, type, resume, rid, description, commentaires, droits } = item;
    return { oid, titre, type, resume, rid, description, commentaires, $droits: droits };
  }
  if (format === 'full') return { ...legacyFields(item), $droits: item.droits };
  return legacyRef(item.ref, '$droits');
}

function listPage(page: Result, parts: RequestParts) {
  const format = text(listArguments(parts).format) ?? 'ref';
  const liste = page.items.map((item: Result) => listItem(item, format));
  return {
    query: page.query,
    // start/nb as the API document names them, skip/limit as the historical service did.
    queryOptions: {
      start: page.start,
      nb: page.nb,
      skip: page.start,
      limit: page.nb,
      orderBy: page.orderBy,
      order: page.order,
    },
    total: page.total,
    liste,
    ...(liste.length === page.nb ? { nextUrl: pageUrl(parts, page.start + page.nb) } : {}),
    ...(page.warnings.length > 0 ? { warnings: page.warnings } : {}),
  };
}

function authorsPage(page: Result, parts: RequestParts) {
  const byAuthor = Object.fromEntries(
    page.authors.map((author: Result) => [
      author.pid,
      {
        pid: author.pid,
        label: author.label,
        liste: author.resources.map((r: Result) => legacyRef(r.ref, '$droits')),
      },
    ]),
  );
  return {
    ...byAuthor,
    total: page.total,
    ...(page.warnings.length > 0 ? { warnings: page.warnings } : {}),
    ...(page.count === page.limit ? { nextUrl: pageUrl(parts, page.skip + page.limit, 'skip') } : {}),
    ...(page.skip > 0 ? { prevUrl: pageUrl(parts, Math.max(0, page.skip - page.limit), 'skip') } : {}),
  };
}

export const listRoutes: LegacyRoute[] = [
  {
    method: 'get',
    paths: ['/api/liste'],
    operation: 'SearchResources',
    variables: listVariables,
    shape: listPage,
    doc: {
      summary: 'Search resources',
      description: 'Any other query parameter is an index filter (`type=em`, `categories=7`…).',
      query: listQuery,
      payload: ref('ListPage'),
    },
  },
  {
    method: 'get',
    paths: ['/api/liste/perso'],
    operation: 'MyResources',
    variables: listVariables,
    shape: listPage,
    timeoutMs: 3000,
    doc: { summary: 'Search the caller’s own resources', query: listQuery, payload: ref('ListPage') },
  },
  {
    method: 'get',
    paths: ['/api/liste/auteurs'],
    operation: 'AuthorsResources',
    variables: ({ query }) => ({
      pids: text(query.pids) ?? null,
      skip: integer(query.skip ?? query.start),
      limit: integer(query.limit ?? query.nb),
    }),
    shape: authorsPage,
    doc: {
      summary: 'Resources of authors, by author',
      query: {
        pids: { type: 'string', description: 'comma-separated pids (`origin/id`)' },
        skip: { type: 'integer', minimum: 0, description: 'offset (also `start`)' },
        limit: { type: 'integer', minimum: 1, description: 'page size (also `nb`)' },
      },
      payload: ref('AuthorsPage'),
    },
  },
  {
    method: 'get',
    paths: ['/api/autocomplete/:pattern'],
    operation: 'Autocomplete',
    variables: ({ params }) => ({ pattern: params.pattern }),
    shape: (result) => ({ filters: result.data }),
    doc: {
      summary: 'Filters whose values match a pattern',
      params: { pattern: { type: 'string', description: 'start of a value' } },
      payload: {
        properties: {
          filters: {
            type: 'array',
            items: {
              type: 'object',
              properties: { index: { type: 'string' }, value: { type: ['string', 'number'] } },
              required: ['index', 'value'],
            },
          },
        },
        required: ['filters'],
      },
    },
  },
];
