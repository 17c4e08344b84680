/**
 * Retention (GDPR art. 5(1)(e)): personal data kept no longer than its purpose needs. Each kind
 * the purge handles, with its period from `privacy.retention` (docs/privacy.md, "Retention"):
 *   - sessions past their expiry, and failed-authentication counters (RateLimit rows) past
 *     theirs: they key on a person's session or a client address, and serve nothing once expired;
 *   - audit entries older than `auditEntries.afterDays`: pseudonymised (who acted and the persons
 *     named in `changes` removed; what changed, on what, when, stays) or deleted;
 *   - persons with no login for `stalePersons.afterDays` who authored nothing: listed, and handed
 *     to the erasure only when `stalePersons.action` is `erase`.
 * Every statement is set-based; the audit entries go by batches, each in one transaction, so
 * that a round can stop between two (its lease lost, the service stopping) with nothing half done.
 */
import type { Config } from '../../config.ts';
import { updateJsonColumn } from '../../db/bulk-update.ts';
import { db } from '../../db/client.ts';

export type RetentionSettings = Config['privacy']['retention'];

const DAY_MS = 24 * 60 * 60 * 1000;

/** The moment `days` days before `now`: data older than it is past its period. */
export const cutoffBefore = (now: Date, days: number) => new Date(now.getTime() - days * DAY_MS);

/** Receives the pids of the stale persons to erase (the erasure service, src/modules/privacy/). */
export type ErasePersons = (pids: string[]) => Promise<unknown>;

export interface StalePerson {
  oid: number;
  pid: string;
  createdAt: Date;
  lastLoginAt: Date | null;
}

/**
 * Persons whose last login (their creation, when they never logged in) is before `cutoff` and
 * who authored nothing: no resource as author, contributor or parent author, and no group they
 * manage (erasing them would leave it without its manager). One statement, read through the index
 * on [lastLoginAt, createdAt]; in oid order, sorted here: asked of the statement, the order made
 * SQLite read every person in oid order instead.
 */
export async function listStalePersons(cutoff: Date): Promise<StalePerson[]> {
  const stale = await db.person.findMany({
    where: {
      OR: [{ lastLoginAt: { lt: cutoff } }, { lastLoginAt: null, createdAt: { lt: cutoff } }],
      authoredResources: { none: {} },
      contributions: { none: {} },
      parentAuthorships: { none: {} },
      managedGroups: { none: {} },
    },
    select: { oid: true, pid: true, createdAt: true, lastLoginAt: true },
  });
  return stale.sort((a, b) => a.oid - b.oid);
}

/**
 * Fields of an audit entry's `changes` whose values are persons (pids or oids), under GraphQL's
 * names and the legacy ones of entries written before 2026-11-27 (docs/operations.md, "Audit log").
 */
const PERSON_FIELDS = new Set([
  'authors',
  'contributors',
  'auteursParents',
  'gestionnaires',
  'auteurs',
  'contributeurs',
]);
/** What stands in for a removed value: the field stays listed as changed. */
export const PSEUDONYMISED = '[pseudonymised]';
const EMAIL = /[^\s@"'<>(),;:]+@[^\s@"'<>(),;:]+\.[a-z]{2,}/gi;

/** `value` with every e-mail address in its strings replaced (a description may quote one). */
function withoutEmails(value: unknown): unknown {
  if (typeof value === 'string') return value.replace(EMAIL, PSEUDONYMISED);
  if (Array.isArray(value)) return value.map(withoutEmails);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, withoutEmails(inner)]));
  }
  return value;
}

/** An entry's `changes` without the persons it names: person fields' values and e-mail addresses. */
export function pseudonymisedChanges(changes: unknown): unknown {
  if (changes === null || typeof changes !== 'object' || Array.isArray(changes)) return changes;
  return Object.fromEntries(
    Object.entries(changes).map(([field, change]) => {
      if (!PERSON_FIELDS.has(field) || change === null || typeof change !== 'object') {
        return [field, withoutEmails(change)];
      }
      return [field, Object.fromEntries(Object.keys(change).map((side) => [side, PSEUDONYMISED]))];
    }),
  );
}

/** Audit entries pseudonymised per transaction. */
const AUDIT_BATCH = 500;

/** Whether the round may go on (its lease still held); checked between batches. */
export type StillHeld = () => Promise<boolean>;

/**
 * Pseudonymises the audit entries at before `cutoff` not done yet, by batches: in each batch's
 * transaction, one statement clears the actors and stamps `pseudonymisedAt`, one rewrites the
 * `changes` that named anyone. Resolves to the number of entries pseudonymised.
 */
async function pseudonymiseAuditEntries(cutoff: Date, now: Date, stillHeld: StillHeld): Promise<number> {
  let done = 0;
  for (;;) {
    const batch = await db.auditEntry.findMany({
      where: { at: { lt: cutoff }, pseudonymisedAt: null },
      select: { id: true, changes: true },
      orderBy: { at: 'asc' },
      take: AUDIT_BATCH,
    });
    if (batch.length === 0) return done;
    const rewritten = batch.flatMap(({ id, changes }) => {
      const value = pseudonymisedChanges(changes);
      return JSON.stringify(value) === JSON.stringify(changes) ? [] : [{ id, value }];
    });
    const ids = batch.map((entry) => entry.id);
    const stamped = await db.$transaction(async (tx) => {
      // The condition again: an entry another round stamped meanwhile is not counted twice.
      const { count } = await tx.auditEntry.updateMany({
        where: { id: { in: ids }, pseudonymisedAt: null },
        data: { actorOid: null, actorPid: null, actorLabel: null, pseudonymisedAt: now },
      });
      await updateJsonColumn(tx, 'AuditEntry', 'changes', rewritten);
      return count;
    });
    done += stamped;
    if (batch.length < AUDIT_BATCH || !(await stillHeld())) return done;
  }
}

export interface PurgeReport {
  dryRun: boolean;
  /** Expired sessions deleted (or, in a dry run, that would be). */
  sessions: number;
  /** Expired failed-authentication counters deleted. */
  rateLimits: number;
  auditEntries: { action: RetentionSettings['auditEntries']['action']; afterDays: number; count: number };
  stalePersons: {
    action: RetentionSettings['stalePersons']['action'];
    afterDays: number;
    /** Persons found stale (listed; with `erase`, handed to the erasure). */
    found: number;
    /** Handed to the erasure: 0 unless `action` is `erase`, an erasure is given, and not a dry run. */
    erased: number;
    /** Whether whoever ran the purge gave it an erasure (without one, `erase` erases nobody). */
    erasureAvailable: boolean;
  };
}

export interface PurgeOptions {
  now?: Date;
  /** Counts what would be purged, changing nothing. */
  dryRun?: boolean;
  /** The erasure stale persons are handed to when `stalePersons.action` is `erase`. */
  erase?: ErasePersons;
  stillHeld?: StillHeld;
}

/** Sessions and RateLimit rows whose expiry has passed (a counter without one never expires). */
const expiredSessions = (now: Date) => ({ expiresAt: { lt: now } });
const expiredRateLimits = (now: Date) => ({ expire: { lt: now } });

/** The counts a dry run reports: the same conditions as the purge, counted. */
async function countPurgeable(settings: RetentionSettings, now: Date) {
  const auditCutoff = cutoffBefore(now, settings.auditEntries.afterDays);
  const [sessions, rateLimits, auditEntries] = await Promise.all([
    db.session.count({ where: expiredSessions(now) }),
    db.rateLimit.count({ where: expiredRateLimits(now) }),
    db.auditEntry.count({
      where: {
        at: { lt: auditCutoff },
        ...(settings.auditEntries.action === 'pseudonymise' ? { pseudonymisedAt: null } : {}),
      },
    }),
  ]);
  return { sessions, rateLimits, auditEntries };
}

/** Purges what the settings say is past its period; with `dryRun`, only counts it. */
export async function purgePersonalData(
  settings: RetentionSettings,
  { now = new Date(), dryRun = false, erase, stillHeld = async () => true }: PurgeOptions = {},
): Promise<PurgeReport> {
  const { auditEntries, stalePersons } = settings;
  let counts: { sessions: number; rateLimits: number; auditEntries: number };
  if (dryRun) {
    counts = await countPurgeable(settings, now);
  } else {
    const sessions = (await db.session.deleteMany({ where: expiredSessions(now) })).count;
    const rateLimits = (await db.rateLimit.deleteMany({ where: expiredRateLimits(now) })).count;
    const auditCutoff = cutoffBefore(now, auditEntries.afterDays);
    const audited =
      auditEntries.action === 'delete'
        ? (await db.auditEntry.deleteMany({ where: { at: { lt: auditCutoff } } })).count
        : await pseudonymiseAuditEntries(auditCutoff, now, stillHeld);
    counts = { sessions, rateLimits, auditEntries: audited };
  }
  const stale = await listStalePersons(cutoffBefore(now, stalePersons.afterDays));
  const erased = await eraseStalePersons(
    stale.map((person) => person.pid),
    stalePersons.action === 'erase' && !dryRun && (await stillHeld()) ? erase : undefined,
  );
  return {
    dryRun,
    sessions: counts.sessions,
    rateLimits: counts.rateLimits,
    auditEntries: { ...auditEntries, count: counts.auditEntries },
    stalePersons: { ...stalePersons, found: stale.length, erased, erasureAvailable: erase !== undefined },
  };
}

/**
 * The one place stale persons are erased: hands their pids to `erase` (the erasure service, given
 * by whoever runs the purge) and resolves to how many it was handed; 0 without an erasure.
 */
export async function eraseStalePersons(pids: string[], erase: ErasePersons | undefined): Promise<number> {
  if (!erase || pids.length === 0) return 0;
  await erase(pids);
  return pids.length;
}
