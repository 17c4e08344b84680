#!/usr/bin/env node
/**
 * The command-line tool (`npm run cli -- <command>`, or `rrs <command>` once built): one
 * `register<Group>Commands` per file of src/cli/commands/; shared bootstrapping in ./context.ts.
 */
import { registerAuditCommands } from './commands/audit.ts';
import { registerConfigCommands } from './commands/config.ts';
import { registerDemoCommands } from './commands/demo.ts';
import { registerNotificationsCommands } from './commands/notifications.ts';
import { registerPersonCommands } from './commands/person.ts';
import { registerTokenCommands } from './commands/token.ts';
import { registerTransferCommands } from './commands/transfer.ts';
import { createProgram, runProgram } from './context.ts';

const program = createProgram();
registerConfigCommands(program);
registerPersonCommands(program);
registerTokenCommands(program);
registerDemoCommands(program);
registerNotificationsCommands(program);
registerTransferCommands(program);
registerAuditCommands(program);

process.exitCode = await runProgram(program, process.argv);
