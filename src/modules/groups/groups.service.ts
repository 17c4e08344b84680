/**
 * Group operations. Names are unique after normalisation: the unique index on `nomKey` decides,
 * so concurrent creations of equivalent names end with one group and clean "exists" errors.
 * Memberships are join rows keyed by group oid, so a rename or a deletion is visible everywhere at
 * once (persons' lists, resources' groups) without rewriting anything else.
 */
import type { Viewer } from '../../auth/viewer.ts';
import { db, type Prisma, type Transaction } from '../../db/client.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import { deniedError, ForbiddenError } from '../../errors.ts';
import { normaliseForComparison } from '../../lib/text.ts';
import {
  type AuditActor,
  actorOf,
  auditEntryData,
  changedFields,
  recordAudit,
  stateAs,
} from '../audit/audit.service.ts';
import { nameDesignates } from '../persons/persons.service.ts';
import {
  GroupNameTakenError,
  GroupNotFoundError,
  InvalidGroupNameError,
  ManagerNotFoundError,
  NotInGroupError,
} from './groups.errors.ts';
import { canCreateGroup, canFollowGroup, canJoinGroup, canManageGroup } from './groups.policy.ts';

export const MAX_GROUP_NAME_LENGTH = 200;

/** What plugin-prisma planned for the requested group fields. */
export type GroupQuery = Pick<Prisma.GroupFindManyArgs, 'select' | 'include'>;

export const groupNameKey = normaliseForComparison;

/** The trimmed name and its key, or an InvalidGroupNameError. */
export function checkGroupName(nom: string | null | undefined): { nom: string; nomKey: string } {
  const trimmed = nom?.trim() ?? '';
  if (!trimmed) throw new InvalidGroupNameError('Impossible de créer un groupe sans nom');
  if (trimmed.length > MAX_GROUP_NAME_LENGTH) {
    throw new InvalidGroupNameError(
      `Le nom d’un groupe ne peut dépasser ${MAX_GROUP_NAME_LENGTH} caractères`,
    );
  }
  const nomKey = groupNameKey(trimmed);
  if (!nomKey)
    throw new InvalidGroupNameError(
      `Nom de groupe invalide : ${trimmed} (il faut au moins une lettre ou un chiffre)`,
    );
  return { nom: trimmed, nomKey };
}

function requirePerson(viewer: Viewer) {
  if (viewer.person) return viewer.person;
  throw deniedError(viewer);
}

export async function findGroup(oid: number, query: GroupQuery = {}) {
  const group = await db.group.findUnique({ ...query, where: { oid } });
  if (!group) throw new GroupNotFoundError(oid);
  return group;
}

/** By name, equivalent spellings included (`Maths 6e` finds `maths-6E`). */
export async function findGroupByName(nom: string, query: GroupQuery = {}) {
  const group = await db.group.findUnique({ ...query, where: { nomKey: groupNameKey(nom) } });
  if (!group) throw new GroupNotFoundError(nom);
  return group;
}

/** The group by name with the caller's relations to it, for the membership transitions. */
async function loadForCaller(nom: string, personOid: number) {
  const group = await db.group.findUnique({
    where: { nomKey: groupNameKey(nom) },
    include: {
      managers: { where: { personOid }, select: { personOid: true } },
      members: { where: { personOid }, select: { personOid: true } },
      followers: { where: { personOid }, select: { personOid: true } },
    },
  });
  if (!group) throw new GroupNotFoundError(nom);
  return {
    group,
    state: {
      ouvert: group.ouvert,
      public: group.public,
      isManager: group.managers.length > 0,
      isMember: group.members.length > 0,
      isFollower: group.followers.length > 0,
    },
  };
}

export interface SaveGroupInput {
  oid?: number | null;
  nom?: string | null;
  description?: string | null;
  ouvert?: boolean | null;
  public?: boolean | null;
  newGestionnairePid?: string | null;
  newGestionnaireNom?: string | null;
}

/** The person named by `newGestionnairePid` + `newGestionnaireNom`, or undefined when both are empty. */
async function newManager(input: SaveGroupInput) {
  const pid = input.newGestionnairePid?.trim();
  const nom = input.newGestionnaireNom?.trim();
  if (!pid && !nom) return undefined;
  if (!pid || !nom) throw new ManagerNotFoundError('Il faut le pid et le nom du nouveau gestionnaire');
  const person = await db.person.findUnique({
    where: { pid },
    select: { oid: true, nom: true, prenom: true },
  });
  if (!person || !nameDesignates(person, nom)) {
    throw new ManagerNotFoundError(`Aucune personne avec le pid ${pid} et le nom ${nom}`);
  }
  return person;
}

/** Adds a manager at the end; false when the person already was one. */
async function appendManager(tx: Transaction, groupOid: number, personOid: number): Promise<boolean> {
  const existing = await tx.groupManager.findMany({
    where: { groupOid },
    select: { personOid: true, position: true },
  });
  if (existing.some((m) => m.personOid === personOid)) return false;
  const position = Math.max(-1, ...existing.map((m) => m.position)) + 1;
  await tx.groupManager.create({ data: { groupOid, personOid, position } });
  return true;
}

/** The audited fields of a group. */
const auditedGroup = (group: { nom: string; description: string; ouvert: boolean; public: boolean }) => ({
  nom: group.nom,
  description: group.description,
  ouvert: group.ouvert,
  public: group.public,
});

/** Optional flags and description: written only when given. */
function optionalFields(input: SaveGroupInput) {
  return {
    ...(input.description != null ? { description: input.description } : {}),
    ...(input.ouvert != null ? { ouvert: input.ouvert } : {}),
    ...(input.public != null ? { public: input.public } : {}),
  };
}

/** Creates a group: the creator becomes its sole manager, a member and a follower. */
export async function createGroup(
  viewer: Viewer,
  input: SaveGroupInput,
  actor: AuditActor = actorOf(viewer),
) {
  const creator = requirePerson(viewer);
  if (!canCreateGroup(viewer)) throw new ForbiddenError();
  const { nom, nomKey } = checkGroupName(input.nom);
  const manager = await newManager(input);
  try {
    return await db.$transaction(async (tx) => {
      const group = await tx.group.create({
        data: {
          nom,
          nomKey,
          ...optionalFields(input),
          managers: { create: { personOid: creator.oid, position: 0 } },
          members: { create: { personOid: creator.oid } },
          followers: { create: { personOid: creator.oid } },
        },
      });
      if (manager) await appendManager(tx, group.oid, manager.oid);
      await recordAudit(tx, actor, {
        action: 'created',
        entityKind: 'group',
        entityId: group.oid,
        changes: stateAs('after', {
          ...auditedGroup(group),
          gestionnaires: [creator.oid, ...(manager && manager.oid !== creator.oid ? [manager.oid] : [])],
        }),
      });
      return group;
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw new GroupNameTakenError(nom);
    throw error;
  }
}

/** Updates a group (its managers only): flags, description, rename, one more manager. */
export async function updateGroup(
  viewer: Viewer,
  oid: number,
  input: SaveGroupInput,
  actor: AuditActor = actorOf(viewer),
) {
  requirePerson(viewer);
  const group = await db.group.findUnique({
    where: { oid },
    include: { managers: { where: { personOid: viewer.person?.oid ?? -1 }, select: { personOid: true } } },
  });
  if (!group) throw new GroupNotFoundError(oid);
  if (!canManageGroup(viewer, { isManager: group.managers.length > 0 })) throw new ForbiddenError();
  const rename = input.nom != null && input.nom.trim() !== group.nom ? checkGroupName(input.nom) : undefined;
  const manager = await newManager(input);
  try {
    return await db.$transaction(async (tx) => {
      const updated = await tx.group.update({
        where: { oid },
        data: { ...optionalFields(input), ...rename },
      });
      const changes = changedFields(auditedGroup(group), auditedGroup(updated));
      if (manager && (await appendManager(tx, oid, manager.oid))) {
        changes.gestionnaireAjoute = { before: null, after: manager.oid };
      }
      if (Object.keys(changes).length > 0) {
        await recordAudit(tx, actor, { action: 'updated', entityKind: 'group', entityId: oid, changes });
      }
      return updated;
    });
  } catch (error) {
    if (isUniqueViolation(error) && rename) throw new GroupNameTakenError(rename.nom);
    throw error;
  }
}

/** `POST /api/groupe`: an update when `oid` is given, a creation otherwise. */
export function saveGroup(viewer: Viewer, input: SaveGroupInput, actor: AuditActor = actorOf(viewer)) {
  return input.oid != null ? updateGroup(viewer, input.oid, input, actor) : createGroup(viewer, input, actor);
}

/** `ajouter`: a closed, public group from its name alone. */
export function createGroupFromName(viewer: Viewer, nom: string, actor: AuditActor = actorOf(viewer)) {
  return createGroup(viewer, { nom, ouvert: false, public: true }, actor);
}

/** Joins (idempotent) when the group is open, or the caller is already a member or a manager. */
export async function joinGroup(viewer: Viewer, nom: string) {
  const person = requirePerson(viewer);
  const { group, state } = await loadForCaller(nom, person.oid);
  if (!canJoinGroup(state)) throw new ForbiddenError(`Le groupe ${group.nom} n’est pas ouvert`);
  if (!state.isMember)
    await ignoreDuplicate(db.groupMember.create({ data: { groupOid: group.oid, personOid: person.oid } }));
  return group;
}

/** Follows (idempotent) when the group is public or the caller manages it. */
export async function followGroup(viewer: Viewer, nom: string) {
  const person = requirePerson(viewer);
  const { group, state } = await loadForCaller(nom, person.oid);
  if (!canFollowGroup(state)) throw new ForbiddenError(`Le groupe ${group.nom} n’est pas public`);
  if (!state.isFollower) {
    await ignoreDuplicate(db.groupFollower.create({ data: { groupOid: group.oid, personOid: person.oid } }));
  }
  return group;
}

/** Leaves the members; a manager who quits stays a manager, and following is untouched. */
export async function quitGroup(viewer: Viewer, nom: string) {
  const person = requirePerson(viewer);
  const { group } = await loadForCaller(nom, person.oid);
  const { count } = await db.groupMember.deleteMany({
    where: { groupOid: group.oid, personOid: person.oid },
  });
  if (count === 0) throw new NotInGroupError(group.nom);
  return group;
}

/** Stops following; membership is untouched. */
export async function ignoreGroup(viewer: Viewer, nom: string) {
  const person = requirePerson(viewer);
  const { group } = await loadForCaller(nom, person.oid);
  const { count } = await db.groupFollower.deleteMany({
    where: { groupOid: group.oid, personOid: person.oid },
  });
  if (count === 0) throw new NotInGroupError(group.nom);
  return group;
}

/** Deletes a group (its managers only); memberships and resources' group links go with it. */
export async function deleteGroup(viewer: Viewer, nom: string, actor: AuditActor = actorOf(viewer)) {
  const person = requirePerson(viewer);
  const { group, state } = await loadForCaller(nom, person.oid);
  if (!canManageGroup(viewer, state)) throw new ForbiddenError();
  await db.$transaction([
    db.group.delete({ where: { oid: group.oid } }),
    db.auditEntry.create({
      data: auditEntryData(actor, {
        action: 'deleted',
        entityKind: 'group',
        entityId: group.oid,
        changes: stateAs('before', auditedGroup(group)),
      }),
    }),
  ]);
  return group;
}

/** A concurrent identical insert already did the work: idempotent operations ignore it. */
async function ignoreDuplicate(write: Promise<unknown>) {
  try {
    await write;
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
  }
}

export interface GroupRelation<G> {
  group: G;
  manager: boolean;
  member: boolean;
  follower: boolean;
}

/** Every group the caller manages, belongs to or follows, with those three facts; by name. */
export async function viewerGroups<Q extends GroupQuery>(viewer: Viewer, query: Q) {
  const person = requirePerson(viewer);
  const where = { where: { personOid: person.oid }, select: { groupOid: true } };
  const [managed, member, followed] = await Promise.all([
    db.groupManager.findMany(where),
    db.groupMember.findMany(where),
    db.groupFollower.findMany(where),
  ]);
  const sets = [managed, member, followed].map((rows) => new Set(rows.map((r) => r.groupOid)));
  const oids = [...new Set([...sets[0]!, ...sets[1]!, ...sets[2]!])];
  const groups = await db.group.findMany({
    ...query,
    where: { oid: { in: oids } },
    orderBy: { nomKey: 'asc' },
  });
  return groups.map(
    (group): GroupRelation<(typeof groups)[number]> => ({
      group,
      manager: sets[0]!.has(group.oid),
      member: sets[1]!.has(group.oid),
      follower: sets[2]!.has(group.oid),
    }),
  );
}

export function listGroups(filter: 'ouvert' | 'public', query: GroupQuery) {
  return db.group.findMany({ ...query, where: { [filter]: true }, orderBy: { nomKey: 'asc' } });
}
