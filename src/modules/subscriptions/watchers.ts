/**
 * What each subscription follows, read for its caller: one resource, the caller's groups, the
 * members of a search. Every check reads afresh with the caller's current rights (the caller is
 * resolved again: roles and groups may have changed since the subscription began), and each watcher
 * keeps only what it needs to tell what differs from the last event it sent.
 */
import type { Store } from 'express-session';
import { resolveViewer } from '../../auth/authn.ts';
import type { Context } from '../../context.ts';
import { db } from '../../db/client.ts';
import { AuthenticationRequiredError, ForbiddenError } from '../../errors.ts';
import type { Watcher } from '../../lib/subscription-hub.ts';
import { countResources } from '../../read-model/counts.ts';
import type { ResourceDocument } from '../../read-model/documents.ts';
import { type GroupRelation, viewerGroups } from '../groups/groups.service.ts';
import { type FilterInput, FULLTEXT } from '../lists/filters.ts';
import { prepareSearch, withWords } from '../lists/lists.service.ts';
import { ResourceNotFoundError } from '../resources/resources.errors.ts';
import { readResource } from '../resources/resources.service.ts';

type StreamRequest = { sessionID?: string; sessionStore?: Store };

/**
 * The person the caller's session holds in the store now: undefined once it logged out (elsewhere:
 * this request's session object still says who logged in) or expired. Null: no session to check.
 */
function storedPersonOid(context: Context): Promise<number | undefined> | null {
  const req = (context as Context & { req?: StreamRequest }).req;
  const store = req?.sessionStore;
  const id = req?.sessionID;
  if (!store || !id || context.session.personOid() === undefined) return null;
  return new Promise((resolve, reject) =>
    store.get(id, (error, data) => (error ? reject(error) : resolve(data?.personOid))),
  );
}

/**
 * The caller as they are now, for the check and for the fields of the event it sends: a subscription's
 * events are resolved with the context it began with, so that context is brought up to date (roles,
 * groups, and whether the session is still open).
 */
export async function refreshCaller(context: Context): Promise<void> {
  const stored = storedPersonOid(context);
  const loggedOut = stored !== null && (await stored) !== context.session.personOid();
  context.viewer = loggedOut
    ? await resolveViewer(
        context.credentials.apiToken,
        { ...context.session, personOid: () => undefined, labBaseId: () => null },
        context.config,
      )
    : await context.identify();
  context.cache.clear();
}

/** Who a subscription counts against (see SubscriptionHub limits). */
export function callerKey(context: Context): string {
  if (context.viewer.person) return `person:${context.viewer.person.oid}`;
  if (context.credentials.apiToken) return 'token';
  return `address:${context.client.address}`;
}

// ---------------------------------------------------------------------------------------------
// One resource

export type ResourceChangeKind = 'CURRENT' | 'UPDATED' | 'REMOVED' | 'FORBIDDEN';

export interface ResourceChange {
  kind: ResourceChangeKind;
  oid: number;
  /** Only when the caller may read it (CURRENT, UPDATED). */
  resource: ResourceDocument | null;
}

/** A document as a comparable string (its related targets are a Map). */
function fingerprint(document: ResourceDocument): string {
  return JSON.stringify(document, (_key, value) => (value instanceof Map ? [...value.entries()] : value));
}

/**
 * Follows resource `oid` for the caller. The first read is the query `resource`'s, with its errors
 * (not found, forbidden): thrown at subscribe time. Afterwards a resource the caller can no longer
 * read is told as REMOVED (deleted, or hidden from an anonymous caller, as the query answers not
 * found) or FORBIDDEN (it exists, the caller may not read it), without its content.
 */
export async function resourceWatcher(
  context: Context,
  oid: number,
): Promise<Watcher<ResourceChange, ResourceChange>> {
  const read = () => readResource(context, { where: { oid }, label: String(oid), byKey: false });
  const document = await read();
  let last = fingerprint(document);
  return {
    first: { kind: 'CURRENT', oid, resource: document },
    read: async () => {
      await refreshCaller(context);
      try {
        return { kind: 'UPDATED', oid, resource: await read() };
      } catch (error) {
        if (error instanceof ResourceNotFoundError) return { kind: 'REMOVED', oid, resource: null };
        if (error instanceof ForbiddenError || error instanceof AuthenticationRequiredError)
          return { kind: 'FORBIDDEN', oid, resource: null };
        throw error;
      }
    },
    tell: (state) => {
      const seen = state.resource ? fingerprint(state.resource) : state.kind;
      if (seen === last) return undefined;
      last = seen;
      return state;
    },
  };
}

// ---------------------------------------------------------------------------------------------
// The caller's groups

const groupSelection = {
  select: {
    oid: true,
    nom: true,
    description: true,
    ouvert: true,
    public: true,
    createdAt: true,
    managers: {
      select: { personOid: true, person: { select: { nom: true, prenom: true } } },
      orderBy: { position: 'asc' },
    },
  },
} as const;

export interface GroupsChange {
  groups: GroupRelation<Awaited<ReturnType<typeof readGroups>>[number]['group']>[];
}

function readGroups(context: Context) {
  return context.viewer.person ? viewerGroups(context.viewer, groupSelection) : Promise.resolve([]);
}

/** Follows the groups the caller manages, belongs to or follows, and those groups' own fields. */
export async function groupsWatcher(
  context: Context,
): Promise<Watcher<GroupsChange['groups'], GroupsChange>> {
  const groups = await readGroups(context);
  let last = JSON.stringify(groups);
  return {
    first: { groups },
    read: async () => {
      await refreshCaller(context);
      return readGroups(context);
    },
    tell: (current) => {
      const seen = JSON.stringify(current);
      if (seen === last) return undefined;
      last = seen;
      return { groups: current };
    },
  };
}

// ---------------------------------------------------------------------------------------------
// The members of a search

export interface SearchChange {
  /** Resources matching, among those the caller may read. */
  total: number;
  added: number[];
  changed: number[];
  removed: number[];
  /** More resources match than are compared: added, changed and removed concern the first ones by oid. */
  partial: boolean;
}

interface SearchState {
  total: number;
  /** Version stamps of the first matching resources, by oid. */
  stamps: Map<number, string>;
  partial: boolean;
}

export interface SearchFilters {
  filters: FilterInput[];
  fulltext?: string | null;
}

/**
 * Follows the resources matching `filters` that the caller may read: each check runs the search's
 * count and its first `limit` oids with their version stamps (two statements), and tells the
 * difference. A resource saved again (dateMiseAJour, version or inc moved) is `changed`; one that no
 * longer matches, or that the caller may no longer read, is `removed`.
 */
export async function searchWatcher(
  context: Context,
  search: SearchFilters,
  limit: number,
): Promise<Watcher<SearchState, SearchChange>> {
  const filters = search.fulltext?.trim()
    ? [...search.filters, { index: FULLTEXT, values: [search.fulltext] }]
    : search.filters;
  const read = async (): Promise<SearchState> => {
    const where = withWords(await prepareSearch(context, { filters }));
    const [total, rows] = await Promise.all([
      countResources(where),
      db.resource.findMany({
        where,
        orderBy: { oid: 'asc' },
        take: limit,
        select: { oid: true, version: true, inc: true, dateMiseAJour: true },
      }),
    ]);
    const stamps = new Map(
      rows.map((row) => [row.oid, `${row.version}:${row.inc}:${row.dateMiseAJour.getTime()}`]),
    );
    return { total, stamps, partial: rows.length < total };
  };
  let last = await read();
  return {
    first: {
      total: last.total,
      added: [...last.stamps.keys()],
      changed: [],
      removed: [],
      partial: last.partial,
    },
    read: async () => {
      await refreshCaller(context);
      return read();
    },
    tell: (current) => {
      const added: number[] = [];
      const changed: number[] = [];
      for (const [oid, stamp] of current.stamps) {
        const before = last.stamps.get(oid);
        if (before === undefined) added.push(oid);
        else if (before !== stamp) changed.push(oid);
      }
      const removed = [...last.stamps.keys()].filter((oid) => !current.stamps.has(oid));
      const same = added.length + changed.length + removed.length === 0 && current.total === last.total;
      last = current;
      if (same) return undefined;
      return { total: current.total, added, changed, removed, partial: current.partial };
    },
  };
}
