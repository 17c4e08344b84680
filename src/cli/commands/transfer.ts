/**
 * `import <file> [--dry-run]` and `export <file>`: moving a repository in from the previous service
 * and out again (src/transfer/, docs/import-export.md). Progress goes to stdout: a bar (counts,
 * rate, time left) on a terminal, a plain line every few seconds otherwise (logs, CI); the summary
 * is one JSON line at the end, the problems before it. With `--json`, the summary alone, as a JSON
 * document. Only a real import writes (and migrates first); a dry run and an export read.
 */
import cliProgress from 'cli-progress';
import type { Command } from 'commander';
import { contentChanges } from '../../db/content-changes.ts';
import { writePrivateFile } from '../../db/private-files.ts';
import { exportFile } from '../../transfer/export.service.ts';
import {
  type ImportProgress,
  type ImportReport,
  importFile,
  TransferFormatError,
} from '../../transfer/import.service.ts';
import { CliError, output, print, wantsJson, withService } from '../context.ts';

const PLAIN_EVERY_MS = 5000;
/** Problems printed one per line; the rest only in the report file. */
const PRINTED_PROBLEMS = 50;

interface Progress {
  update(done: number, total: number | undefined): void;
  stop(): void;
}

/** A progress display for one phase: a bar on a terminal, periodic lines elsewhere. */
function progressFor(command: Command, label: string): Progress {
  const started = Date.now();
  if (wantsJson(command)) return { update() {}, stop() {} };
  if (process.stdout.isTTY) {
    const bar = new cliProgress.SingleBar(
      {
        format: `${label.padEnd(20)} {bar} {value}/{total} | {rate}/s | left {eta_formatted}`,
        hideCursor: true,
      },
      cliProgress.Presets.shades_classic,
    );
    let begun = false;
    return {
      update(done, total) {
        const rate = Math.round(done / Math.max((Date.now() - started) / 1000, 0.001));
        if (!begun) {
          bar.start(total ?? done, done, { rate });
          begun = true;
        } else {
          bar.setTotal(total ?? Math.max(done, bar.getTotal()));
          bar.update(done, { rate });
        }
      },
      stop: () => {
        if (begun) bar.stop();
      },
    };
  }
  // The first line comes after a first interval, not at once: a phase shorter than that prints
  // only its final count (at once, the first count would often be the final one, printed twice).
  let last = started;
  let latest = { done: 0, total: undefined as number | undefined };
  let printed: typeof latest | undefined;
  const line = () => {
    if (printed?.done === latest.done && printed.total === latest.total) return;
    printed = latest;
    const seconds = (Date.now() - started) / 1000;
    const { done, total } = latest;
    print(
      command,
      `${label}: ${done}${total !== undefined ? `/${total}` : ''} (${Math.round(done / Math.max(seconds, 0.001))}/s)`,
    );
  };
  return {
    update(done, total) {
      latest = { done, total };
      if (Date.now() - last < PLAIN_EVERY_MS) return;
      last = Date.now();
      line();
    },
    stop: line,
  };
}

/**
 * Expected failures of a transfer (a file of the wrong format or baseId, a file that cannot be read
 * or written) as the tool's one-line failures; anything else as it is.
 */
function asCommandFailure(error: unknown): unknown {
  if (error instanceof TransferFormatError) return new CliError(error.message);
  if (typeof (error as NodeJS.ErrnoException).syscall === 'string')
    return new CliError((error as Error).message);
  return error;
}

function printProblems(command: Command, report: ImportReport) {
  for (const [title, problems] of [
    ['skipped', report.skipped],
    ['warning', report.warnings],
  ] as const) {
    for (const problem of problems.slice(0, PRINTED_PROBLEMS)) {
      const id = problem.id !== undefined ? ` ${problem.id}` : '';
      print(command, `${title} line ${problem.line} (${problem.kind}${id}): ${problem.message}`);
    }
    if (problems.length > PRINTED_PROBLEMS) {
      print(command, `… and ${problems.length - PRINTED_PROBLEMS} more (${title}): see --report`);
    }
  }
}

/** One progress display per phase of an import, the previous phase's stopped when the next begins. */
function importProgress(command: Command) {
  const phases = new Map<ImportProgress['phase'], Progress>();
  let current: Progress | undefined;
  return {
    update: ({ phase, done, total }: ImportProgress) => {
      let display = phases.get(phase);
      if (!display) {
        current?.stop();
        display = progressFor(command, phase);
        phases.set(phase, display);
        current = display;
      }
      display.update(done, total);
    },
    stop: () => current?.stop(),
  };
}

/** The problems of an import (unless `--json`), then its summary: counts, and problems counted. */
function printImportReport(command: Command, report: ImportReport, dryRun: boolean) {
  const { skipped, warnings, ...counts } = report;
  const summary = { ...counts, skipped: skipped.length, warnings: warnings.length };
  const changed = ['persons', 'groups', 'resources'].some((kind) => {
    const kindCounts = report[kind as 'persons'];
    return kindCounts.created + kindCounts.updated > 0;
  });
  if (!wantsJson(command)) printProblems(command, report);
  output(command, summary, () =>
    [
      changed
        ? dryRun
          ? 'Dry run: nothing was written.'
          : 'Import done.'
        : 'Nothing to change: the database holds everything the file describes.',
      JSON.stringify(summary),
    ].join('\n'),
  );
}

async function runImport(file: string, options: { dryRun?: boolean; report?: string }, command: Command) {
  const dryRun = options.dryRun ?? false;
  await withService(
    async ({ config, logger }) => {
      // Running instances drop the answers they keep once this process's writes are committed.
      if (!dryRun) await contentChanges.listen({ logger, databaseUrl: config.databaseUrl });
      try {
        const progress = importProgress(command);
        const report = await importFile(file, {
          baseId: config.baseId,
          roleNames: Object.keys(config.roles),
          dryRun,
          onProgress: progress.update,
        }).catch((error: unknown) => {
          throw asCommandFailure(error);
        });
        progress.stop();
        if (options.report) await writePrivateFile(options.report, `${JSON.stringify(report, null, 2)}\n`);
        printImportReport(command, report, dryRun);
      } finally {
        await contentChanges.stop();
      }
    },
    { access: dryRun ? 'read' : 'write' },
  );
}

async function runExport(file: string, _options: unknown, command: Command) {
  await withService(
    async ({ config }) => {
      const progress = progressFor(command, 'resources');
      const report = await exportFile(file, {
        baseId: config.baseId,
        onProgress: ({ done, total }) => progress.update(done, total),
      }).catch((error: unknown) => {
        throw asCommandFailure(error);
      });
      progress.stop();
      output(command, report, () => JSON.stringify(report));
    },
    { access: 'read' },
  );
}

export function registerTransferCommands(program: Command): void {
  program
    .command('import')
    .description('import a transfer file (JSON Lines) of the previous service; a second run changes nothing')
    .argument('<file>', 'transfer file, as written by export')
    .option('--dry-run', 'compare and report, write nothing')
    .option('--report <file>', 'write the whole report (every skipped record and warning) as JSON')
    .action(runImport);

  program
    .command('export')
    .description('export persons, groups and resources to a transfer file (JSON Lines)')
    .argument('<file>', 'file to write (replaced once complete)')
    .action(runExport);
}
