/**
 * The command-line tool's program: every command group registered on one commander program, and
 * the run that turns whatever happens into the documented exit code (docs/cli.md). The entry
 * (./main.ts) runs it on the process's arguments and streams; tests run it in their own process.
 */
import { registerAuditCommands } from './commands/audit.ts';
import { registerBackupCommands } from './commands/backup.ts';
import { registerConfigCommands } from './commands/config.ts';
import { registerDemoCommands } from './commands/demo.ts';
import { registerNotificationsCommands } from './commands/notifications.ts';
import { registerPersonCommands } from './commands/person.ts';
import { registerRetentionCommands } from './commands/retention.ts';
import { registerTokenCommands } from './commands/token.ts';
import { registerTransferCommands } from './commands/transfer.ts';
import { type CliOutput, createProgram, processOutput, runProgram } from './context.ts';

export function createCliProgram(output: CliOutput = processOutput) {
  const program = createProgram(output);
  registerConfigCommands(program);
  registerPersonCommands(program);
  registerTokenCommands(program);
  registerDemoCommands(program);
  registerNotificationsCommands(program);
  registerTransferCommands(program);
  registerAuditCommands(program);
  registerBackupCommands(program);
  registerRetentionCommands(program);
  return program;
}

/** Runs `rrs` on `argv` (node's: the program and script first); resolves to the exit code. */
export function runCli(argv: string[], output: CliOutput = processOutput): Promise<number> {
  return runProgram(createCliProgram(output), argv);
}
