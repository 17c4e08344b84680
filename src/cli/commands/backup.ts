/**
 * `rrs backup [file]` and `rrs restore <file>`: the configuration's database saved and put back with
 * each provider's own tools (src/db/backup.ts, docs/operations.md#backup-and-restore). Neither
 * migrates: a backup is taken as the database is, and a restore puts back what was saved. Both
 * print one JSON line: rows per table and a checksum of every resource, equal after a round trip.
 */
import type { Command } from 'commander';
import {
  BackupFailed,
  backup,
  defaultBackupFile,
  RestoreRefused,
  restore,
  summarize,
} from '../../db/backup.ts';
import { redact } from '../../db/database-url.ts';
import { DatabaseUnreachableError } from '../../db/wait.ts';
import { CliError, cliConfig, output, unusableDatabase } from '../context.ts';

/** A refused restore or a failed dump: the command failed (1); a database it cannot use: 3. */
function failureOf(databaseUrl: string, error: unknown): unknown {
  if (error instanceof RestoreRefused || error instanceof BackupFailed) return new CliError(error.message);
  if (error instanceof DatabaseUnreachableError) return unusableDatabase(databaseUrl, error);
  return error;
}

export function registerBackupCommands(program: Command): void {
  program
    .command('backup')
    .description(
      'back up the database: pg_dump (custom format) or SQLite’s online backup, safe while the service runs',
    )
    .argument('[file]', 'the file to write (default data/backups/<time>.dump, or .db for SQLite)')
    .action(async (file: string | undefined, _options: unknown, command: Command) => {
      const { databaseUrl } = cliConfig();
      const target = file ?? defaultBackupFile(databaseUrl);
      const summary = await backup(databaseUrl, target).catch((error: unknown) => {
        throw failureOf(databaseUrl, error);
      });
      const result = { backup: target, from: redact(databaseUrl), ...summary };
      output(command, result, () => JSON.stringify(result));
    });

  program
    .command('restore')
    .description(
      'replace the database by a backup (stop every instance first); refuses a file that is not a backup of this kind of database, changing nothing',
    )
    .argument('<file>', 'a file `rrs backup` wrote')
    .action(async (file: string, _options: unknown, command: Command) => {
      const { databaseUrl } = cliConfig();
      const restored = await restore(file, databaseUrl)
        .then(() => summarize(databaseUrl))
        .catch((error: unknown) => {
          throw failureOf(databaseUrl, error);
        });
      const result = { restored: file, into: redact(databaseUrl), ...restored };
      output(command, result, () => JSON.stringify(result));
    });
}
