/** GraphQL: resource search (offset pages), the viewer's resources, authors' lists, autocomplete. */
import { resolveCursorConnection } from '@pothos/plugin-relay';
import { type Context, memo } from '../../context.ts';
import { AuthenticationRequiredError, ForbiddenError, InvalidInputError } from '../../errors.ts';
import { type BuilderTypes, builder } from '../../graphql/builder.ts';
import { parseId } from '../../lib/integers.ts';
import { countResources } from '../../read-model/counts.ts';
import type { ResourceDocument } from '../../read-model/documents.ts';
import { documentPartsFor, ResourceType } from '../resources/resources.schema.ts';
import { autocomplete, type SearchFilter } from './autocomplete.ts';
import {
  type AuthorList,
  type AuthorsPage,
  authorsResources,
  type IgnoredArgument,
  PERSONAL_LIST_DENIED,
  personalResources,
  prepareSearch,
  type SearchArgs,
  type SearchPage,
  searchPageAfter,
  searchResources,
  withWords,
} from './lists.service.ts';

const FilterInputType = builder.inputType('ResourceFilter', {
  description:
    'Resources whose `index` has one of `values`; without `values`, resources that have the index.',
  fields: (t) => ({
    index: t.string({
      required: true,
      description: 'The index: a resource field such as `type`, `categories`, `auteurs`, or `fulltext`.',
    }),
    values: t.field({
      type: ['JSON'],
      required: false,
      description:
        'Values of the index: integers, strings or booleans depending on the index (see `autocomplete`); JSON ' +
        'because one list type cannot hold each index’s type. REST: `filters` (JSON) or `index=v1,v2`.',
    }),
  }),
});

const IndexParameterInputType = builder.inputType('IndexParameterInput', {
  description:
    'A plain index parameter (REST: any query parameter that is not a list option, `type=em`, ' +
    '`categories=7,8`): each value may hold several, separated by commas. A name that is not an index is ' +
    'ignored with a warning.',
  fields: (t) => ({
    index: t.string({ required: true, description: 'The index (or `fulltext`).' }),
    values: t.stringList({ required: true, description: 'Values, each possibly comma-separated.' }),
  }),
});

type IndexParameters = readonly { index: string; values: readonly string[] }[] | null | undefined;

/** The service's `params` (index → values), from the typed list. */
const paramsOf = (parameters: IndexParameters) =>
  parameters ? Object.fromEntries(parameters.map(({ index, values }) => [index, [...values]])) : null;

const IgnoredArgumentType = builder.objectRef<IgnoredArgument>('IgnoredArgument').implement({
  description:
    'An argument the legacy contract answers anyway, with another value in its place. REST: a `Warning` header.',
  fields: (t) => ({
    name: t.exposeString('name', { description: 'The argument.' }),
    value: t.exposeString('value', { description: 'The value given, ignored.' }),
    used: t.exposeString('used', { description: 'What was used in its place.' }),
  }),
});

const ResourcePageType = builder.objectRef<SearchPage>('ResourcePage').implement({
  description: 'A page of a search. REST: the list answer (`liste`, `queryOptions`, `total`).',
  fields: (t) => ({
    total: t.exposeInt('total', {
      description: 'Resources matching, among those the viewer may read and searches list (`indexable`).',
    }),
    start: t.exposeInt('start', { description: 'Offset of the page.' }),
    nb: t.exposeInt('nb', { description: 'Page size actually used (default and maximum applied).' }),
    orderBy: t.exposeString('orderBy', { description: 'The index ordered by, if any.', nullable: true }),
    order: t.exposeString('order', { description: '`asc` or `desc`.' }),
    query: t.field({
      type: 'JSON',
      description: 'The filters applied, index → values.',
      resolve: (page) => page.query,
    }),
    warnings: t.exposeStringList('warnings', { description: 'Parameters ignored, and why.' }),
    ignored: t.field({
      type: [IgnoredArgumentType],
      description: 'Paging and order arguments replaced by a default.',
      resolve: (page) => page.ignored,
    }),
    items: t.field({
      description: 'The resources of the page. REST: `liste`.',
      type: [ResourceType],
      resolve: (page) => page.items,
    }),
  }),
});

const AuthorListType = builder.objectRef<AuthorList>('AuthorResources').implement({
  description: 'The resources of one author, on a page of `authorsResources`.',
  fields: (t) => ({
    pid: t.exposeString('pid', { description: 'The author’s pid.' }),
    label: t.exposeString('label', { description: '"Prénom Nom".' }),
    resources: t.field({
      description: 'The author’s resources on this page. REST: `liste`.',
      type: [ResourceType],
      resolve: (list) => list.resources,
    }),
  }),
});

const AuthorsPageType = builder.objectRef<AuthorsPage>('AuthorsPage').implement({
  description: 'A page of resources of several authors, grouped by author.',
  fields: (t) => ({
    total: t.exposeInt('total', {
      description: 'Resources of these authors the viewer may read and searches list (`indexable`).',
    }),
    skip: t.exposeInt('skip', { description: 'Offset of the page.' }),
    limit: t.exposeInt('limit', { description: 'Page size used.' }),
    count: t.int({
      description: 'Distinct resources on this page.',
      resolve: (page) => new Set(page.authors.flatMap((a) => a.resources.map((r) => r.oid))).size,
    }),
    warnings: t.exposeStringList('warnings', { description: 'Pids ignored, and why.' }),
    ignored: t.field({
      type: [IgnoredArgumentType],
      description: 'Paging arguments replaced by a default.',
      resolve: (page) => page.ignored,
    }),
    authors: t.field({
      description: 'One entry per author. REST: one property per pid.',
      type: [AuthorListType],
      resolve: (page) => page.authors,
    }),
  }),
});

const SearchFilterType = builder.objectRef<SearchFilter>('SearchFilter').implement({
  description: 'A filter a search accepts: an index and one of its values, with a label to show.',
  fields: (t) => ({
    index: t.exposeString('index', { description: 'The index.' }),
    value: t.field({
      description: 'The value (an integer or a string, as the index holds).',
      type: 'JSON',
      resolve: (filter) => filter.value,
    }),
    label: t.exposeString('label', { description: 'What the value means.' }),
  }),
});

/** One preparation per request for the connection's page and its total (paging arguments aside). */
function connectionSearch(
  context: Context,
  args: {
    filters?: SearchArgs['filters'];
    indexParameters?: IndexParameters;
    orderBy?: string | null;
    order?: string | null;
  },
) {
  const search: SearchArgs = {
    filters: args.filters,
    params: paramsOf(args.indexParameters),
    orderBy: args.orderBy,
    order: args.order,
  };
  return memo(context, `lists:connection:${JSON.stringify(search)}`, () => prepareSearch(context, search));
}

/** A cursor is the oid of the last resource seen. */
function cursorOid(cursor: string | undefined): number | undefined {
  if (cursor === undefined) return undefined;
  const oid = parseId(cursor);
  if (oid === undefined) throw new InvalidInputError(`Curseur ${cursor} invalide`);
  return oid;
}

type QueryFieldBuilder = PothosSchemaTypes.QueryFieldBuilder<BuilderTypes, BuilderTypes['Root']>;

/** What a search selects and orders by: the arguments of both its offset and its cursor pages. */
const searchArgs = (t: QueryFieldBuilder) => ({
  filters: t.arg({
    description: 'Filters, all of which a resource must match.',
    type: [FilterInputType],
    required: false,
  }),
  indexParameters: t.arg({
    type: [IndexParameterInputType],
    required: false,
    description: 'Plain index parameters, after `filters` (REST: the other query parameters).',
  }),
  orderBy: t.arg.string({ required: false, description: 'An index; ties are broken by oid.' }),
  order: t.arg.string({ required: false, description: '`desc` for descending.' }),
});

// Offset pages of a search: of every resource the viewer may read, or of the viewer's own.
builder.queryFields((t) => {
  const pageArgs = {
    ...searchArgs(t),
    start: t.arg.int({ description: 'Offset (default 0). REST: `start` or `skip`.', required: false }),
    nb: t.arg.int({ required: false, description: 'Default `listeNbDefault`, at most `maxSql`.' }),
  };
  return {
    searchResources: t.field({
      type: ResourcePageType,
      description:
        'Resources the viewer may read, filtered, ordered and paged; `fulltext` ranks by relevance. A resource that is not `indexable` is listed to its authors only.',
      authScopes: { public: true },
      errors: { types: [InvalidInputError] },
      args: pageArgs,
      resolve: (_root, args, context, info) =>
        searchResources(
          context,
          { ...args, params: paramsOf(args.indexParameters) },
          documentPartsFor(info, ['items']),
        ),
    }),
    myResources: t.field({
      type: ResourcePageType,
      description:
        'The viewer’s own resources (authored), with the same arguments as searchResources; `indexable` or not.',
      authScopes: { person: true },
      unauthorizedError: (_parent, _args, context) =>
        context.viewer.kind === 'anonymous'
          ? new AuthenticationRequiredError(PERSONAL_LIST_DENIED)
          : new ForbiddenError(),
      errors: { types: [InvalidInputError] },
      args: pageArgs,
      resolve: (_root, args, context, info) =>
        personalResources(
          context,
          { ...args, params: paramsOf(args.indexParameters) },
          documentPartsFor(info, ['items']),
        ),
    }),
  };
});

builder.queryFields((t) => ({
  authorsResources: t.field({
    type: AuthorsPageType,
    description: 'Resources of several authors (comma-separated pids), grouped by author.',
    authScopes: { public: true },
    errors: { types: [InvalidInputError] },
    args: {
      pids: t.arg.string({ description: 'Comma-separated pids of the authors.', required: false }),
      skip: t.arg.int({ description: 'Offset (default 0).', required: false }),
      limit: t.arg.int({ required: false, description: 'At most `listeMax` (the default).' }),
    },
    resolve: (_root, args, context, info) =>
      authorsResources(
        context,
        args.pids,
        args.skip,
        args.limit,
        documentPartsFor(info, ['authors', 'resources']),
      ),
  }),
}));

// Cursor pages of the same search.
builder.queryFields((t) => ({
  resourceConnection: t.connection(
    {
      type: ResourceType,
      description:
        'Relay cursor pages over the same search as searchResources (filters, order, visibility); full-text words filter without ranking.',
      authScopes: { public: true },
      args: searchArgs(t),
      resolve: async (_root, args, context, info) => {
        const prepared = await connectionSearch(context, args);
        const connection = await resolveCursorConnection<Promise<ResourceDocument[]>>(
          { args, toCursor: (resource) => String(resource.oid), defaultSize: 25, maxSize: 500 },
          ({ before, after, limit, inverted }) =>
            searchPageAfter(
              context,
              prepared,
              { after: cursorOid(inverted ? before : after), limit, inverted },
              documentPartsFor(info, ['edges', 'node']),
            ),
        );
        // Counted only when asked for.
        return Object.assign(connection, { totalCount: () => countResources(withWords(prepared)) });
      },
    },
    {
      fields: (connection) => ({
        totalCount: connection.int({
          resolve: (parent) => (parent as unknown as { totalCount: () => Promise<number> }).totalCount(),
        }),
      }),
    },
  ),
}));

builder.queryFields((t) => ({
  autocomplete: t.field({
    type: [SearchFilterType],
    description:
      'Vocabulary values (types, categories, levels, relation types, languages, restrictions) matching a prefix.',
    authScopes: { public: true },
    errors: { types: [InvalidInputError] },
    args: { pattern: t.arg.string({ description: 'The start of a value or label.', required: true }) },
    resolve: (_root, args) => autocomplete(args.pattern),
  }),
}));
