/**
 * GraphQL subscriptions, served by Yoga over Server-Sent Events (`Accept: text/event-stream`, GET or
 * POST on /graphql). Each one sends the current state first, then what changed (see
 * src/lib/subscription-hub.ts for when checks run and watchers.ts for what they read). Rights are
 * those of the query each mirrors.
 */
import type { Context } from '../../context.ts';
import { builder } from '../../graphql/builder.ts';
import type { Watcher } from '../../lib/subscription-hub.ts';
import { GroupRelationType } from '../groups/groups.schema.ts';
import { ResourceType } from '../resources/resources.schema.ts';
import {
  callerKey,
  type GroupsChange,
  groupsWatcher,
  type ResourceChange,
  resourceWatcher,
  type SearchChange,
  searchWatcher,
} from './watchers.ts';

builder.subscriptionType({
  description:
    'Changes, as Server-Sent Events (`Accept: text/event-stream`). Each subscription sends the current state first.',
});

const ResourceChangeKindEnum = builder.enumType('ResourceChangeKind', {
  description: 'What happened to a followed resource, as the caller may see it.',
  values: {
    CURRENT: { description: 'The first event: the resource as it is when the subscription starts.' },
    UPDATED: { description: 'Changed, or readable again.' },
    REMOVED: { description: 'Deleted, or no longer visible to an anonymous caller (public and published).' },
    FORBIDDEN: { description: 'The caller may no longer read it (made private, left its group…).' },
  } as const,
});

const ResourceChangeType = builder.objectRef<ResourceChange>('ResourceChange').implement({
  description: 'A change of a followed resource; its content only while the caller may read it.',
  fields: (t) => ({
    kind: t.field({
      type: ResourceChangeKindEnum,
      description: 'What happened.',
      resolve: (change) => change.kind,
    }),
    oid: t.exposeInt('oid', { description: 'The followed resource.' }),
    resource: t.field({
      type: ResourceType,
      nullable: true,
      description: 'Null for REMOVED and FORBIDDEN.',
      resolve: (change) => change.resource,
    }),
  }),
});

const GroupsChangeType = builder.objectRef<GroupsChange>('MyGroupsChange').implement({
  description: 'The groups the caller manages, belongs to or follows, after a change of any of them.',
  fields: (t) => ({
    groups: t.field({
      type: [GroupRelationType],
      description: 'Every group of the caller, with how the caller relates to it (as `myGroups`).',
      resolve: (change) => change.groups,
    }),
  }),
});

const SearchChangeType = builder.objectRef<SearchChange>('SearchChange').implement({
  description:
    'A change among the resources matching a search that the caller may read (oids). The first event lists them all as added.',
  fields: (t) => ({
    total: t.exposeInt('total', {
      description: 'Resources matching, among those the caller may read and searches list (`indexable`).',
    }),
    added: t.exposeIntList('added', { description: 'Matching now, not before.' }),
    changed: t.exposeIntList('changed', { description: 'Still matching, saved since the last event.' }),
    removed: t.exposeIntList('removed', {
      description: 'No longer matching, deleted, or no longer readable by the caller.',
    }),
    partial: t.exposeBoolean('partial', {
      description:
        'More resources match than `subscriptions.maxSearchResources`: the lists concern the first ones by oid.',
    }),
  }),
});

const SearchChangeFilterType = builder.inputType('SearchChangeFilter', {
  description:
    'Resources whose `index` has one of `values` (written as text: `7`, `true`, `2024-01-31`); without `values`, those that have the index.',
  fields: (t) => ({
    index: t.string({ required: true, description: 'An index of `searchResources`.' }),
    values: t.stringList({ required: false, description: 'At most `input.maxFilterValues`.' }),
  }),
});

/** Opens a slot for the caller, runs the first read (whose errors reach the client), then streams. */
async function follow<S, T>(
  context: Context,
  start: () => Promise<Watcher<S, T>>,
): Promise<AsyncIterable<T>> {
  const hub = context.services.subscriptions;
  // Opened before the first read: a change during it is checked afterwards, never missed.
  const watch = hub.open(callerKey(context));
  try {
    return hub.stream(watch, await start());
  } catch (error) {
    watch.end();
    throw error;
  }
}

builder.subscriptionFields((t) => ({
  resourceChanged: t.field({
    type: ResourceChangeType,
    description:
      'Follows a resource: CURRENT first, then UPDATED, REMOVED or FORBIDDEN. Same rights as `resource`, checked again at every change.',
    authScopes: { public: true },
    args: { oid: t.arg.int({ required: true, description: 'The resource to follow.' }) },
    subscribe: (_root, args, context) => follow(context, () => resourceWatcher(context, args.oid)),
    resolve: (change) => change,
  }),
  myGroupsChanged: t.field({
    type: GroupsChangeType,
    description:
      'Follows the groups the caller manages, belongs to or follows: the list now, then again after each change of it.',
    authScopes: { person: true },
    subscribe: (_root, _args, context) => follow(context, () => groupsWatcher(context)),
    resolve: (change) => change,
  }),
  searchChanged: t.field({
    type: SearchChangeType,
    description:
      'Follows the resources matching filters (as `searchResources`) that the caller may read: all of them first, then what was added, changed or removed.',
    authScopes: { public: true },
    args: {
      filters: t.arg({
        type: [SearchChangeFilterType],
        required: false,
        description: 'Every filter must hold (none: every resource the caller may read).',
      }),
      fulltext: t.arg.string({
        required: false,
        description: 'Words searched in titre, resume and description.',
      }),
    },
    subscribe: (_root, args, context) =>
      follow(context, () =>
        searchWatcher(
          context,
          {
            filters: (args.filters ?? []).map((filter) => ({ index: filter.index, values: filter.values })),
            fulltext: args.fulltext,
          },
          context.config.subscriptions.maxSearchResources,
        ),
      ),
    resolve: (change) => change,
  }),
}));
