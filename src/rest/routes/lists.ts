/**
 * Legacy list routes (API document, "Lists"; compatibility notes §5). This file only reads the
 * legacy argument forms (`json`, `filters` as JSON or form arrays, `skip`/`limit`, plain index
 * parameters) and shapes the answers; the rules are in the lists module.
 */
import { InvalidInputError } from '../../errors.ts';
import { ref } from '../../legacy/json-schemas.ts';
import type {
  IgnoredArgumentFragment,
  LegacyResourceFragment,
  ListItemFragment,
  ResultPageFragment,
} from '../../legacy/operations.generated.ts';
import { legacyFields, legacyRef } from '../../legacy/resource-json.ts';
import { parseInt32 } from '../../lib/integers.ts';
import { FORBIDDEN_KEYS } from '../../security/input-limits.ts';
import { listIgnored, listInvalid, listQuery } from '../api-schemas.ts';
import { ignore, type LegacyRoute, oneOf, type RequestParts, type Shaped, text } from '../route-table.ts';

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

/** The name used of a parameter with an alias (`start` or `skip`), and its value as text. */
function given(args: Record<string, unknown>, names: string[]) {
  const name = names.find((candidate) => args[candidate] !== undefined);
  return { name, raw: name === undefined ? undefined : text(args[name]) };
}

/** A whole number, or null: the service then applies its default, as for any unusable value. */
function integer(args: Record<string, unknown>, names: string[]): number | null {
  const { raw } = given(args, names);
  return raw === undefined ? null : (parseInt32(raw) ?? null);
}

/**
 * Paging values that are not whole numbers never reach the service: warned about here, once the
 * page tells which values were used.
 */
function unparsedPaging(
  parts: RequestParts,
  args: Record<string, unknown>,
  paging: Array<[names: string[], used: number]>,
) {
  for (const [names, used] of paging) {
    const { name, raw } = given(args, names);
    if (raw !== undefined && parseInt32(raw) === undefined)
      ignore(parts, name!, raw, `${used} (the default)`);
  }
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

/** With `json`, the other query parameters are not read (legacy contract): each is warned about. */
function ignoredBesideJson(parts: RequestParts) {
  if (typeof parts.query.json !== 'string') return;
  for (const [name, value] of Object.entries(parts.query)) {
    if (name !== 'json') ignore(parts, name, text(value), 'the arguments of json');
  }
}

const FORMATS = ['ref', 'light', 'full'] as const;

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
  ignoredBesideJson(parts);
  const format = oneOf(parts, 'format', args.format, FORMATS, 'ref');
  return {
    filters: filtersOf(args.filters),
    indexParameters: indexParameters.length > 0 ? indexParameters : null,
    orderBy: text(args.orderBy) ?? null,
    order: text(args.order) ?? null,
    start: integer(args, ['start', 'skip']),
    nb: integer(args, ['nb', 'limit']),
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

/** An item in the format asked, which chose what the operation selected (`$light`, `$full`, `$asRef`). */
function listItem(item: ListItemFragment, format: string) {
  if (format === 'light') {
    const { oid, titre, type, resume, rid, description, commentaires, droits } = item;
    return { oid, titre, type, resume, rid, description, commentaires, $droits: droits };
  }
  if (format === 'full') return { ...legacyFields(item as LegacyResourceFragment), $droits: item.droits };
  return legacyRef(item.ref!, '$droits');
}

/** Arguments the service replaced by a default: a warning each. */
function serviceIgnored(page: { ignored: IgnoredArgumentFragment[] }, parts: RequestParts) {
  for (const { name, value, used } of page.ignored) ignore(parts, name, value, used);
}

function listPage(page: ResultPageFragment, parts: RequestParts) {
  unparsedPaging(parts, listArguments(parts), [
    [['start', 'skip'], page.start],
    [['nb', 'limit'], page.nb],
  ]);
  serviceIgnored(page, parts);
  const format = text(listArguments(parts).format) ?? 'ref';
  const liste = page.items.map((item) => listItem(item, format));
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

function authorsPage(page: Shaped<'AuthorsResources'>, parts: RequestParts) {
  unparsedPaging(parts, parts.query, [
    [['skip', 'start'], page.skip],
    [['limit', 'nb'], page.limit],
  ]);
  serviceIgnored(page, parts);
  const byAuthor = Object.fromEntries(
    page.authors.map((author) => [
      author.pid,
      {
        pid: author.pid,
        label: author.label,
        liste: author.resources.map((r) => legacyRef(r.ref, '$droits')),
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
      description:
        'Any other query parameter is an index filter (`type=em`, `categories=7`…); an unknown one is ignored, with a warning in `warnings`. A resource that is not `indexable` is listed to its authors only (it stays readable by id).',
      query: listQuery,
      payload: ref('ListPage'),
      invalid: listInvalid,
      ignored: listIgnored,
    },
  },
  {
    method: 'get',
    paths: ['/api/liste/perso'],
    operation: 'MyResources',
    variables: listVariables,
    shape: listPage,
    timeoutMs: 3000,
    doc: {
      summary: 'Search the caller’s own resources',
      description: 'Every resource the caller wrote, `indexable` or not.',
      query: listQuery,
      payload: ref('ListPage'),
      invalid: listInvalid,
      ignored: listIgnored,
    },
  },
  {
    method: 'get',
    paths: ['/api/liste/auteurs'],
    operation: 'AuthorsResources',
    variables: (parts) => ({
      pids: text(parts.query.pids) ?? null,
      skip: integer(parts.query, ['skip', 'start']),
      limit: integer(parts.query, ['limit', 'nb']),
    }),
    shape: authorsPage,
    doc: {
      summary: 'Resources of authors, by author',
      description:
        'The resources a search would list: readable by the caller, and `indexable` unless the caller wrote them; the warning counts those left out for lack of read rights.',
      query: {
        pids: {
          type: 'string',
          required: true,
          pattern: '(^|,)\\s*[^,\\s/][^,]*/',
          description: 'comma-separated pids (`origin/id`), at least one; the others are ignored',
          examples: ['sesalab/1,sesalab/2'],
        },
        skip: {
          type: 'integer',
          minimum: 0,
          description: 'offset (also `start`); another value: 0, with a `Warning`',
        },
        limit: {
          type: 'integer',
          minimum: 1,
          description:
            'page size (also `nb`), at most `listeMax`; another value: `listeMax`, with a `Warning`',
        },
      },
      payload: ref('AuthorsPage'),
      invalid: ['Argument pids manquant', 'Aucun auteur demandé'],
      ignored: 'a `skip` or `limit` (`start`, `nb`) the route does not understand',
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
      params: {
        pattern: {
          type: 'string',
          minLength: 2,
          description:
            'start of a value: its first word, accents and punctuation aside, has at least two characters',
        },
      },
      invalid: ['Il faut au moins deux caractères'],
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
