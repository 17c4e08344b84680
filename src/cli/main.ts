#!/usr/bin/env node
/**
 * The command-line tool's entry (`npx rrs <command>`, `npm run cli -- <command>`): the program
 * itself is ./program.ts.
 */
import { runCli } from './program.ts';

process.exitCode = await runCli(process.argv);
