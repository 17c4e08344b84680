/**
 * Retention from the command line, run in this process as `rrs` would run: `purge` prints what it
 * purged per kind (with `--dry-run`, what it would, changing nothing) and waits its turn behind an
 * instance holding the lease; `person stale` lists persons without login for the period who
 * authored nothing; `config check` refuses wrong retention and logging settings.
 */
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { db } from '../../src/db/client.ts';
import { PURGE_LEASE, releaseLease, takeLease } from '../../src/modules/privacy/purge-job.ts';
import { rrsInProcess } from '../support/cli.ts';
import { scratchDir } from '../support/scratch.ts';

const DAY = 24 * 60 * 60 * 1000;
const unique = () => randomUUID().slice(0, 8);
const daysAgo = (days: number) => new Date(Date.now() - days * DAY);

async function rrs(...args: string[]) {
  return rrsInProcess(args);
}

async function makePerson(pid: string, times: { createdAt: Date; lastLoginAt?: Date }) {
  return db.person.create({ data: { pid, nom: 'Nom', prenom: 'Prénom', ...times } });
}

describe('rrs purge', () => {
  it('prints per kind what a dry run would purge, changing nothing, then what the purge did', async () => {
    const sid = `cli-${unique()}`;
    await db.session.create({ data: { id: sid, sid, data: '{}', expiresAt: daysAgo(1) } });
    const entry = await db.auditEntry.create({
      data: {
        at: daysAgo(400),
        actorKind: 'person',
        actorPid: 'labC/old',
        action: 'deleted',
        entityKind: 'group',
        entityId: 1,
        changes: { nom: { before: 'Ancien' } },
      },
    });

    const dry = await rrs('purge', '--dry-run');
    expect(dry.code, dry.stderr).toBe(0);
    const dryLines = dry.stdout.trimEnd().split('\n');
    expect(dryLines).toHaveLength(4);
    expect(dryLines[0]).toMatch(/^sessions: [1-9]\d* expired sessions? would be deleted$/);
    expect(dryLines[1]).toMatch(/^rate limits: \d+ expired counters? would be deleted$/);
    expect(dryLines[2]).toMatch(
      /^audit entries: [1-9]\d* (entry|entries) older than 365 days would be pseudonymised$/,
    );
    expect(dryLines[3]).toMatch(
      /^stale persons: \d+ persons? without login for 90 days and nothing authored, listed for review \(rrs person stale\); erasure is off$/,
    );
    expect(await db.session.count({ where: { sid } })).toBe(1);
    expect((await db.auditEntry.findUniqueOrThrow({ where: { id: entry.id } })).actorPid).toBe('labC/old');

    const purged = await rrs('purge', '--json');
    expect(purged.code, purged.stderr).toBe(0);
    const report = JSON.parse(purged.stdout);
    expect(report).toMatchObject({
      dryRun: false,
      auditEntries: { action: 'pseudonymise', afterDays: 365 },
      stalePersons: { action: 'list', afterDays: 90, erased: 0 },
    });
    expect(report.sessions).toBeGreaterThanOrEqual(1);
    expect(report.auditEntries.count).toBeGreaterThanOrEqual(1);
    expect(await db.session.count({ where: { sid } })).toBe(0);
    expect(await db.auditEntry.findUniqueOrThrow({ where: { id: entry.id } })).toMatchObject({
      actorPid: null,
      changes: { nom: { before: 'Ancien' } },
    });

    const again = await rrs('purge');
    expect(again.stdout).toMatch(/^sessions: 0 expired sessions deleted$/m);
    expect(again.stdout).toMatch(/^audit entries: 0 entries older than 365 days pseudonymised$/m);
  });

  it('refuses to run beside an instance holding the lease (a dry run still counts), exit code 1', async () => {
    const sid = `cli-${unique()}`;
    await db.session.create({ data: { id: sid, sid, data: '{}', expiresAt: daysAgo(1) } });
    expect(await takeLease(PURGE_LEASE, 'instance-elsewhere', 60_000)).toBe(true);
    try {
      const refused = await rrs('purge');
      expect(refused).toMatchObject({ code: 1, stdout: '' });
      expect(refused.stderr).toMatch(
        /^rrs: Another instance is purging \(instance-elsewhere, lease until \S+Z\)/,
      );
      expect(await db.session.count({ where: { sid } })).toBe(1);
      expect((await rrs('purge', '--dry-run')).code).toBe(0);
    } finally {
      await releaseLease(PURGE_LEASE, 'instance-elsewhere');
    }
    expect((await rrs('purge')).code).toBe(0);
    expect(await db.session.count({ where: { sid } })).toBe(0);
  });
});

describe('rrs purge with stalePersons.action erase', () => {
  it('erases the stale persons, as the service’s purge job does, and says how many', async () => {
    const pid = `labC/idle-${unique()}`;
    await makePerson(pid, { createdAt: daysAgo(300), lastLoginAt: daysAgo(100) });
    const file = join(scratchDir('retention-erase'), `${unique()}.json`);
    writeFileSync(
      file,
      JSON.stringify({
        baseId: 'local',
        listeMax: 1000,
        privacy: { retention: { stalePersons: { action: 'erase' } } },
      }),
    );
    const dry = await rrsInProcess(['purge', '--dry-run'], { CONFIG_FILE: file });
    expect(dry.stdout).toMatch(
      /^stale persons: [1-9]\d* persons? without login for 90 days and nothing authored, to be erased$/m,
    );
    const run = await rrsInProcess(['purge'], { CONFIG_FILE: file });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(
      /^stale persons: ([1-9]\d*) persons? without login for 90 days and nothing authored, \1 erased$/m,
    );
    expect(await db.person.count({ where: { pid } })).toBe(0);
    // Each erasure is audited, asked by the purge.
    const erasures = await db.auditEntry.findMany({
      where: { action: 'erased', actorLabel: 'retention purge' },
    });
    expect(erasures.length).toBeGreaterThan(0);
  });
});

describe('rrs person stale', () => {
  it('lists persons without login for the period (or since created) who authored nothing', async () => {
    const tag = unique();
    const idle = await makePerson(`labC/idle-${tag}`, { createdAt: daysAgo(300), lastLoginAt: daysAgo(100) });
    const never = await makePerson(`labC/never-${tag}`, { createdAt: daysAgo(120) });
    const recent = await makePerson(`labC/recent-${tag}`, {
      createdAt: daysAgo(300),
      lastLoginAt: daysAgo(10),
    });
    const author = await makePerson(`labC/author-${tag}`, {
      createdAt: daysAgo(300),
      lastLoginAt: daysAgo(100),
    });
    const resource = await db.resource.create({
      data: { origine: 'repo', idOrigine: `r-${tag}`, type: 'url' },
    });
    await db.resourceAuthor.create({
      data: { resourceOid: resource.oid, personOid: author.oid, position: 0 },
    });
    const ours = (lines: string[]) => lines.filter((line) => line.includes(tag));

    const text = await rrs('person', 'stale');
    expect(text.code, text.stderr).toBe(0);
    expect(ours(text.stdout.split('\n'))).toEqual([
      `${idle.pid}  (oid ${idle.oid})  last login ${idle.lastLoginAt!.toISOString()}`,
      `${never.pid}  (oid ${never.oid})  never logged in, created ${never.createdAt.toISOString()}`,
    ]);
    expect(text.stdout).toMatch(/\d+ persons? without login for 90 days and nothing authored\.\n$/);

    const json = await rrs('person', 'stale', '--json', '--days', '110');
    const listed = JSON.parse(json.stdout) as { afterDays: number; persons: { pid: string }[] };
    expect(listed.afterDays).toBe(110);
    const pids = listed.persons.map((person) => person.pid);
    expect(pids).toContain(never.pid);
    for (const pid of [idle.pid, recent.pid, author.pid]) expect(pids).not.toContain(pid);

    const wrong = await rrs('person', 'stale', '--days', '0');
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/^rrs: --days: a positive whole number of days, got 0/);
  });
});

describe('rrs config check', () => {
  function configFile(settings: Record<string, unknown>): string {
    const file = join(scratchDir('retention-config'), `${unique()}.json`);
    writeFileSync(file, JSON.stringify({ baseId: 'local', listeMax: 1000, ...settings }));
    return file;
  }

  it('refuses wrong retention and logging settings, each named', async () => {
    const file = configFile({
      privacy: {
        retention: {
          purgeIntervalSeconds: -1,
          auditEntries: { afterDays: 0, action: 'anonymise' },
          stalePersons: { action: 'delete', afterDay: 90 },
        },
      },
      logging: { clientAddress: 'partial' },
    });
    const result = await rrsInProcess(['config', 'check'], { CONFIG_FILE: file });
    expect(result.code).toBe(1);
    for (const problem of [
      /^✗ configuration: privacy\.retention\.stalePersons\.afterDay: unknown setting; did you mean afterDays\?$/m,
      /^✗ configuration: privacy\.retention\.purgeIntervalSeconds: .+$/m,
      /^✗ configuration: privacy\.retention\.auditEntries\.afterDays: .+$/m,
      /^✗ configuration: privacy\.retention\.auditEntries\.action: .*"pseudonymise"\|"delete".*$/m,
      /^✗ configuration: privacy\.retention\.stalePersons\.action: .*"list"\|"erase".*$/m,
      /^✗ configuration: logging\.clientAddress: .*"full"\|"truncated"\|"none".*$/m,
    ]) {
      expect(result.stdout).toMatch(problem);
    }
  });

  it('says what the retention settings will do', async () => {
    const file = configFile({
      privacy: { retention: { stalePersons: { action: 'erase' }, auditEntries: { action: 'delete' } } },
    });
    const result = await rrsInProcess(['--json', 'config', 'check'], { CONFIG_FILE: file });
    const { checks } = JSON.parse(result.stdout) as { checks: { subject: string; message: string }[] };
    expect(checks.find((check) => check.subject === 'privacy.retention')).toEqual({
      subject: 'privacy.retention',
      ok: true,
      level: 'note',
      message:
        'purge every 3600 s: expired sessions and rate-limit counters deleted, audit entries deleted after 365 days, stale persons erased after 90 days without login; client addresses in logs: truncated',
    });
  });
});
