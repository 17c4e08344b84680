/**
 * `rrs person export <pid> [--output file]`: everything the service holds about a person (GDPR
 * access and portability), the document of GraphQL's `personalDataExport` and
 * `GET /api/personne/export` as JSON. Reads only: applies no migration.
 */
import type { Command } from 'commander';
import { writePrivateFile } from '../../db/private-files.ts';
import { exportPersonalData } from '../../modules/privacy/export.service.ts';
import { output, print, withService } from '../context.ts';

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
