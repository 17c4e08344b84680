/**
 * Rights on resources (compatibility notes §4), as pure functions of what the database holds about
 * a resource and who the viewer is. Lists and single reads use the same functions; list
 * visibility will be the same rules written as a database filter.
 */
import { hasPermission, type Viewer } from '../../auth/viewer.ts';
import type { Prisma } from '../../db/client.ts';
import type { RightsFacts } from '../../read-model/documents.ts';
import { EDITABLE_TYPES, Restriction } from './vocabulary.ts';

/** The viewer plus the groups they belong to or manage (loaded once per request). */
export interface RightsSubject {
  viewer: Viewer;
  groupOids: ReadonlySet<number>;
  /** The caller presented the resource's read key. */
  hasReadKey?: boolean;
}

export const isPublicAndPublished = (facts: Pick<RightsFacts, 'publie' | 'restriction'>) =>
  facts.publie && facts.restriction === Restriction.none;

/**
 * Harvestable (OAI-PMH): what anonymous callers read and searches list, and not an alias, which
 * stands for a resource of another repository that aggregators harvest from there (listed here too,
 * one resource would be two records). The harvest_entries migration's triggers write the same rule
 * in SQL to keep the entries; the harvest module checks every record it gives against this one.
 */
export const isHarvestable = (
  facts: Pick<RightsFacts, 'publie' | 'restriction' | 'aliasOf'> & { indexable: boolean },
) => isPublicAndPublished(facts) && facts.indexable && facts.aliasOf === null;

const intersects = (oids: readonly number[], set: ReadonlySet<number>) => oids.some((oid) => set.has(oid));

function isAuthorOrContributor(facts: RightsFacts, personOid: number): boolean {
  return facts.authorOids.includes(personOid) || facts.contributorOids.includes(personOid);
}

/** An alias of a type this repository cannot edit is never updated (it follows its source). */
export function isFrozenAlias(facts: Pick<RightsFacts, 'aliasOf' | 'type'>): boolean {
  return facts.aliasOf !== null && !EDITABLE_TYPES.has(facts.type);
}

/** Update: all rights, authors, contributors, members of an author group; never a frozen alias. */
export function canUpdate(subject: RightsSubject, facts: RightsFacts): boolean {
  if (isFrozenAlias(facts)) return false;
  const { viewer, groupOids } = subject;
  if (viewer.allRights) return true;
  if (!viewer.person) return false;
  return isAuthorOrContributor(facts, viewer.person.oid) || intersects(facts.authorGroupOids, groupOids);
}

/** Forking an alias (turning it into a real copy): whoever could update it if it were not an alias. */
export function canFork(subject: RightsSubject, facts: RightsFacts): boolean {
  return facts.aliasOf !== null && canUpdate(subject, { ...facts, aliasOf: null });
}

/**
 * Read: anyone when public and published; all rights; otherwise a person who may update it, or
 * (published only) who holds `correction` for restriction 1, belongs to one of its groups for
 * restriction 2. A read key opens it to any authenticated caller.
 */
export function canRead(subject: RightsSubject, facts: RightsFacts): boolean {
  if (isPublicAndPublished(facts)) return true;
  const { viewer, groupOids } = subject;
  if (viewer.allRights) return true;
  if (!viewer.person) return false;
  if (subject.hasReadKey) return true;
  if (isAuthorOrContributor(facts, viewer.person.oid) || intersects(facts.authorGroupOids, groupOids))
    return true;
  if (!facts.publie) return false;
  switch (facts.restriction) {
    case Restriction.correction:
      return hasPermission(viewer, 'correction');
    case Restriction.group:
      return intersects(facts.readerGroupOids, groupOids);
    default:
      return false;
  }
}

/**
 * Whether this viewer's rights on a resource depend on its authors, contributors and groups. They
 * do not for anonymous callers (public and published, nothing more) nor for all rights (everything
 * but a frozen alias's update): lists leave those relations out of such callers' documents.
 */
export function rightsNeedRelations(viewer: Viewer): boolean {
  return viewer.person !== null && !viewer.allRights;
}

/**
 * `canRead` as a database filter (without read keys, which open one resource at a time): lists
 * and batch look-ups filter in the query, so counts and pages stay right. A test checks that both
 * forms agree for every kind of caller and restriction.
 */
export function readableWhere(subject: RightsSubject): Prisma.ResourceWhereInput {
  const { viewer } = subject;
  const publicAndPublished: Prisma.ResourceWhereInput = { publie: true, restriction: Restriction.none };
  if (viewer.allRights) return {};
  if (!viewer.person) return publicAndPublished;
  const personOid = viewer.person.oid;
  const groupOids = [...subject.groupOids];
  const publishedFor: Prisma.ResourceWhereInput[] = [
    { restriction: Restriction.group, readerGroups: { some: { groupOid: { in: groupOids } } } },
  ];
  if (hasPermission(viewer, 'correction')) publishedFor.push({ restriction: Restriction.correction });
  return {
    OR: [
      publicAndPublished,
      { authors: { some: { personOid } } },
      { contributors: { some: { personOid } } },
      { authorGroups: { some: { groupOid: { in: groupOids } } } },
      { publie: true, OR: publishedFor },
    ],
  };
}

/**
 * What searches list beyond rights (compatibility notes §4, "indexable"): a resource that is not
 * indexable (one replaced by another, still published because it is used) is left out of every
 * search, whoever searches, all rights included, except for its authors, who find all of their
 * own resources (their own list is a search on themselves as author). Reads by id, origin, rid or
 * key ignore it: `canRead` and `readableWhere` stay the rights alone.
 */
export function searchableWhere(viewer: Viewer): Prisma.ResourceWhereInput {
  const indexable: Prisma.ResourceWhereInput = { indexable: true };
  if (!viewer.person) return indexable;
  return { OR: [indexable, { authors: { some: { personOid: viewer.person.oid } } }] };
}

/** Delete: all rights, the generic `delete` permission, or the sole author when nobody contributes. */
export function canDelete(subject: RightsSubject, facts: RightsFacts): boolean {
  const { viewer } = subject;
  if (viewer.allRights || hasPermission(viewer, 'delete')) return true;
  if (!viewer.person) return false;
  return (
    facts.authorOids.length === 1 &&
    facts.authorOids[0] === viewer.person.oid &&
    facts.contributorOids.length === 0
  );
}

/** Create: a person with `create`, or all rights. */
export function canCreate(viewer: Viewer): boolean {
  return viewer.allRights || (viewer.person !== null && hasPermission(viewer, 'create'));
}

/** Changing authors or contributors: authors, all rights, or `updateAuteurs`. */
export function canChangeAuthors(subject: RightsSubject, facts: RightsFacts): boolean {
  const { viewer } = subject;
  if (viewer.allRights || hasPermission(viewer, 'updateAuteurs')) return true;
  return viewer.person !== null && facts.authorOids.includes(viewer.person.oid);
}

/** Changing the groups a resource is shared with: authors, all rights, or `updateGroupes`. */
export function canChangeGroups(subject: RightsSubject, facts: RightsFacts): boolean {
  const { viewer } = subject;
  if (viewer.allRights || hasPermission(viewer, 'updateGroupes')) return true;
  return viewer.person !== null && facts.authorOids.includes(viewer.person.oid);
}

/** The legacy rights string: R, then W, then D ('' when the resource cannot be read). */
export function rightsString(subject: RightsSubject, facts: RightsFacts): string {
  if (!canRead(subject, facts)) return '';
  return `R${canUpdate(subject, facts) ? 'W' : ''}${canDelete(subject, facts) ? 'D' : ''}`;
}
