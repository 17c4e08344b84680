/**
 * Operating the outbox: listing the notifications still to deliver or given up on, and sending
 * them again. Shared by GraphQL (administrators) and the command-line tool (`rrs notifications`).
 * A retry only makes a message due again: the outbox worker delivers it, with its lease, so a
 * retry never races a delivery in progress.
 */
import { db } from '../../db/client.ts';
import { ConflictError, InvalidInputError, NotFoundError } from '../../errors.ts';

export const NOTIFICATION_STATUSES = ['pending', 'failed'] as const;
export type NotificationStatus = (typeof NOTIFICATION_STATUSES)[number];

export const MAX_LISTED_NOTIFICATIONS = 1000;

const columns = {
  id: true,
  kind: true,
  peerBaseId: true,
  payload: true,
  status: true,
  attempts: true,
  nextAttemptAt: true,
  lastError: true,
  createdAt: true,
  deliveredAt: true,
} as const;

export interface PeerNotification {
  id: string;
  kind: string;
  peerBaseId: string;
  payload: unknown;
  status: string;
  attempts: number;
  nextAttemptAt: Date;
  lastError: string | null;
  createdAt: Date;
  deliveredAt: Date | null;
}

/** The resources a notification is about: the changed resource, or the rids listened to. */
export function ridsOfNotification(payload: unknown): string[] {
  const { ref, rids } = (payload ?? {}) as { ref?: { aliasOf?: unknown; rid?: unknown }; rids?: unknown };
  const about = ref?.aliasOf ?? ref?.rid;
  if (typeof about === 'string') return [about];
  return Array.isArray(rids) ? rids.filter((rid): rid is string => typeof rid === 'string') : [];
}

/** Undelivered notifications (both statuses when none is given), oldest first. */
export async function listPeerNotifications(
  options: { status?: NotificationStatus | null; limit?: number | null } = {},
): Promise<PeerNotification[]> {
  const limit = options.limit ?? 100;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LISTED_NOTIFICATIONS) {
    throw new InvalidInputError(`limit : entre 1 et ${MAX_LISTED_NOTIFICATIONS}`).forOperators(
      `--limit: between 1 and ${MAX_LISTED_NOTIFICATIONS}`,
    );
  }
  if (options.status && !NOTIFICATION_STATUSES.includes(options.status)) {
    throw new InvalidInputError(`status : ${NOTIFICATION_STATUSES.join(' ou ')}`).forOperators(
      `--status: ${NOTIFICATION_STATUSES.join(' or ')}`,
    );
  }
  return db.outboxMessage.findMany({
    where: { status: options.status ? options.status : { in: [...NOTIFICATION_STATUSES] } },
    select: columns,
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    take: limit,
  });
}

/**
 * Sends one notification again as soon as the worker runs: a failed one gets a fresh set of
 * attempts, a pending one is no longer held back by its back-off. A delivered one is a conflict.
 */
export async function retryPeerNotification(id: string): Promise<PeerNotification> {
  const now = new Date();
  const retried = await db.$transaction(async (tx) => {
    const message = await tx.outboxMessage.findUnique({ where: { id }, select: { status: true } });
    if (!message) throw new NotFoundError(`Aucune notification ${id}`).forOperators(`No notification ${id}`);
    if (message.status === 'delivered') {
      throw new ConflictError(`La notification ${id} a déjà été remise`).forOperators(
        `Notification ${id} was delivered already`,
      );
    }
    const { count } = await tx.outboxMessage.updateMany({
      where: { id, status: message.status },
      data:
        message.status === 'failed'
          ? { status: 'pending', attempts: 0, nextAttemptAt: now }
          : { nextAttemptAt: now },
    });
    return count === 1;
  });
  // Delivered meanwhile by a worker: say so rather than claim a retry.
  if (!retried) {
    throw new ConflictError(`La notification ${id} a changé entre-temps, réessayez`).forOperators(
      `Notification ${id} changed meanwhile: try again`,
    );
  }
  return db.outboxMessage.findUniqueOrThrow({ where: { id }, select: columns });
}

/** Every failed notification gets a fresh set of attempts; resolves to how many. */
export async function retryFailedPeerNotifications(): Promise<number> {
  const { count } = await db.outboxMessage.updateMany({
    where: { status: 'failed' },
    data: { status: 'pending', attempts: 0, nextAttemptAt: new Date() },
  });
  return count;
}
