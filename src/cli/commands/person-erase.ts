/**
 * `rrs person erase <pid> [--dry-run]`: erases a person's personal data (GDPR art. 17) through the
 * service `erasePerson` runs (src/modules/privacy/erasure.service.ts), as an operator; with
 * `--dry-run`, prints what would change and changes nothing.
 */
import type { Command } from 'commander';
import { operatorViewer } from '../../auth/viewer.ts';
import { actorOf } from '../../modules/audit/audit.service.ts';
import { type ErasureReport, erasePerson } from '../../modules/privacy/erasure.service.ts';
import { output, withService } from '../context.ts';

const oids = (list: number[]) => (list.length === 0 ? '—' : list.join(', '));

function humanReport(pid: string, report: ErasureReport): string {
  const counts = Object.entries(report.counts)
    .map(([kind, count]) => `    ${kind}: ${count}`)
    .join('\n');
  return [
    report.dryRun ? `dry run: erasing ${pid} would change (nothing was changed):` : `erased ${pid}:`,
    `  pseudonym: ${report.pseudonym ?? '(chosen by the first erasure)'}`,
    '  rows:',
    counts,
    `  resources kept: ${oids(report.resourcesKept)}`,
    `  resources handed over${report.successorPid ? ` to ${report.successorPid}` : ''}: ${oids(report.resourcesHandedOver)}`,
    `  resources deleted: ${oids(report.resourcesDeleted)}`,
    `  groups left without a manager: ${
      report.groupsWithoutManager.map((group) => `${group.nom} (oid ${group.oid})`).join(', ') || '—'
    }`,
  ].join('\n');
}

/** Adds `erase` to the `person` command group. */
export function registerPersonEraseCommand(person: Command): void {
  person
    .command('erase')
    .description(
      'erase a person’s personal data (GDPR art. 17); resources stay, the audit log keeps a pseudonym',
    )
    .argument('<pid>', 'the person’s pid')
    .option('--dry-run', 'print what would change, change nothing')
    .action(async (pid: string, options: { dryRun?: boolean }, command: Command) =>
      withService(async (cli) => {
        const report = await erasePerson(cli.as(), pid, {
          dryRun: options.dryRun ?? false,
          actor: { ...actorOf(operatorViewer, 'cli'), label: 'rrs person erase' },
        });
        output(command, report, () => humanReport(pid, report));
      }),
    );
}
