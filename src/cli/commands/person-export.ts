/**
 * `rrs person export <pid> [--output file]`: everything the service holds about a person (GDPR
 * access and portability), the document of GraphQL's `personalDataExport` and
 * `GET /api/personne/export` as JSON. Reads only: applies no migration.
 */
import { randomBytes } from 'node:crypto';
import { rename, rm, writeFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { exportPersonalData } from '../../modules/privacy/export.service.ts';
import { output, print, withService } from '../context.ts';

/**
 * Writes `text` to `file`, readable by its owner only (0600), whatever was there: a temporary file
 * created with that mode beside it, then renamed over it, so the data is never in a file anyone
 * else may read, and a failed write leaves no half document.
 */
async function writePrivateFile(file: string, text: string): Promise<void> {
  const temporary = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    await writeFile(temporary, text, { mode: 0o600, flag: 'wx' });
    await rename(temporary, file);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

export function registerPersonExportCommand(person: Command): void {
  person
    .command('export')
    .description(
      'export everything the service holds about a person (GDPR access request), as the JSON document of GET /api/personne/export',
    )
    .argument('<pid>', 'the person’s pid')
    .option('--output <file>', 'write the document to this file (mode 0600) instead of stdout')
    .action(async (pid: string, options: { output?: string }, command: Command) =>
      withService(
        async ({ config }) => {
          const document = await exportPersonalData(pid, config);
          const json = JSON.stringify(document, null, 2);
          if (!options.output) {
            print(command, json);
            return;
          }
          await writePrivateFile(options.output, `${json}\n`);
          const written = { pid: document.person.pid, file: options.output };
          output(
            command,
            written,
            () => `wrote the personal data of ${pid} to ${options.output} (mode 0600)`,
          );
        },
        { access: 'read' },
      ),
    );
}
