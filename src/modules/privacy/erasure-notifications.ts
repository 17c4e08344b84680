/**
 * Peers listening to resources whose authors an erasure changes are told as after any change of
 * them (src/modules/peers/outbox.ts `enqueueChangeNotifications`: an `externalUpdate` with the new
 * Ref, in the transaction of the change), for all of the person's resources at once: one statement
 * for the listeners, one for the listened resources, one for the messages.
 */
import { randomUUID } from 'node:crypto';
import type { Config } from '../../config.ts';
import type { Context } from '../../context.ts';
import type { db, Prisma, Transaction } from '../../db/client.ts';
import { peerRefOf } from '../peers/peer-ref.ts';
import { fullInclude, localOid, ridOf } from '../resources/resources.repository.ts';

export interface Listener {
  oid: number;
  peerBaseId: string;
}

/** The configured peers listening to any of `oids` (a listener that is no peer is never told). */
export async function listenersOf(
  tx: Transaction | typeof db,
  config: Pick<Config, 'baseId' | 'peers'>,
  oids: number[],
): Promise<Listener[]> {
  if (oids.length === 0) return [];
  const peers = new Set(config.peers.map((peer) => peer.baseId));
  const rows = await tx.peerListener.findMany({
    where: { rid: { in: oids.map((oid) => ridOf(config.baseId, oid)) } },
    select: { rid: true, baseId: true },
    orderBy: { id: 'asc' },
  });
  return rows.flatMap((row) => {
    const oid = localOid(config.baseId, row.rid);
    return oid !== undefined && oid !== null && peers.has(row.baseId)
      ? [{ oid, peerBaseId: row.baseId }]
      : [];
  });
}

/** Queues an `externalUpdate` with the resource's Ref as it is now for each listener. */
export async function enqueueRefNotifications(
  tx: Transaction,
  context: Pick<Context, 'config'>,
  listeners: Listener[],
): Promise<void> {
  if (listeners.length === 0) return;
  const { baseId } = context.config;
  const resources = await tx.resource.findMany({
    where: { oid: { in: [...new Set(listeners.map((listener) => listener.oid))] } },
    include: fullInclude,
  });
  const refs = new Map(resources.map((resource) => [resource.oid, peerRefOf(resource, baseId)]));
  await tx.outboxMessage.createMany({
    data: listeners.flatMap((listener) => {
      const ref = refs.get(listener.oid);
      if (!ref) return [];
      return [
        {
          id: randomUUID(),
          kind: 'externalUpdate',
          peerBaseId: listener.peerBaseId,
          payload: { ref } as unknown as Prisma.InputJsonValue,
        },
      ];
    }),
  });
}
