/** GraphQL: resource search (offset pages), the viewer's resources, authors' lists, autocomplete. */
import { queryFromInfo } from '@pothos/plugin-prisma';
import type { GraphQLResolveInfo } from 'graphql';
import { type Context, memo } from '../../context.ts';
import { db } from '../../db/client.ts';
import { AuthenticationRequiredError, ForbiddenError, InvalidInputError } from '../../errors.ts';
import { builder } from '../../graphql/builder.ts';
import { ResourceType } from '../resources/resources.schema.ts';
import type { ResourceQuery } from '../resources/resources.service.ts';
import { autocomplete, type SearchFilter } from './autocomplete.ts';
import {
  type AuthorList,
  type AuthorsPage,
  authorsResources,
  ordering,
  PERSONAL_LIST_DENIED,
  personalResources,
  prepareSearch,
  type SearchArgs,
  type SearchPage,
  searchResources,
  withWords,
} from './lists.service.ts';

const FilterInputType = builder.inputType('ResourceFilter', {
  description:
    'Resources whose `index` has one of `values`; without `values`, resources that have the index.',
  fields: (t) => ({
    index: t.string({ required: true }),
    values: t.field({ type: ['JSON'], required: false }),
  }),
});

const ResourcePageType = builder.objectRef<SearchPage>('ResourcePage').implement({
  fields: (t) => ({
    total: t.exposeInt('total', { description: 'Resources matching, among those the viewer may read.' }),
    start: t.exposeInt('start'),
    nb: t.exposeInt('nb', { description: 'Page size actually used (default and maximum applied).' }),
    orderBy: t.exposeString('orderBy', { nullable: true }),
    order: t.exposeString('order'),
    query: t.field({
      type: 'JSON',
      description: 'The filters applied, index → values.',
      resolve: (page) => page.query,
    }),
    warnings: t.exposeStringList('warnings'),
    items: t.field({ type: [ResourceType], resolve: (page) => page.items }),
  }),
});

const AuthorListType = builder.objectRef<AuthorList>('AuthorResources').implement({
  fields: (t) => ({
    pid: t.exposeString('pid'),
    label: t.exposeString('label', { description: '"Prénom Nom".' }),
    resources: t.field({ type: [ResourceType], resolve: (list) => list.resources }),
  }),
});

const AuthorsPageType = builder.objectRef<AuthorsPage>('AuthorsPage').implement({
  fields: (t) => ({
    total: t.exposeInt('total'),
    skip: t.exposeInt('skip'),
    limit: t.exposeInt('limit'),
    count: t.int({
      description: 'Distinct resources on this page.',
      resolve: (page) => new Set(page.authors.flatMap((a) => a.resources.map((r) => r.oid))).size,
    }),
    warnings: t.exposeStringList('warnings'),
    authors: t.field({ type: [AuthorListType], resolve: (page) => page.authors }),
  }),
});

const SearchFilterType = builder.objectRef<SearchFilter>('SearchFilter').implement({
  fields: (t) => ({
    index: t.exposeString('index'),
    value: t.field({ type: 'JSON', resolve: (filter) => filter.value }),
    label: t.exposeString('label'),
  }),
});

/** One preparation per request for the connection's page and its total (paging arguments aside). */
function connectionSearch(
  context: Context,
  args: { filters?: SearchArgs['filters']; params?: unknown; orderBy?: string | null; order?: string | null },
) {
  const search: SearchArgs = {
    filters: args.filters,
    params: args.params as SearchArgs['params'],
    orderBy: args.orderBy,
    order: args.order,
  };
  return memo(context, `lists:connection:${JSON.stringify(search)}`, () => prepareSearch(context, search));
}

const planned = (context: Context, info: GraphQLResolveInfo, path: string[]) =>
  queryFromInfo({ context, info, path }) as ResourceQuery;

builder.queryFields((t) => {
  const searchArgs = {
    filters: t.arg({ type: [FilterInputType], required: false }),
    params: t.arg({
      type: 'JSON',
      required: false,
      description: 'Legacy plain parameters: `{index: "v1,v2"}`.',
    }),
    orderBy: t.arg.string({ required: false, description: 'An index; ties are broken by oid.' }),
    order: t.arg.string({ required: false, description: '`desc` for descending.' }),
    start: t.arg.int({ required: false }),
    nb: t.arg.int({ required: false, description: 'Default `listeNbDefault`, at most `maxSql`.' }),
  };
  return {
    searchResources: t.field({
      type: ResourcePageType,
      description:
        'Resources the viewer may read, filtered, ordered and paged; `fulltext` ranks by relevance.',
      authScopes: { public: true },
      errors: { types: [InvalidInputError] },
      args: searchArgs,
      resolve: (_root, args, context, info) =>
        searchResources(
          context,
          { ...args, params: args.params as Record<string, unknown> },
          planned(context, info, ['items']),
        ),
    }),
    myResources: t.field({
      type: ResourcePageType,
      description: 'The viewer’s own resources (authored), with the same arguments as searchResources.',
      authScopes: { person: true },
      unauthorizedError: (_parent, _args, context) =>
        context.viewer.kind === 'anonymous'
          ? new AuthenticationRequiredError(PERSONAL_LIST_DENIED)
          : new ForbiddenError(),
      errors: { types: [InvalidInputError] },
      args: searchArgs,
      resolve: (_root, args, context, info) =>
        personalResources(
          context,
          { ...args, params: args.params as Record<string, unknown> },
          planned(context, info, ['items']),
        ),
    }),
    authorsResources: t.field({
      type: AuthorsPageType,
      description: 'Resources of several authors (comma-separated pids), grouped by author.',
      authScopes: { public: true },
      errors: { types: [InvalidInputError] },
      args: {
        pids: t.arg.string({ required: false }),
        skip: t.arg.int({ required: false }),
        limit: t.arg.int({ required: false, description: 'At most `listeMax` (the default).' }),
      },
      resolve: (_root, args, context, info) =>
        authorsResources(
          context,
          args.pids,
          args.skip,
          args.limit,
          planned(context, info, ['authors', 'resources']),
        ),
    }),
    resourceConnection: t.prismaConnection({
      type: 'Resource',
      cursor: 'oid',
      description:
        'Relay cursor pages over the same search as searchResources (filters, order, visibility); full-text words filter without ranking.',
      authScopes: { public: true },
      defaultSize: 25,
      maxSize: 500,
      args: {
        filters: searchArgs.filters,
        params: searchArgs.params,
        orderBy: searchArgs.orderBy,
        order: searchArgs.order,
      },
      resolve: async (query, _root, args, context) => {
        const prepared = await connectionSearch(context, args);
        return db.resource.findMany({ ...query, where: withWords(prepared), orderBy: ordering(prepared) });
      },
      totalCount: async (_connection, args, context) =>
        db.resource.count({ where: withWords(await connectionSearch(context, args)) }),
    }),
    autocomplete: t.field({
      type: [SearchFilterType],
      description:
        'Vocabulary values (types, categories, levels, relation types, languages, restrictions) matching a prefix.',
      authScopes: { public: true },
      errors: { types: [InvalidInputError] },
      args: { pattern: t.arg.string({ required: true }) },
      resolve: (_root, args) => autocomplete(args.pattern),
    }),
  };
});
