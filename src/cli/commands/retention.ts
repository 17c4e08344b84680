/**
 * Retention from the command line (docs/privacy.md, "Retention"): `rrs purge [--dry-run]` runs
 * one purge round as the service does, under the same lease (so never beside a service's round),
 * and prints what it purged per kind; `rrs person stale` lists the persons past their period for
 * review. With `stalePersons.action` `erase`, a round erases them as the service's would.
 */
import type { Command } from 'commander';
import { staleErasure } from '../../modules/privacy/erasure.service.ts';
import { leaseOf, newLeaseHolder, PURGE_LEASE, runPurgeRound } from '../../modules/privacy/purge-job.ts';
import {
  cutoffBefore,
  listStalePersons,
  type PurgeReport,
  purgePersonalData,
} from '../../modules/privacy/retention.service.ts';
import { CliError, output, usage, withService } from '../context.ts';

const plural = (count: number, one: string, many = `${one}s`) => `${count} ${count === 1 ? one : many}`;

/** The report as lines: one per kind, saying what was done (or, in a dry run, would be). */
export function purgeLines(report: PurgeReport): string[] {
  const would = (done: string) => (report.dryRun ? `would be ${done}` : done);
  const { auditEntries: audit, stalePersons: stale } = report;
  const staleFate =
    stale.action === 'list'
      ? 'listed for review (rrs person stale); erasure is off'
      : report.dryRun
        ? 'to be erased'
        : `${stale.erased} erased`;
  return [
    `sessions: ${plural(report.sessions, 'expired session')} ${would('deleted')}`,
    `rate limits: ${plural(report.rateLimits, 'expired counter')} ${would('deleted')}`,
    `audit entries: ${plural(audit.count, 'entry', 'entries')} older than ${audit.afterDays} days ${would(audit.action === 'delete' ? 'deleted' : 'pseudonymised')}`,
    `stale persons: ${plural(stale.found, 'person')} without login for ${stale.afterDays} days and nothing authored, ${staleFate}`,
  ];
}

function registerPurge(program: Command): void {
  program
    .command('purge')
    .description(
      'purge personal data past its retention (privacy.retention): expired sessions and rate-limit counters, old audit entries; prints what it purged per kind',
    )
    .option('--dry-run', 'count what would be purged, changing nothing')
    .action(async (options: { dryRun?: boolean }, command: Command) =>
      withService(async ({ config, as }) => {
        const settings = config.privacy.retention;
        // A dry run writes nothing, so it needs no lease.
        const report = options.dryRun
          ? await purgePersonalData(settings, { dryRun: true })
          : await runPurgeRound({ settings, holder: `rrs ${newLeaseHolder()}`, erase: staleErasure(as()) });
        if (!report) {
          const lease = await leaseOf(PURGE_LEASE);
          throw new CliError(
            `Another instance is purging (${lease?.holder ?? 'unknown holder'}, lease until ${lease?.expiresAt.toISOString()}): try again once it is done`,
          );
        }
        output(command, report, () => purgeLines(report).join('\n'));
      }),
    );
}

function registerPersonStale(program: Command): void {
  // `person` is registered by ./person.ts; stale persons are this part's, so the subcommand lives here.
  const person =
    program.commands.find((candidate) => candidate.name() === 'person') ?? program.command('person');
  person
    .command('stale')
    .description(
      'list persons with no login for privacy.retention.stalePersons.afterDays days (never logged in: since created) who authored nothing, for review',
    )
    .option('--days <n>', 'no login for this many days instead of the configured afterDays')
    .action(async (options: { days?: string }, command: Command) => {
      const days = options.days === undefined ? undefined : Number(options.days);
      if (days !== undefined && (!Number.isInteger(days) || days < 1))
        usage(command, `--days: a positive whole number of days, got ${options.days}`);
      await withService(
        async ({ config }) => {
          const afterDays = days ?? config.privacy.retention.stalePersons.afterDays;
          const stale = await listStalePersons(cutoffBefore(new Date(), afterDays));
          output(command, { afterDays, persons: stale }, () =>
            [
              ...stale.map(
                (found) =>
                  `${found.pid}  (oid ${found.oid})  ${found.lastLoginAt ? `last login ${found.lastLoginAt.toISOString()}` : `never logged in, created ${found.createdAt.toISOString()}`}`,
              ),
              `${plural(stale.length, 'person')} without login for ${afterDays} days and nothing authored.`,
            ].join('\n'),
          );
        },
        { access: 'read' },
      );
    });
}

export function registerRetentionCommands(program: Command): void {
  registerPurge(program);
  registerPersonStale(program);
}
