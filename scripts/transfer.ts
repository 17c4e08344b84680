/**
 * Runner of the transfer commands until the service's CLI carries them (src/cli/commands/transfer.ts):
 *
 *   npm run import -- <file> [--dry-run] [--report <file>]
 *   npm run export -- <file>
 *
 * DATABASE_URL, CONFIG_FILE, BASE_ID… as for the server (docs/configuration.md, Run contract).
 */
import { Command } from 'commander';
import { registerTransferCommands } from '../src/cli/commands/transfer.ts';

const program = new Command('transfer').description('move data in from the previous service, or out');
registerTransferCommands(program);
await program.parseAsync(process.argv);
