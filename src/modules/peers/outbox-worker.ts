/**
 * Delivery of the outbox to peer repositories, at least once:
 * - each round claims due messages with a lease (a conditional update only one instance can win,
 *   on SQLite and PostgreSQL alike), so instances sharing a database never deliver one message at
 *   the same time; a crashed instance's lease expires and another takes the message over;
 * - a message is posted with its id as `eventId` (receivers ignore ids they have seen), the peer's
 *   `X-ApiToken`, and the peer timeout (3 s by default);
 * - a failure schedules the next attempt with exponential back-off and jitter; after
 *   `outbox.maxAttempts` attempts the message is marked failed and logged;
 * - messages live in the database, so a restart resumes where the last instance stopped.
 */
import { randomUUID } from 'node:crypto';
import type { Config } from '../../config.ts';
import type { Services } from '../../context.ts';
import { db } from '../../db/client.ts';
import { type Rounds, repeatRounds } from '../../lib/rounds.ts';

type OutboxSettings = Config['outbox'];

/** Delay before attempt `failures + 1`: base × 2^(failures − 1), capped, then "equal jitter" (½ to 1 ×). */
export function retryDelayMs(failures: number, settings: OutboxSettings, random = Math.random): number {
  const exponential = Math.min(settings.retryMaxMs, settings.retryBaseMs * 2 ** (failures - 1));
  return Math.round(exponential / 2 + (random() * exponential) / 2);
}

interface ClaimedMessage {
  id: string;
  kind: string;
  peerBaseId: string;
  payload: unknown;
  attempts: number;
}

/** Posts one message; resolves to the reason it failed, or null when the peer accepted it. */
async function post(services: Services, message: ClaimedMessage): Promise<string | null> {
  const peer = services.config.peers.find((candidate) => candidate.baseId === message.peerBaseId);
  if (!peer) return `Sésathèque ${message.peerBaseId} absente de la configuration`;
  try {
    const response = await services.http.request(`${peer.baseUrl}api/ressource/${message.kind}`, {
      json: { ...(message.payload as object), eventId: message.id },
      headers: peer.apiToken ? { 'X-ApiToken': peer.apiToken } : {},
      timeoutMs: services.config.http.peerTimeoutMs,
    });
    const accepted = response.status < 300 && (response.json as { success?: unknown })?.success === true;
    return accepted ? null : `HTTP ${response.status} : ${response.text.slice(0, 200)}`;
  } catch (error) {
    return (error as Error).message;
  }
}

/** The resources a message is about, for the logs. */
function ridsOf(payload: unknown): string[] {
  const { ref, rids } = payload as { ref?: { aliasOf?: string }; rids?: string[] };
  return ref?.aliasOf ? [ref.aliasOf] : (rids ?? []);
}

async function deliver(services: Services, message: ClaimedMessage, claim: string): Promise<void> {
  const { config, logger } = services;
  const failure = await post(services, message);
  const attempts = message.attempts + 1;
  const released = { leaseOwner: null, leaseExpiresAt: null, attempts };
  // Only while our lease holds: after it expired, another instance owns the message.
  const ours = { id: message.id, leaseOwner: claim };
  const log = {
    eventId: message.id,
    kind: message.kind,
    peer: message.peerBaseId,
    rids: ridsOf(message.payload),
    attempts,
  };
  if (failure === null) {
    await db.outboxMessage.updateMany({
      where: ours,
      data: { ...released, status: 'delivered', deliveredAt: new Date(), lastError: null },
    });
    logger.info(log, 'peer notification delivered');
    return;
  }
  const unknownPeer = !config.peers.some((peer) => peer.baseId === message.peerBaseId);
  if (unknownPeer || attempts >= config.outbox.maxAttempts) {
    await db.outboxMessage.updateMany({
      where: ours,
      data: { ...released, status: 'failed', lastError: failure },
    });
    logger.error({ ...log, error: failure }, 'peer notification failed for good');
    return;
  }
  const delay = retryDelayMs(attempts, config.outbox);
  await db.outboxMessage.updateMany({
    where: ours,
    data: { ...released, lastError: failure, nextAttemptAt: new Date(Date.now() + delay) },
  });
  logger.warn({ ...log, error: failure, retryInMs: delay }, 'peer notification will be retried');
}

/**
 * One round: claims up to `batchSize` due messages and delivers them concurrently (a silent peer
 * holds up nobody else for longer than the timeout). Resolves to the number claimed.
 */
export async function deliverDueMessages(services: Services): Promise<number> {
  const settings = services.config.outbox;
  const now = new Date();
  const claimable = {
    status: 'pending',
    nextAttemptAt: { lte: now },
    OR: [{ leaseExpiresAt: null }, { leaseExpiresAt: { lt: now } }],
  };
  const due = await db.outboxMessage.findMany({
    where: claimable,
    select: { id: true },
    orderBy: { nextAttemptAt: 'asc' },
    take: settings.batchSize,
  });
  if (due.length === 0) return 0;
  const claim = randomUUID();
  // The condition is evaluated again by the update: of two instances racing, only one wins a row.
  await db.outboxMessage.updateMany({
    where: { ...claimable, id: { in: due.map((message) => message.id) } },
    data: { leaseOwner: claim, leaseExpiresAt: new Date(now.getTime() + settings.leaseMs) },
  });
  const claimed = await db.outboxMessage.findMany({
    where: { leaseOwner: claim },
    select: { id: true, kind: true, peerBaseId: true, payload: true, attempts: true },
  });
  await Promise.all(claimed.map((message) => deliver(services, message, claim)));
  return claimed.length;
}

/** Stops polling and waits for the round in progress. */
export type OutboxWorker = Rounds;

/** Polls the outbox every `outbox.pollIntervalMs` (at once again while rounds come back full). */
export function startOutboxWorker(services: Services): OutboxWorker {
  const { pollIntervalMs, batchSize } = services.config.outbox;
  return repeatRounds(pollIntervalMs, async (stopping) => {
    try {
      while (!stopping() && (await deliverDueMessages(services)) === batchSize) {}
    } catch (error) {
      // During a database outage the availability monitor logs once; rounds resume by themselves.
      if (!services.database.report(error))
        services.logger.error({ err: error }, 'outbox delivery round failed');
    }
  });
}
