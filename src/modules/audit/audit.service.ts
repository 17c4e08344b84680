/**
 * The audit log: who created, changed or deleted a resource or a group, and what changed. Entries
 * are written by the services that make the change, with the transaction client of that change,
 * so an entry exists if and only if the change was committed; reads never write one. The actor is
 * copied into the entry (kind, person oid and pid, token label): entries outlive what they name.
 */
import { isDeepStrictEqual } from 'node:util';
import type { Viewer } from '../../auth/viewer.ts';
import type { Context } from '../../context.ts';
import { db, type Prisma, type Transaction } from '../../db/client.ts';
import { InvalidInputError } from '../../errors.ts';

export const AUDIT_ACTIONS = ['created', 'updated', 'deleted', 'erased'] as const;
/** `person`: an erasure's own entry (src/modules/privacy/erasure.service.ts), its subject by pseudonym. */
export const AUDIT_ENTITY_KINDS = ['resource', 'group', 'person'] as const;
export const AUDIT_ACTOR_KINDS = ['anonymous', 'person', 'token'] as const;

export type AuditAction = (typeof AUDIT_ACTIONS)[number];
export type AuditEntityKind = (typeof AUDIT_ENTITY_KINDS)[number];
export type AuditActorKind = (typeof AUDIT_ACTOR_KINDS)[number];

export interface AuditActor {
  kind: AuditActorKind;
  oid?: number | null;
  pid?: string | null;
  /** An API token's label, when tokens have one; a tool's name for changes made outside requests. */
  label?: string | null;
  requestId?: string | null;
}

/** The actor of a request: its person when there is one, else the token or nobody. */
export function actorOf(viewer: Viewer, requestId?: string | null): AuditActor {
  return {
    kind: viewer.person ? 'person' : viewer.kind,
    oid: viewer.person?.oid ?? null,
    pid: viewer.person?.pid ?? null,
    requestId: requestId || null,
  };
}

/** The actor of the request a GraphQL resolver serves. */
export const auditActor = (context: Pick<Context, 'viewer' | 'requestId'>) =>
  actorOf(context.viewer, context.requestId);

/** `{field: {before, after}}` for each changed field: updates. */
export type FieldChanges = Record<string, { before?: unknown; after?: unknown }>;

/** Fields of `after` whose value differs from `before` (deep comparison). */
export function changedFields(
  before: Record<string, unknown>,
  after: Record<string, unknown>,
  same: (a: unknown, b: unknown) => boolean = isDeepStrictEqual,
): FieldChanges {
  const changes: FieldChanges = {};
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (!same(before[key], after[key]))
      changes[key] = { before: before[key] ?? null, after: after[key] ?? null };
  }
  return changes;
}

/** A whole state as changes: `{field: {after}}` for a creation, `{field: {before}}` for a deletion. */
export function stateAs(side: 'before' | 'after', state: Record<string, unknown>): FieldChanges {
  return Object.fromEntries(
    Object.entries(state)
      .filter(([, value]) => value !== undefined)
      .map(([key, value]) => [key, { [side]: value }]),
  );
}

export interface AuditRecord {
  action: AuditAction;
  entityKind: AuditEntityKind;
  entityId: number;
  changes?: FieldChanges;
}

/** The entry's row, for `tx.auditEntry.create` or a batch `$transaction([...])`. */
export function auditEntryData(actor: AuditActor, record: AuditRecord): Prisma.AuditEntryCreateInput {
  return {
    actorKind: actor.kind,
    actorOid: actor.oid ?? null,
    actorPid: actor.pid ?? null,
    actorLabel: actor.label ?? null,
    requestId: actor.requestId ?? null,
    action: record.action,
    entityKind: record.entityKind,
    entityId: record.entityId,
    changes: (record.changes ?? {}) as Prisma.InputJsonValue,
  };
}

/** Writes an entry with the change's transaction client. */
export async function recordAudit(tx: Transaction, actor: AuditActor, record: AuditRecord): Promise<void> {
  await tx.auditEntry.create({ data: auditEntryData(actor, record) });
}

export interface AuditQuery {
  entityKind?: AuditEntityKind | null;
  entityId?: number | null;
  actorPid?: string | null;
  actorKind?: AuditActorKind | null;
  action?: AuditAction | null;
  from?: Date | null;
  to?: Date | null;
  /** Entries older than this id (the previous page's `nextCursor`). */
  after?: number | null;
  first?: number | null;
}

export const MAX_AUDIT_PAGE = 500;
export const DEFAULT_AUDIT_PAGE = 50;

export type AuditEntry = Prisma.AuditEntryGetPayload<object>;

export interface AuditPage {
  entries: AuditEntry[];
  /** Pass as `after` for the next (older) page; null on the last page. */
  nextCursor: number | null;
}

/** Entries matching every given filter, newest first, one page (one statement). */
export async function listAuditEntries(query: AuditQuery): Promise<AuditPage> {
  const first = query.first ?? DEFAULT_AUDIT_PAGE;
  if (!Number.isInteger(first) || first < 1 || first > MAX_AUDIT_PAGE) {
    throw new InvalidInputError(`first : entre 1 et ${MAX_AUDIT_PAGE}`).forOperators(
      `first: between 1 and ${MAX_AUDIT_PAGE}`,
    );
  }
  if (query.entityId != null && !query.entityKind) {
    throw new InvalidInputError('entityId : il faut aussi entityKind').forOperators(
      'entityId: needs entityKind as well',
    );
  }
  const where: Prisma.AuditEntryWhereInput = {
    ...(query.entityKind ? { entityKind: query.entityKind } : {}),
    ...(query.entityId != null ? { entityId: query.entityId } : {}),
    ...(query.actorPid ? { actorPid: query.actorPid } : {}),
    ...(query.actorKind ? { actorKind: query.actorKind } : {}),
    ...(query.action ? { action: query.action } : {}),
    ...(query.from || query.to
      ? { at: { ...(query.from ? { gte: query.from } : {}), ...(query.to ? { lt: query.to } : {}) } }
      : {}),
    ...(query.after != null ? { id: { lt: query.after } } : {}),
  };
  const rows = await db.auditEntry.findMany({ where, orderBy: { id: 'desc' }, take: first + 1 });
  const entries = rows.slice(0, first);
  return { entries, nextCursor: rows.length > first ? entries[entries.length - 1]!.id : null };
}
