/**
 * `import <file> [--dry-run]` and `export <file>`: moving a repository in from the previous service
 * and out again (src/transfer/, docs/import-export.md). Self-contained: each command loads
 * the configuration and opens the database as the server does, and closes it whatever happens.
 * Progress goes to stdout: a bar (counts, rate, time left) on a terminal, a plain line every few
 * seconds otherwise (logs, CI); the summary is one JSON line at the end, the problems before it.
 */
import { writeFileSync } from 'node:fs';
import cliProgress from 'cli-progress';
import type { Command } from 'commander';
import { type Config, ConfigError, loadConfig } from '../../config.ts';
import { closeDatabase, openDatabase } from '../../db/client.ts';
import { contentChanges } from '../../db/content-changes.ts';
import { applyMigrations } from '../../db/migrate.ts';
import { createLogger } from '../../logging/logger.ts';
import { exportFile } from '../../transfer/export.service.ts';
import {
  type ImportProgress,
  type ImportReport,
  importFile,
  TransferFormatError,
} from '../../transfer/import.service.ts';

const PLAIN_EVERY_MS = 5000;
/** Problems printed one per line; the rest only in the report file. */
const PRINTED_PROBLEMS = 50;

interface Progress {
  update(done: number, total: number | undefined): void;
  stop(): void;
}

/** A progress display for one phase: a bar on a terminal, periodic lines elsewhere. */
function progressFor(label: string): Progress {
  const started = Date.now();
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
    console.log(
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

/** Runs `work` with the configuration and the open database; exit code 1 on failure, with one line. */
async function withDatabase(
  work: (config: Config) => Promise<void>,
  { migrate }: { migrate: boolean },
): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exitCode = 1;
      return;
    }
    throw error;
  }
  const logger = createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel);
  try {
    if (migrate) await applyMigrations(config.databaseUrl, logger);
    await openDatabase(config.databaseUrl);
    // Running instances drop the answers they keep once this process's writes are committed.
    await contentChanges.listen({ logger, databaseUrl: config.databaseUrl });
    await work(config);
  } catch (error) {
    // Expected failures (a bad file, a missing file) in one line; anything else with its stack.
    const expected =
      error instanceof TransferFormatError || typeof (error as { code?: unknown }).code === 'string';
    console.error(expected ? (error as Error).message : ((error as Error).stack ?? error));
    process.exitCode = 1;
  } finally {
    await contentChanges.stop();
    await closeDatabase().catch(() => {});
  }
}

function printProblems(report: ImportReport) {
  for (const [title, problems] of [
    ['skipped', report.skipped],
    ['warning', report.warnings],
  ] as const) {
    for (const problem of problems.slice(0, PRINTED_PROBLEMS)) {
      const id = problem.id !== undefined ? ` ${problem.id}` : '';
      console.log(`${title} line ${problem.line} (${problem.kind}${id}): ${problem.message}`);
    }
    if (problems.length > PRINTED_PROBLEMS) {
      console.log(`… and ${problems.length - PRINTED_PROBLEMS} more (${title}): see --report`);
    }
  }
}

export function registerTransferCommands(program: Command): void {
  program
    .command('import')
    .description('import a transfer file (JSON Lines) of the previous service; a second run changes nothing')
    .argument('<file>', 'transfer file, as written by export')
    .option('--dry-run', 'compare and report, write nothing')
    .option('--report <file>', 'write the whole report (every skipped record and warning) as JSON')
    .action(async (file: string, options: { dryRun?: boolean; report?: string }) => {
      await withDatabase(
        async (config) => {
          const phases = new Map<ImportProgress['phase'], Progress>();
          let current: Progress | undefined;
          const report = await importFile(file, {
            baseId: config.baseId,
            roleNames: Object.keys(config.roles),
            dryRun: options.dryRun ?? false,
            onProgress: ({ phase, done, total }) => {
              let display = phases.get(phase);
              if (!display) {
                current?.stop();
                display = progressFor(phase);
                phases.set(phase, display);
                current = display;
              }
              display.update(done, total);
            },
          });
          current?.stop();
          printProblems(report);
          if (options.report) writeFileSync(options.report, `${JSON.stringify(report, null, 2)}\n`);
          const { skipped, warnings, ...summary } = report;
          const changed = ['persons', 'groups', 'resources'].some((kind) => {
            const counts = report[kind as 'persons'];
            return counts.created + counts.updated > 0;
          });
          console.log(
            changed
              ? options.dryRun
                ? 'Dry run: nothing was written.'
                : 'Import done.'
              : 'Nothing to change: the database holds everything the file describes.',
          );
          console.log(JSON.stringify({ ...summary, skipped: skipped.length, warnings: warnings.length }));
        },
        { migrate: !options.dryRun },
      );
    });

  program
    .command('export')
    .description('export persons, groups and resources to a transfer file (JSON Lines)')
    .argument('<file>', 'file to write (replaced once complete)')
    .action(async (file: string) => {
      await withDatabase(
        async (config) => {
          const progress = progressFor('resources');
          const report = await exportFile(file, {
            baseId: config.baseId,
            onProgress: ({ done, total }) => progress.update(done, total),
          });
          progress.stop();
          console.log(JSON.stringify(report));
        },
        { migrate: false },
      );
    });
}
