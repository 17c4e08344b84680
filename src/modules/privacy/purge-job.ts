/**
 * The retention purge as a background job (src/modules/privacy/retention.service.ts): a round
 * every `privacy.retention.purgeIntervalSeconds` (0: none; the first at start, so that instances
 * restarted more often than the interval still purge), run by one instance at a time when several
 * share the database. A round first takes the lease row `JobLease[retention-purge]` with a
 * conditional update (free or expired → ours), which only one instance can win on SQLite and
 * PostgreSQL alike; the others skip their round. The lease lasts `purgeLeaseSeconds` and is
 * renewed between batches, so a crashed holder blocks the purge no longer than that, and a round
 * that lost its lease stops before its next batch. `rrs purge` takes the same lease.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Services } from '../../context.ts';
import { db } from '../../db/client.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import { type Rounds, repeatRounds } from '../../lib/rounds.ts';
import type { Logger } from '../../logging/logger.ts';
import {
  type ErasePersons,
  type PurgeReport,
  purgePersonalData,
  type RetentionSettings,
} from './retention.service.ts';

export const PURGE_LEASE = 'retention-purge';

/** Who holds a lease: this process, told apart from a restart of it by a random part. */
export const newLeaseHolder = () => `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;

/** Creates the lease row, free, if no instance has yet; a concurrent creation is as good. */
async function ensureLeaseRow(name: string): Promise<void> {
  if (await db.jobLease.findUnique({ where: { name }, select: { name: true } })) return;
  try {
    await db.jobLease.create({ data: { name, holder: null, expiresAt: new Date(0) } });
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
  }
}

/**
 * Takes the lease `name` for `holder` until `durationMs` after `now` when it is free or expired
 * (or already `holder`'s: a renewal). The update's condition is evaluated on the row it writes,
 * so of two instances racing, one only counts a row.
 */
export async function takeLease(name: string, holder: string, durationMs: number, now = new Date()) {
  await ensureLeaseRow(name);
  const { count } = await db.jobLease.updateMany({
    where: { name, OR: [{ expiresAt: { lte: now } }, { holder }] },
    data: { holder, expiresAt: new Date(now.getTime() + durationMs) },
  });
  return count === 1;
}

/** Extends `holder`'s lease if it still holds it (not expired and not taken over). */
export async function renewLease(name: string, holder: string, durationMs: number, now = new Date()) {
  const { count } = await db.jobLease.updateMany({
    where: { name, holder, expiresAt: { gt: now } },
    data: { expiresAt: new Date(now.getTime() + durationMs) },
  });
  return count === 1;
}

/** Frees the lease if `holder` still holds it, for the next round, wherever it runs. */
export async function releaseLease(name: string, holder: string): Promise<void> {
  await db.jobLease.updateMany({ where: { name, holder }, data: { holder: null, expiresAt: new Date() } });
}

/** The lease row as it stands (for the tool's message when another holds it, and for tests). */
export function leaseOf(name: string) {
  return db.jobLease.findUnique({ where: { name } });
}

export interface PurgeRoundOptions {
  settings: RetentionSettings;
  holder: string;
  /** The erasure stale persons are handed to when `stalePersons.action` is `erase`. */
  erase?: ErasePersons;
  now?: Date;
  /** True once the service is stopping: the round ends after its current batch. */
  stopping?: () => boolean;
}

/**
 * One purge round under the lease: the report, or null when another instance holds the lease
 * (it is purging; nothing to do here). The lease is freed at the end, whatever happened.
 */
export async function runPurgeRound({
  settings,
  holder,
  erase,
  now,
  stopping = () => false,
}: PurgeRoundOptions): Promise<PurgeReport | null> {
  const leaseMs = settings.purgeLeaseSeconds * 1000;
  if (!(await takeLease(PURGE_LEASE, holder, leaseMs))) return null;
  try {
    return await purgePersonalData(settings, {
      now,
      erase,
      stillHeld: async () => !stopping() && (await renewLease(PURGE_LEASE, holder, leaseMs)),
    });
  } finally {
    await releaseLease(PURGE_LEASE, holder);
  }
}

/** The round's log fields: counts only, never a pid or an address. */
export function purgeLogFields(report: PurgeReport) {
  return {
    sessions: report.sessions,
    rateLimits: report.rateLimits,
    auditEntries: report.auditEntries.count,
    auditAction: report.auditEntries.action,
    stalePersons: report.stalePersons.found,
    erasedPersons: report.stalePersons.erased,
  };
}

function logRound(logger: Logger, report: PurgeReport): void {
  logger.info(purgeLogFields(report), 'retention purge');
  const stale = report.stalePersons;
  if (stale.action === 'erase' && !stale.erasureAvailable && stale.found > 0) {
    logger.warn(
      { stalePersons: stale.found },
      'stale persons not erased: privacy.retention.stalePersons.action is erase, but this service runs the purge without an erasure',
    );
  }
}

/** Stops scheduling rounds and waits for the one in progress. */
export type PurgeJob = Rounds;

export interface PurgeJobOptions {
  erase?: ErasePersons;
  holder?: string;
}

/** Runs a purge round now and then every `purgeIntervalSeconds`, until stopped; none when it is 0. */
export function startPurgeJob(
  services: Pick<Services, 'config' | 'logger' | 'database'>,
  options: PurgeJobOptions = {},
): PurgeJob {
  const settings = services.config.privacy.retention;
  if (settings.purgeIntervalSeconds === 0) return { stop: async () => {} };
  const holder = options.holder ?? newLeaseHolder();
  return repeatRounds(settings.purgeIntervalSeconds * 1000, async (stopping) => {
    try {
      const report = await runPurgeRound({ settings, holder, erase: options.erase, stopping });
      if (report) logRound(services.logger, report);
    } catch (error) {
      // During a database outage the availability monitor logs once; rounds resume by themselves.
      if (!services.database.report(error)) services.logger.error({ err: error }, 'retention purge failed');
    }
  });
}
