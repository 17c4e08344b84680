/**
 * The export of everything the service holds about one person (GDPR access and portability,
 * docs/privacy.md "Export"): one document, the same through GraphQL, REST and the command-line
 * tool. Read in one transaction (a snapshot on PostgreSQL; SQLite's read transaction sees one state
 * of the file), so no section contradicts another, with a constant number of statements whatever
 * the person authored: the person with their links (one statement per relation), one statement
 * finding the rows that name them in JSON and sessions (src/read-model/personal-data.ts), one per
 * kind of row found.
 */
import { createHash } from 'node:crypto';
import type { Config } from '../../config.ts';
import { db, type Prisma, snapshotTransactionOptions, type Transaction } from '../../db/client.ts';
import { NotFoundError } from '../../errors.ts';
import { roleSourceGrants } from '../../permissions.ts';
import { type NamingRow, namingRows } from '../../read-model/personal-data.ts';
import { ridOf } from '../resources/resources.repository.ts';

/** The document's format: its name and version, bumped when a field changes meaning or goes. */
export const PERSONAL_DATA_FORMAT = 'rrs-personal-data/1';

/** Long enough for a person with a large history, on a busy SQLite file. */
const EXPORT_TRANSACTION = { maxWait: 10_000, timeout: 60_000 };

const resourceSummary = { select: { oid: true, titre: true, type: true } } as const;
const groupSummary = { select: { oid: true, nom: true } } as const;

const personInclude = {
  roles: { orderBy: { role: 'asc' } },
  managedGroups: { include: { group: groupSummary }, orderBy: { groupOid: 'asc' } },
  memberGroups: { include: { group: groupSummary }, orderBy: { groupOid: 'asc' } },
  followedGroups: { include: { group: groupSummary }, orderBy: { groupOid: 'asc' } },
  authoredResources: { include: { resource: resourceSummary }, orderBy: { resourceOid: 'asc' } },
  contributions: { include: { resource: resourceSummary }, orderBy: { resourceOid: 'asc' } },
  parentAuthorships: { include: { resource: resourceSummary }, orderBy: { resourceOid: 'asc' } },
} satisfies Prisma.PersonInclude;

type LoadedPerson = Prisma.PersonGetPayload<{ include: typeof personInclude }>;

export interface ExportedRole {
  role: string;
  /** admin, lab or devLogin (src/permissions.ts RoleSource). */
  source: string;
  grantedAt: Date;
  /** Whether it grants anything now (the development login's roles do only while it is on). */
  active: boolean;
}

export interface ExportedGroup {
  oid: number;
  nom: string;
  /** When they joined or started following it; null for managers (not recorded). */
  since: Date | null;
  /** Their rank among the group's managers; null elsewhere. */
  position: number | null;
}

export interface ExportedResource {
  oid: number;
  rid: string;
  titre: string;
  type: string;
  /** Their rank in the resource's list (authors, contributors, parent authors); null for `mentioned`. */
  position: number | null;
}

export interface ExportedArchive {
  oid: number;
  resourceOid: number;
  rid: string;
  version: number;
  archivedAt: Date;
}

export interface ExportedSession {
  /** SHA-256 of the session id, in hex: tells sessions apart without giving the secret. */
  digest: string;
  expiresAt: Date;
  /** The lab they logged in through; null for the development login. */
  labBaseId: string | null;
}

export interface ExportedAuditEntry {
  id: number;
  at: Date;
  /** They made the change (actorOid or actorPid is theirs). */
  asActor: boolean;
  /** The change names them (their pid, e-mail or name, or their oid as a group manager). */
  asSubject: boolean;
  actorKind: string;
  actorPid: string | null;
  action: string;
  entityKind: string;
  entityId: number;
  changes: unknown;
}

export interface ExportedNotification {
  id: string;
  kind: string;
  peerBaseId: string;
  status: string;
  createdAt: Date;
  payload: unknown;
}

export interface PersonalDataExport {
  format: string;
  generatedAt: Date;
  person: {
    oid: number;
    pid: string;
    nom: string;
    prenom: string;
    email: string | null;
    createdAt: Date;
    updatedAt: Date;
    /** Their last login through a lab or the development login; null: never. */
    lastLoginAt: Date | null;
  };
  roles: ExportedRole[];
  groups: { managed: ExportedGroup[]; member: ExportedGroup[]; followed: ExportedGroup[] };
  resources: {
    authored: ExportedResource[];
    contributed: ExportedResource[];
    parentAuthored: ExportedResource[];
    /** Resources whose `parametres` or `enfants` name them (e.g. a sequence listing its pupils). */
    mentioned: ExportedResource[];
  };
  resourceArchives: ExportedArchive[];
  sessions: ExportedSession[];
  auditEntries: ExportedAuditEntry[];
  peerNotifications: ExportedNotification[];
}

/** The string values that name the person in stored JSON: pid, e-mail, "Prénom Nom". */
function namesOf(person: { pid: string; email: string | null; nom: string; prenom: string }): string[] {
  const label = `${person.prenom} ${person.nom}`.trim();
  return [person.pid, ...(person.email ? [person.email] : []), ...(label ? [label] : [])];
}

/** The ids found by the naming statement, by source. */
function idsBySource(rows: NamingRow[]) {
  const of = (source: NamingRow['source']) =>
    rows.filter((row) => row.source === source).map((row) => row.id);
  return {
    audit: of('audit').map(Number),
    outbox: of('outbox'),
    archive: of('archive').map(Number),
    resource: of('resource').map(Number),
    session: of('session'),
  };
}

/** Reads everything in one transaction: the person, then the rows that name them. */
async function readPersonalData(tx: Transaction, pid: string) {
  const person = await tx.person.findUnique({ where: { pid }, include: personInclude });
  if (!person) return null;
  const found = idsBySource(
    await namingRows(tx, { oid: person.oid, pid: person.pid, names: namesOf(person) }),
  );
  // One after the other: a transaction is one connection (see src/modules/peers/outbox.ts).
  const auditEntries = await tx.auditEntry.findMany({
    where: { id: { in: found.audit } },
    orderBy: { id: 'asc' },
  });
  const notifications = await tx.outboxMessage.findMany({
    where: { id: { in: found.outbox } },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
  });
  const archives = await tx.resourceArchive.findMany({
    where: { oid: { in: found.archive } },
    select: { oid: true, resourceOid: true, version: true, archivedAt: true },
    orderBy: { oid: 'asc' },
  });
  const mentioning = await tx.resource.findMany({
    where: { oid: { in: found.resource } },
    select: resourceSummary.select,
    orderBy: { oid: 'asc' },
  });
  const sessions = await tx.session.findMany({
    where: { id: { in: found.session } },
    orderBy: { expiresAt: 'asc' },
  });
  return { person, auditEntries, notifications, archives, mentioning, sessions };
}

type PersonalData = NonNullable<Awaited<ReturnType<typeof readPersonalData>>>;

const groupOf = (group: { oid: number; nom: string }, since: Date | null, position: number | null) => ({
  oid: group.oid,
  nom: group.nom,
  since,
  position,
});

type ResourceSummary = { oid: number; titre: string; type: string };

const resourceOf = (
  baseId: string,
  resource: ResourceSummary,
  position: number | null,
): ExportedResource => ({
  oid: resource.oid,
  rid: ridOf(baseId, resource.oid),
  titre: resource.titre,
  type: resource.type,
  position,
});

/** The session's lab, read from its express-session JSON (anything else in it is the cookie's). */
function labOfSession(data: string): string | null {
  try {
    const parsed = JSON.parse(data) as { labBaseId?: unknown };
    return typeof parsed.labBaseId === 'string' ? parsed.labBaseId : null;
  } catch {
    return null;
  }
}

function linksOf(
  person: LoadedPerson,
  mentioning: ResourceSummary[],
  config: Pick<Config, 'baseId' | 'devLogin'>,
) {
  const toResource = (link: { position: number; resource: ResourceSummary }) =>
    resourceOf(config.baseId, link.resource, link.position);
  return {
    roles: person.roles.map((role) => ({
      role: role.role,
      source: role.source,
      grantedAt: role.grantedAt,
      active: roleSourceGrants(role.source, config),
    })),
    groups: {
      managed: person.managedGroups.map((link) => groupOf(link.group, null, link.position)),
      member: person.memberGroups.map((link) => groupOf(link.group, link.joinedAt, null)),
      followed: person.followedGroups.map((link) => groupOf(link.group, link.followedAt, null)),
    },
    resources: {
      authored: person.authoredResources.map(toResource),
      contributed: person.contributions.map(toResource),
      parentAuthored: person.parentAuthorships.map(toResource),
      mentioned: mentioning.map((resource) => resourceOf(config.baseId, resource, null)),
    },
  };
}

function documentOf(data: PersonalData, config: Pick<Config, 'baseId' | 'devLogin'>): PersonalDataExport {
  const { person } = data;
  const names = new Set(namesOf(person));
  return {
    format: PERSONAL_DATA_FORMAT,
    generatedAt: new Date(),
    person: {
      oid: person.oid,
      pid: person.pid,
      nom: person.nom,
      prenom: person.prenom,
      email: person.email,
      createdAt: person.createdAt,
      updatedAt: person.updatedAt,
      lastLoginAt: person.lastLoginAt,
    },
    ...linksOf(person, data.mentioning, config),
    resourceArchives: data.archives.map((archive) => ({
      ...archive,
      rid: ridOf(config.baseId, archive.resourceOid),
    })),
    sessions: data.sessions.map((session) => ({
      digest: createHash('sha256').update(session.id).digest('hex'),
      expiresAt: session.expiresAt,
      labBaseId: labOfSession(session.data),
    })),
    auditEntries: data.auditEntries.map((entry) => {
      const asActor = entry.actorOid === person.oid || entry.actorPid === person.pid;
      return {
        id: entry.id,
        at: entry.at,
        asActor,
        // Found by the statement and not as actor: the changes name them.
        asSubject: !asActor || namesAppearIn(entry.changes, names, person.oid),
        actorKind: entry.actorKind,
        actorPid: entry.actorPid,
        action: entry.action,
        entityKind: entry.entityKind,
        entityId: entry.entityId,
        changes: entry.changes,
      };
    }),
    peerNotifications: data.notifications.map((message) => ({
      id: message.id,
      kind: message.kind,
      peerBaseId: message.peerBaseId,
      status: message.status,
      createdAt: message.createdAt,
      payload: message.payload,
    })),
  };
}

/**
 * Whether a change names the person, as the statement decides (src/read-model/personal-data.ts):
 * a string value among their names, or their oid under a `gestionnaire…` key.
 */
function namesAppearIn(
  value: unknown,
  names: ReadonlySet<string>,
  oid: number,
  underManagers = false,
): boolean {
  if (typeof value === 'string') return names.has(value);
  if (typeof value === 'number') return underManagers && value === oid;
  if (Array.isArray(value)) return value.some((item) => namesAppearIn(item, names, oid, underManagers));
  if (value === null || typeof value !== 'object') return false;
  return Object.entries(value).some(([key, item]) =>
    namesAppearIn(item, names, oid, underManagers || key.startsWith('gestionnaire')),
  );
}

/**
 * Everything held about the person `pid`, or a NotFoundError. The caller's right to it is decided
 * before (export.policy.ts).
 */
export async function exportPersonalData(
  pid: string,
  config: Pick<Config, 'baseId' | 'devLogin'>,
): Promise<PersonalDataExport> {
  const data = await db.$transaction(
    (tx) => readPersonalData(tx, pid),
    // A snapshot: every statement of the export sees the database as the first one did.
    snapshotTransactionOptions(EXPORT_TRANSACTION),
  );
  if (!data)
    throw new NotFoundError(`Aucune personne avec le pid ${pid}`).forOperators(`No person with pid ${pid}`);
  return documentOf(data, config);
}
