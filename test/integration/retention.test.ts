/**
 * Retention (src/modules/privacy/): each purge kind purges what is past its period and keeps what
 * is not (a row just outside and one just inside), audit entries pseudonymised or deleted, stale
 * persons listed and handed to the erasure only when the setting says so, and the lease: instances
 * sharing the database purge each row once, one round at a time, and a crashed holder's lease
 * expires. Rows are made straight in the database, with the times each case needs.
 */
import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.ts';
import { DatabaseAvailability } from '../../src/db/availability.ts';
import { db, onStatement, ping, provider } from '../../src/db/client.ts';
import { createLogger } from '../../src/logging/logger.ts';
import {
  leaseOf,
  newLeaseHolder,
  PURGE_LEASE,
  runPurgeRound,
  startPurgeJob,
  takeLease,
} from '../../src/modules/privacy/purge-job.ts';
import {
  cutoffBefore,
  listStalePersons,
  PSEUDONYMISED,
  purgePersonalData,
  type RetentionSettings,
} from '../../src/modules/privacy/retention.service.ts';

const SECOND = 1000;
const DAY = 24 * 60 * 60 * SECOND;

/** Retention settings: the defaults with `patch` (parsed as the service parses them). */
function settingsWith(patch: Record<string, unknown> = {}): RetentionSettings {
  return parseConfig({
    baseId: 'repo',
    baseUrl: 'http://repo.test/',
    listeMax: 1000,
    privacy: { retention: patch },
  }).privacy.retention;
}

/**
 * A moment of its own for each test, far from the others' and from the rows other tests make now:
 * everything a test makes is timed around it, so its counts are its rows' alone.
 */
let epochs = 0;
const testNow = () => new Date(Date.UTC(2100 + epochs++ * 10, 0, 1));

const unique = () => randomUUID().slice(0, 8);

async function makeSession(expiresAt: Date) {
  const sid = `s-${unique()}`;
  await db.session.create({ data: { id: sid, sid, data: '{}', expiresAt } });
  return sid;
}

async function makeRateLimit(expire: Date | null) {
  const key = `login:address:${unique()}`;
  await db.rateLimit.create({ data: { key, points: 3, expire } });
  return key;
}

async function makeAuditEntry(at: Date, changes: Record<string, unknown> = {}) {
  const entry = await db.auditEntry.create({
    data: {
      at,
      actorKind: 'person',
      actorOid: 7,
      actorPid: 'labR/alice',
      actorLabel: null,
      action: 'updated',
      entityKind: 'resource',
      entityId: 42,
      changes: changes as object,
      requestId: 'req-1',
    },
  });
  return entry.id;
}

async function makePerson(times: { createdAt: Date; lastLoginAt?: Date | null }) {
  return db.person.create({
    data: { pid: `labR/${unique()}`, nom: 'Nom', prenom: 'Prénom', email: 'p@example.test', ...times },
  });
}

/** A resource authored by `personOid` (straight rows: the purge only asks whether one exists). */
async function authorResource(personOid: number) {
  const resource = await db.resource.create({
    data: { origine: 'repo', idOrigine: `r-${unique()}`, type: 'url' },
  });
  await db.resourceAuthor.create({ data: { resourceOid: resource.oid, personOid, position: 0 } });
}

describe('sessions and rate-limit counters', () => {
  it('deletes those whose expiry passed and keeps those still running or without one', async () => {
    const now = testNow();
    const expiredSession = await makeSession(new Date(now.getTime() - SECOND));
    const liveSession = await makeSession(new Date(now.getTime() + SECOND));
    const expiredCounter = await makeRateLimit(new Date(now.getTime() - SECOND));
    const liveCounter = await makeRateLimit(new Date(now.getTime() + SECOND));
    const timeless = await makeRateLimit(null);

    const dry = await purgePersonalData(settingsWith(), { now, dryRun: true });
    expect(dry.sessions).toBeGreaterThanOrEqual(1);
    expect(await db.session.count({ where: { sid: expiredSession } })).toBe(1);

    const report = await purgePersonalData(settingsWith(), { now });
    expect(report).toMatchObject({ dryRun: false, sessions: dry.sessions, rateLimits: dry.rateLimits });
    expect(await db.session.findMany({ where: { sid: { in: [expiredSession, liveSession] } } })).toEqual([
      expect.objectContaining({ sid: liveSession }),
    ]);
    const counters = await db.rateLimit.findMany({
      where: { key: { in: [expiredCounter, liveCounter, timeless] } },
      orderBy: { key: 'asc' },
    });
    expect(counters.map((row) => row.key).sort()).toEqual([liveCounter, timeless].sort());
    expect((await purgePersonalData(settingsWith(), { now })).sessions).toBe(0);
  });
});

describe('audit entries', () => {
  const changes = {
    titre: { before: 'Écrit par bob@example.org', after: 'Sans adresse' },
    authors: { before: ['labR/alice'], after: ['labR/alice', 'labR/bob'] },
    gestionnaires: { after: [7, 8] },
    // An entry of before 2026-11-27, under the legacy name.
    auteurs: { before: ['labR/carol'] },
    categories: { before: [7], after: [5] },
  };

  it('pseudonymises those older than the period: actor and persons gone, what changed kept', async () => {
    const now = testNow();
    const cutoff = cutoffBefore(now, 365);
    const outside = await makeAuditEntry(new Date(cutoff.getTime() - SECOND), changes);
    const inside = await makeAuditEntry(new Date(cutoff.getTime() + SECOND), changes);
    const before = await db.auditEntry.findUniqueOrThrow({ where: { id: inside } });

    const dry = await purgePersonalData(settingsWith(), { now, dryRun: true });
    expect(dry.auditEntries).toEqual({ action: 'pseudonymise', afterDays: 365, count: expect.any(Number) });
    expect((await db.auditEntry.findUniqueOrThrow({ where: { id: outside } })).actorPid).toBe('labR/alice');

    const report = await purgePersonalData(settingsWith(), { now });
    expect(report.auditEntries.count).toBe(dry.auditEntries.count);
    expect(report.auditEntries.count).toBeGreaterThanOrEqual(1);
    const purged = await db.auditEntry.findUniqueOrThrow({ where: { id: outside } });
    expect(purged).toMatchObject({
      actorKind: 'person',
      actorOid: null,
      actorPid: null,
      actorLabel: null,
      action: 'updated',
      entityKind: 'resource',
      entityId: 42,
      pseudonymisedAt: now,
      changes: {
        titre: { before: `Écrit par ${PSEUDONYMISED}`, after: 'Sans adresse' },
        authors: { before: PSEUDONYMISED, after: PSEUDONYMISED },
        gestionnaires: { after: PSEUDONYMISED },
        auteurs: { before: PSEUDONYMISED },
        categories: { before: [7], after: [5] },
      },
    });
    expect(await db.auditEntry.findUniqueOrThrow({ where: { id: inside } })).toEqual(before);
    // Done once: the next round finds nothing more to do.
    expect((await purgePersonalData(settingsWith(), { now })).auditEntries.count).toBe(0);
  });

  it('deletes those older than the period when the setting says delete', async () => {
    const now = testNow();
    const cutoff = cutoffBefore(now, 30);
    const outside = await makeAuditEntry(new Date(cutoff.getTime() - SECOND), changes);
    const inside = await makeAuditEntry(new Date(cutoff.getTime() + SECOND), changes);
    const settings = settingsWith({ auditEntries: { afterDays: 30, action: 'delete' } });

    const report = await purgePersonalData(settings, { now });
    expect(report.auditEntries).toMatchObject({ action: 'delete', afterDays: 30 });
    expect(report.auditEntries.count).toBeGreaterThanOrEqual(1);
    const left = await db.auditEntry.findMany({ where: { id: { in: [outside, inside] } } });
    expect(left.map((entry) => entry.id)).toEqual([inside]);
    expect(left[0]!.actorPid).toBe('labR/alice');
  });

  it('pseudonymises by batches, every entry once, however many there are', async () => {
    const now = testNow();
    const old = new Date(cutoffBefore(now, 365).getTime() - DAY);
    await db.auditEntry.createMany({
      data: Array.from({ length: 1203 }, (_, i) => ({
        at: old,
        actorKind: 'person',
        actorPid: `labR/many${i}`,
        action: 'created',
        entityKind: 'group',
        entityId: i,
        changes: { nom: { after: `G${i}` }, gestionnaires: { after: [i] } },
      })),
    });
    await purgePersonalData(settingsWith(), { now });
    expect(await db.auditEntry.count({ where: { actorPid: { startsWith: 'labR/many' } } })).toBe(0);
    const sample = await db.auditEntry.findFirstOrThrow({
      where: { entityKind: 'group', entityId: 1202, at: old },
    });
    expect(sample.changes).toEqual({ nom: { after: 'G1202' }, gestionnaires: { after: PSEUDONYMISED } });
  });
});

describe('stale persons', () => {
  /** Persons around the cutoff of `afterDays` before `now`, and which of them are stale. */
  async function cast(now: Date, afterDays: number) {
    const cutoff = cutoffBefore(now, afterDays);
    const justOutside = new Date(cutoff.getTime() - SECOND);
    const justInside = new Date(cutoff.getTime() + SECOND);
    const longAgo = new Date(cutoff.getTime() - 400 * DAY);
    const idle = await makePerson({ createdAt: longAgo, lastLoginAt: justOutside });
    const recent = await makePerson({ createdAt: longAgo, lastLoginAt: justInside });
    const neverLoggedIn = await makePerson({ createdAt: justOutside });
    const newcomer = await makePerson({ createdAt: justInside });
    const author = await makePerson({ createdAt: longAgo, lastLoginAt: justOutside });
    await authorResource(author.oid);
    const manager = await makePerson({ createdAt: longAgo });
    const name = unique();
    const group = await db.group.create({ data: { nom: `Retention ${name}`, nomKey: `retention ${name}` } });
    await db.groupManager.create({ data: { groupOid: group.oid, personOid: manager.oid, position: 0 } });
    return {
      stale: [idle.pid, neverLoggedIn.pid],
      kept: [recent.pid, newcomer.pid, author.pid, manager.pid],
    };
  }

  /** An erasure that records the pids it receives. */
  function recordingErasure() {
    const calls: string[][] = [];
    return {
      calls,
      erase: async (pids: string[]) => {
        calls.push(pids);
      },
    };
  }

  it('lists persons without login for the period (or since created) who authored nothing, erasing nobody by default', async () => {
    const now = testNow();
    const { stale, kept } = await cast(now, 90);
    const erasure = recordingErasure();
    const report = await purgePersonalData(settingsWith(), { now, erase: erasure.erase });
    expect(report.stalePersons).toMatchObject({ action: 'list', afterDays: 90, erased: 0 });
    expect(report.stalePersons.found).toBeGreaterThanOrEqual(stale.length);
    expect(erasure.calls).toEqual([]);
    expect(await db.person.count({ where: { pid: { in: [...stale, ...kept] } } })).toBe(6);
  });

  it('hands the stale pids to the erasure when the setting says erase, and only then', async () => {
    const now = testNow();
    const { stale, kept } = await cast(now, 90);
    const settings = settingsWith({ stalePersons: { afterDays: 90, action: 'erase' } });
    const erasure = recordingErasure();

    await purgePersonalData(settings, { now, erase: erasure.erase, dryRun: true });
    expect(erasure.calls).toEqual([]);

    const report = await purgePersonalData(settings, { now, erase: erasure.erase });
    expect(erasure.calls).toHaveLength(1);
    const handed = erasure.calls[0]!;
    expect(handed).toEqual(expect.arrayContaining(stale));
    for (const pid of kept) expect(handed).not.toContain(pid);
    expect(report.stalePersons).toMatchObject({
      action: 'erase',
      erased: handed.length,
      erasureAvailable: true,
    });

    const without = await purgePersonalData(settings, { now });
    expect(without.stalePersons).toMatchObject({ erased: 0, erasureAvailable: false });
  });

  it('finds them through an index on the login and creation times, never by reading every person', async () => {
    const statements: { sql: string; params: unknown[] }[] = [];
    const stop = onStatement((sql, params) => statements.push({ sql, params: JSON.parse(params || '[]') }));
    await listStalePersons(cutoffBefore(testNow(), 90));
    stop();
    const main = statements.find(({ sql }) => /FROM \S*Person\b/.test(sql));
    expect(main, statements.map(({ sql }) => sql).join('\n')).toBeDefined();
    const text = main!.sql.replace(/^\/\* prepared \*\/ /, '');
    if (provider === 'postgresql') {
      // Without a plain or index scan to fall back on, only an index matching the filter avoids
      // reading the whole table (a tiny table would otherwise be read whole, rightly).
      const plan = await db.$transaction(async (tx) => {
        await tx.$executeRawUnsafe('SET LOCAL enable_seqscan = off');
        await tx.$executeRawUnsafe('SET LOCAL enable_indexscan = off');
        const rows = await tx.$queryRawUnsafe<{ 'QUERY PLAN': string }[]>(`EXPLAIN ${text}`, ...main!.params);
        return rows.map((row) => row['QUERY PLAN']).join('\n');
      });
      expect(plan).not.toMatch(/Seq Scan on "Person"/);
      expect(plan).toMatch(/Person_lastLoginAt_createdAt_idx/);
    } else {
      const rows = await db.$queryRawUnsafe<{ detail: string }[]>(
        `EXPLAIN QUERY PLAN ${text}`,
        ...main!.params,
      );
      const plan = rows.map((row) => row.detail).join('\n');
      expect(plan).not.toMatch(/SCAN (main\.)?Person\b(?! USING)/);
      expect(plan).toMatch(/Person_lastLoginAt_createdAt_idx/);
    }
  });
});

describe('the lease', () => {
  it('lets two instances purging at once delete each row once and keep the others', async () => {
    const now = testNow();
    const expired = await Promise.all(
      Array.from({ length: 20 }, () => makeSession(new Date(now.getTime() - SECOND))),
    );
    const kept = await Promise.all(
      Array.from({ length: 5 }, () => makeSession(new Date(now.getTime() + DAY))),
    );
    const cutoff = cutoffBefore(now, 365);
    const oldEntries = await Promise.all(
      Array.from({ length: 10 }, () => makeAuditEntry(new Date(cutoff.getTime() - SECOND))),
    );
    const recentEntry = await makeAuditEntry(new Date(cutoff.getTime() + SECOND));
    const expectedSessions = await db.session.count({ where: { expiresAt: { lt: now } } });
    const expectedEntries = await db.auditEntry.count({
      where: { at: { lt: cutoff }, pseudonymisedAt: null },
    });
    const settings = settingsWith();

    const reports = await Promise.all(
      ['instance-a', 'instance-b'].map((holder) => runPurgeRound({ settings, holder, now })),
    );
    const ran = reports.filter((report) => report !== null);
    expect(ran.length).toBeGreaterThanOrEqual(1);
    expect(ran.reduce((sum, report) => sum + report.sessions, 0)).toBe(expectedSessions);
    expect(ran.reduce((sum, report) => sum + report.auditEntries.count, 0)).toBe(expectedEntries);
    expect(await db.session.count({ where: { sid: { in: expired } } })).toBe(0);
    expect(await db.session.count({ where: { sid: { in: kept } } })).toBe(kept.length);
    expect(await db.auditEntry.count({ where: { id: { in: oldEntries }, pseudonymisedAt: now } })).toBe(10);
    expect((await db.auditEntry.findUniqueOrThrow({ where: { id: recentEntry } })).actorPid).toBe(
      'labR/alice',
    );
    expect(await leaseOf(PURGE_LEASE)).toMatchObject({ holder: null });
  });

  it('runs one round at a time: while one holds the lease, the other skips its round', async () => {
    const now = testNow();
    await makeSession(new Date(now.getTime() - SECOND));
    await makePerson({ createdAt: new Date(cutoffBefore(now, 90).getTime() - DAY) });
    const settings = settingsWith({ stalePersons: { afterDays: 90, action: 'erase' } });
    let release: () => void = () => {};
    let entered: () => void = () => {};
    const inside = new Promise<void>((resolve) => {
      entered = resolve;
    });
    // The first round's erasure waits: its round holds the lease meanwhile.
    const erase = () =>
      new Promise<void>((resolve) => {
        release = resolve;
        entered();
      });
    const first = runPurgeRound({ settings, holder: 'instance-a', now, erase });
    await inside;
    expect(await leaseOf(PURGE_LEASE)).toMatchObject({ holder: 'instance-a' });
    expect(await runPurgeRound({ settings, holder: 'instance-b', now })).toBeNull();
    release();
    expect(await first).toMatchObject({ stalePersons: { erased: expect.any(Number) } });
    expect(await leaseOf(PURGE_LEASE)).toMatchObject({ holder: null });
    expect(await runPurgeRound({ settings, holder: 'instance-b', now })).toMatchObject({ sessions: 0 });
  });

  it('is taken over once a crashed holder’s lease expires, not before', async () => {
    const settings = settingsWith();
    const now = testNow();
    const sid = await makeSession(new Date(now.getTime() - SECOND));
    expect(await takeLease(PURGE_LEASE, 'crashed', 60 * SECOND)).toBe(true);
    expect(await runPurgeRound({ settings, holder: 'instance-b', now })).toBeNull();
    expect(await db.session.count({ where: { sid } })).toBe(1);

    await db.jobLease.update({
      where: { name: PURGE_LEASE },
      data: { expiresAt: new Date(Date.now() - SECOND) },
    });
    const report = await runPurgeRound({ settings, holder: 'instance-b', now });
    expect(report?.sessions).toBeGreaterThanOrEqual(1);
    expect(await db.session.count({ where: { sid } })).toBe(0);
  });
});

describe('the purge job', () => {
  it('runs a round at start and logs its counts only, and stops cleanly', async () => {
    const lines: Record<string, unknown>[] = [];
    const logger = createLogger(
      'info',
      new Writable({
        write(chunk, _encoding, done) {
          for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
          done();
        },
      }),
    );
    const person = await makePerson({ createdAt: new Date(Date.now() - 400 * DAY) });
    const config = parseConfig({
      baseId: 'repo',
      baseUrl: 'http://repo.test/',
      listeMax: 1000,
      privacy: { retention: { purgeIntervalSeconds: 3600 } },
    });
    const job = startPurgeJob(
      { config, logger, database: new DatabaseAvailability(logger, ping) },
      { holder: newLeaseHolder() },
    );
    await job.stop();
    const line = lines.find((logged) => logged.msg === 'retention purge');
    expect(line).toMatchObject({
      level: 30,
      sessions: expect.any(Number),
      rateLimits: expect.any(Number),
      auditEntries: expect.any(Number),
      stalePersons: expect.any(Number),
      erasedPersons: 0,
    });
    expect(JSON.stringify(lines)).not.toContain(person.pid);
  });

  it('of two instances started together purges each row once, and warns when erase has no erasure', async () => {
    const now = Date.now();
    const expired = await Promise.all(Array.from({ length: 12 }, () => makeSession(new Date(now - SECOND))));
    const kept = await makeSession(new Date(now + DAY));
    const stale = await makePerson({ createdAt: new Date(now - 400 * DAY) });
    const expectedSessions = await db.session.count({ where: { expiresAt: { lt: new Date() } } });
    const config = parseConfig({
      baseId: 'repo',
      baseUrl: 'http://repo.test/',
      listeMax: 1000,
      privacy: { retention: { purgeIntervalSeconds: 3600, stalePersons: { action: 'erase' } } },
    });
    const instances = ['instance-a', 'instance-b'].map((holder) => {
      const lines: Record<string, unknown>[] = [];
      const logger = createLogger(
        'info',
        new Writable({
          write(chunk, _encoding, done) {
            for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
            done();
          },
        }),
      );
      const job = startPurgeJob(
        { config, logger, database: new DatabaseAvailability(logger, ping) },
        { holder },
      );
      return { job, lines };
    });
    await Promise.all(instances.map(({ job }) => job.stop()));
    const rounds = instances.flatMap(({ lines }) => lines.filter((line) => line.msg === 'retention purge'));
    expect(rounds.length).toBeGreaterThanOrEqual(1);
    expect(rounds.reduce((sum, line) => sum + (line.sessions as number), 0)).toBe(expectedSessions);
    expect(await db.session.count({ where: { sid: { in: expired } } })).toBe(0);
    expect(await db.session.count({ where: { sid: kept } })).toBe(1);
    // Nobody erased without an erasure, and said so, without naming anyone.
    expect(await db.person.count({ where: { pid: stale.pid } })).toBe(1);
    const warnings = instances.flatMap(({ lines }) => lines.filter((line) => line.level === 40));
    expect(warnings[0]?.msg).toMatch(
      /^stale persons not erased: privacy\.retention\.stalePersons\.action is erase/,
    );
    expect(JSON.stringify(instances.map(({ lines }) => lines))).not.toContain(stale.pid);
  });

  it('runs no round when the interval is 0', async () => {
    const config = parseConfig({
      baseId: 'repo',
      baseUrl: 'http://repo.test/',
      listeMax: 1000,
      privacy: { retention: { purgeIntervalSeconds: 0 } },
    });
    const logger = createLogger('silent');
    await takeLease(PURGE_LEASE, 'watcher', 60 * SECOND);
    const job = startPurgeJob({ config, logger, database: new DatabaseAvailability(logger, ping) });
    await job.stop();
    expect(await leaseOf(PURGE_LEASE)).toMatchObject({ holder: 'watcher' });
    await db.jobLease.update({
      where: { name: PURGE_LEASE },
      data: { holder: null, expiresAt: new Date(0) },
    });
  });
});
