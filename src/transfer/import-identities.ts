/**
 * Identities between the file and this database, and the references that go through them. A
 * person is known by its pid, a group by its name's key, a resource by its oid; the file's own oids
 * of persons and groups are kept only when free here. References of a record (authors, groups,
 * managers, related resources) name records of the file or rows of this database; a reference that
 * names nothing is dropped and reported, except a rid, which is kept as the file gives it.
 */
import { db } from '../db/client.ts';
import { groupNameKey } from '../modules/groups/groups.service.ts';
import {
  type FullResource,
  localOid,
  type ResourceLinks,
  ridOf,
} from '../modules/resources/resources.repository.ts';
import { type Candidate, localReferences } from './import-records.ts';

/**
 * What the run has learnt of identities so far. In a dry run, a record that would get a fresh oid
 * here maps to -1: it exists for the comparison, but nothing can refer to it.
 */
export interface Identities {
  /** pid → oid in this database (or, in a dry run, the oid it would get). */
  readonly personOids: Map<string, number>;
  /** The file's person oids → pid (group managers are person oids of the exporting service). */
  readonly filePersonPids: Map<number, string>;
  /** Normalised group name → oid here. */
  readonly groupOids: Map<string, number>;
  /** Oids of the file's resources: a reference to one of them is not dangling. */
  readonly fileResourceOids: Set<number>;
}

/** A resource's origin pair as one key: (origine, idOrigine) is unique, like the oid. */
export const originKey = (origine: string, idOrigine: string) => `${origine}\u0000${idOrigine}`;

export function noIdentities(): Identities {
  return {
    personOids: new Map(),
    filePersonPids: new Map(),
    groupOids: new Map(),
    fileResourceOids: new Set(),
  };
}

/** A manager given as a person oid of the file: its pid, then its oid here; else an oid here. */
export async function managerOid(ids: Identities, fileOid: number): Promise<number | undefined> {
  const pid = ids.filePersonPids.get(fileOid);
  if (pid !== undefined) {
    const oid = ids.personOids.get(pid);
    return oid === -1 ? undefined : oid;
  }
  const person = await db.person.findUnique({ where: { oid: fileOid }, select: { oid: true } });
  return person?.oid;
}

/** Group oids of names, looking up names the file did not define; unknown names reported. */
export async function resolveGroups(
  ids: Identities,
  names: string[],
  report: (nom: string) => void,
): Promise<number[]> {
  const missing = names.map(groupNameKey).filter((key) => !ids.groupOids.has(key));
  if (missing.length > 0) {
    const rows = await db.group.findMany({
      where: { nomKey: { in: missing } },
      select: { oid: true, nomKey: true },
    });
    for (const row of rows) ids.groupOids.set(row.nomKey, row.oid);
  }
  const oids: number[] = [];
  for (const nom of names) {
    const oid = ids.groupOids.get(groupNameKey(nom));
    if (oid === undefined || oid === -1) {
      if (oid === undefined) report(nom);
    } else if (!oids.includes(oid)) oids.push(oid);
  }
  return oids;
}

/** Fills `personOids` with the batch's pids that the file did not define but the database holds. */
export async function resolvePersons(ids: Identities, candidates: Candidate[]): Promise<void> {
  const pids = new Set<string>();
  for (const { fields } of candidates) {
    for (const pid of [
      ...(fields.authors ?? []),
      ...(fields.contributors ?? []),
      ...(fields.auteursParents ?? []),
    ]) {
      if (!ids.personOids.has(pid)) pids.add(pid);
    }
  }
  if (pids.size === 0) return;
  const rows = await db.person.findMany({
    where: { pid: { in: [...pids] } },
    select: { oid: true, pid: true },
  });
  for (const row of rows) ids.personOids.set(row.pid, row.oid);
}

/** Local oids the batch refers to (relations, aliasOf, tree children) outside the file that exist here. */
export async function knownLocalOids(
  ids: Identities,
  baseId: string,
  candidates: Candidate[],
): Promise<Set<number>> {
  const referred = new Set<number>();
  for (const { fields } of candidates) {
    for (const rid of localReferences(fields)) {
      const oid = localOid(baseId, rid);
      if (oid !== undefined && !ids.fileResourceOids.has(oid)) referred.add(oid);
    }
  }
  const known = new Set<number>();
  if (referred.size > 0) {
    const rows = await db.resource.findMany({
      where: { oid: { in: [...referred] } },
      select: { oid: true },
    });
    for (const row of rows) known.add(row.oid);
  }
  return known;
}

/** Why the record cannot take its place here, if it cannot. */
export function conflictOf(
  candidate: Candidate,
  current: FullResource | undefined,
  pairOwner: ReadonlyMap<string, number>,
  keyOwner: ReadonlyMap<string, number>,
): string | undefined {
  const { oid, origine, idOrigine } = candidate;
  if (current && (current.origine !== origine || current.idOrigine !== idOrigine)) {
    return `oid ${oid} is another resource here (${current.origine}/${current.idOrigine})`;
  }
  const pairAt = pairOwner.get(originKey(origine, idOrigine));
  if (pairAt !== undefined && pairAt !== oid) {
    return `${origine}/${idOrigine} is resource ${pairAt} here`;
  }
  const key = candidate.managed.cle;
  const keyAt = key ? keyOwner.get(key) : undefined;
  if (keyAt !== undefined && keyAt !== oid) return `the read key is already that of resource ${keyAt}`;
  return undefined;
}

/**
 * A resource's links as oids here: persons and groups that name nothing are dropped and told to
 * `warn`, a relation with itself too; a rid that names nothing, in the file or here, is kept and
 * told. `known` holds the oids outside the file that exist here (knownLocalOids).
 */
export async function resolveLinks(
  ids: Identities,
  baseId: string,
  { oid, fields }: Candidate,
  known: ReadonlySet<number>,
  warn: (message: string) => void,
): Promise<ResourceLinks> {
  const persons = (pids: string[] | undefined, label: string) =>
    (pids ?? []).flatMap((pid) => {
      const personOid = ids.personOids.get(pid);
      if (personOid === undefined) warn(`${label} ${pid} unknown, ignored`);
      return personOid === undefined || personOid === -1 ? [] : [personOid];
    });
  const groups = (names: string[] | undefined) =>
    resolveGroups(ids, names ?? [], (nom) => warn(`group ${nom} does not exist, ignored`));
  const ownRid = ridOf(baseId, oid);
  const relations = (fields.relations ?? []).filter(({ rid: target }) => {
    if (target !== ownRid) return true;
    warn('relation with itself ignored');
    return false;
  });
  for (const rid of localReferences(fields)) {
    const target = localOid(baseId, rid);
    if (target === undefined || !(ids.fileResourceOids.has(target) || known.has(target))) {
      warn(`reference to ${rid}, in neither the file nor here (kept)`);
    }
  }
  return {
    authorOids: persons(fields.authors, 'author'),
    contributorOids: persons(fields.contributors, 'contributor'),
    parentAuthorOids: persons(fields.auteursParents, 'parent author'),
    readerGroupOids: await groups(fields.readerGroups),
    authorGroupOids: await groups(fields.authorGroups),
    categories: fields.categories ?? [],
    niveaux: fields.niveaux ?? [],
    typePedagogiques: fields.typePedagogiques ?? [],
    typeDocumentaires: fields.typeDocumentaires ?? [],
    relations,
  };
}
