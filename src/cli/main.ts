#!/usr/bin/env node
/**
 * The command-line tool's entry (`npx rrs <command>`, `npm run cli -- <command>`, or
 * `node dist/cli/main.js <command>` with any `node`): on another Node.js than the service's, runs
 * itself again on the project's (node_modules/.bin/node), or says in one line which to use (exit
 * code 3), before loading any module that would fail on it. The program is ./program.ts.
 */
import { onServiceNode } from '../lifecycle/node-runtime.ts';

if (onServiceNode({ relaunch: true, exitCode: 3, prefix: 'rrs: the tool ' })) {
  const { runCli } = await import('./program.ts');
  process.exitCode = await runCli(process.argv);
}
