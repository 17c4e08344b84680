/**
 * Writing to the transactional outbox. Called inside the transaction that changes a resource, so
 * that a notification exists if and only if the change was committed; the outbox worker delivers
 * it later (outbox-worker.ts).
 */
import { randomUUID } from 'node:crypto';
import type { Context } from '../../context.ts';
import type { Prisma, Transaction } from '../../db/client.ts';
import { fullInclude, ridOf } from '../resources/resources.repository.ts';
import { peerRidsOf } from '../trees/tree-walk.ts';
import { peerRefOf } from './peer-ref.ts';

/** What a message asks its peer to do: the last segment of `<peer baseUrl>api/ressource/<kind>`. */
export type OutboxKind = 'externalUpdate' | 'registerListener';

interface NewMessage {
  kind: OutboxKind;
  peerBaseId: string;
  payload: Prisma.InputJsonValue;
}

/**
 * After a committed change of resource `oid`: tells each peer listening to it (`externalUpdate`
 * with its new Ref), and, when a tree gained children from a peer, registers this repository as a
 * listener of those children on that peer. `previousEnfants` is the tree's state before the change.
 */
export async function enqueueChangeNotifications(
  tx: Transaction,
  context: Context,
  oid: number,
  previousEnfants: unknown,
): Promise<void> {
  const { baseId, peers } = context.config;
  const isPeer = (peerBaseId: string) => peers.some((peer) => peer.baseId === peerBaseId);
  const rid = ridOf(baseId, oid);
  // One after the other: a transaction is one connection, which runs one statement at a time (pg
  // queued the second, a queueing it deprecates).
  const tree = await tx.resource.findUniqueOrThrow({ where: { oid }, select: { enfants: true } });
  const listeners = await tx.peerListener.findMany({ where: { rid }, select: { baseId: true } });
  const messages: NewMessage[] = [];
  // The whole resource is loaded only when someone listens to it.
  const ref =
    listeners.length > 0
      ? peerRefOf(await tx.resource.findUniqueOrThrow({ where: { oid }, include: fullInclude }), baseId)
      : null;
  for (const listener of listeners) {
    if (!isPeer(listener.baseId)) {
      context.log.warn({ rid, peer: listener.baseId }, 'listener is no configured peer: not notified');
      continue;
    }
    messages.push({
      kind: 'externalUpdate',
      peerBaseId: listener.baseId,
      payload: { ref } as unknown as Prisma.InputJsonValue,
    });
  }
  const known = peerRidsOf(previousEnfants, baseId);
  for (const [peerBaseId, rids] of peerRidsOf(tree.enfants, baseId)) {
    const gained = [...rids].filter((child) => !known.get(peerBaseId)?.has(child));
    if (gained.length === 0 || !isPeer(peerBaseId)) continue;
    messages.push({ kind: 'registerListener', peerBaseId, payload: { action: 'add', baseId, rids: gained } });
  }
  if (messages.length === 0) return;
  await tx.outboxMessage.createMany({ data: messages.map((message) => ({ id: randomUUID(), ...message })) });
}
