/**
 * The Node.js the service runs on: the range package.json's `engines` admits (the version .nvmrc
 * names, which npm ci installs as node_modules/.bin/node on Linux x64). better-sqlite3 is compiled
 * for that major version: started by another, the service or the tool would load every module and
 * then die at its first statement with NODE_MODULE_VERSION and a stack.
 *
 * The process entries (src/server.ts, src/cli/main.ts) ask here before importing anything else,
 * and this module imports only Node.js's own modules and semver (plain JavaScript, npm's own range
 * rules), which every version since 18 runs: an entry started by any `node` reaches this check. The tool, started by hand, runs itself again on the
 * project's Node.js; the service refuses in one line, naming the command to use (a relaunching
 * parent would stand between a supervisor and the service: signals, kill -9, memory).
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import semver from 'semver';

/** Set in the environment of a relaunched process: it never relaunches again. */
const RELAUNCHED = 'RRS_RELAUNCHED_FROM';

/** Whether `version` is in `range`, as npm reads `engines`; no range (no package.json) admits any. */
const satisfies = (version: string, range: string) => !range || semver.satisfies(version, range);

export interface RuntimeFacts {
  /** The running Node.js: version (without `v`) and executable. */
  version: string;
  execPath: string;
  /** package.json's `engines.node`, e.g. `>=22.23 <23`. */
  engines: string;
  /** node_modules/.bin/node and its version, when the project has one. */
  projectNode?: { path: string; version: string };
  /** This process was started by a relaunch (by the Node.js named). */
  relaunchedFrom?: string;
}

export type Verdict =
  | { action: 'run' }
  | { action: 'relaunch'; node: string }
  | { action: 'refuse'; message: string };

/** The major version a range asks for, for people: `>=22.23 <23` → `22`. */
function wantedMajor(range: string): string {
  const lowest = semver.validRange(range) ? semver.minVersion(range) : null;
  return lowest ? String(lowest.major) : range;
}

/**
 * What an entry started by `facts.execPath` does: run, relaunch on the project's Node.js (when
 * `canRelaunch`), or refuse with a message naming what to use instead (`command`: how to start the
 * entry, e.g. `dist/server.js`).
 */
export function verdictFor(facts: RuntimeFacts, options: { canRelaunch: boolean; entry: string }): Verdict {
  if (satisfies(facts.version, facts.engines)) return { action: 'run' };
  const needs = `needs Node.js ${facts.engines} (package.json "engines"); this is Node.js ${facts.version} (${facts.execPath})`;
  const project = facts.projectNode;
  const usable = project && satisfies(project.version, facts.engines) && !facts.relaunchedFrom;
  if (usable && options.canRelaunch) return { action: 'relaunch', node: project.path };
  if (usable) {
    return {
      action: 'refuse',
      message: `${needs}: start it with ${project.path} ${options.entry}, or npm start`,
    };
  }
  const major = wantedMajor(facts.engines);
  if (project && facts.relaunchedFrom) {
    return {
      action: 'refuse',
      message: `${needs}, relaunched from ${facts.relaunchedFrom}: use Node.js ${major}`,
    };
  }
  const found = project
    ? `node_modules/.bin/node is Node.js ${project.version}`
    : 'the project has no node_modules/.bin/node';
  return {
    action: 'refuse',
    message: `${needs}, and ${found}: run npm ci (on Linux x64 it installs Node.js ${major} there), or use Node.js ${major} (nvm use)`,
  };
}

/** The checkout: two folders above this file, whether it runs from src/ or from dist/. */
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

function facts(): RuntimeFacts {
  let engines = '';
  try {
    engines = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).engines?.node ?? '';
  } catch {
    // No package.json beside the code: nothing to hold it to.
  }
  const current: RuntimeFacts = {
    version: process.versions.node,
    execPath: process.execPath,
    engines,
    relaunchedFrom: process.env[RELAUNCHED],
  };
  if (!engines || satisfies(current.version, engines)) return current;
  const path = join(root, 'node_modules', '.bin', 'node');
  if (!existsSync(path) || realpathSync(path) === realpathSync(process.execPath)) return current;
  try {
    const version = execFileSync(path, ['--version'], { encoding: 'utf8' }).trim().replace(/^v/, '');
    return { ...current, projectNode: { path, version } };
  } catch {
    return current;
  }
}

/** Runs this process's entry again on `node`, passing signals on, and ends with the child's status. */
function relaunch(node: string): void {
  const child = spawn(node, [...process.execArgv, ...process.argv.slice(1)], {
    stdio: 'inherit',
    env: { ...process.env, [RELAUNCHED]: process.execPath },
  });
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
  const forward = (signal: NodeJS.Signals) => child.kill(signal);
  for (const signal of signals) process.on(signal, forward);
  child.on('error', (error) => {
    console.error(`cannot run ${node}: ${error.message}`);
    process.exit(1);
  });
  child.on('exit', (code, signal) => {
    for (const name of signals) process.off(name, forward);
    // Ended by a signal: end the same way, so that whoever waits sees what happened.
    if (signal) process.kill(process.pid, signal);
    else process.exit(code ?? 1);
  });
}

/**
 * True when this process runs on a Node.js the service runs on and its entry may go on. Otherwise
 * it either runs the entry again on the project's Node.js (`relaunch`: the caller does nothing
 * more, this process ends with the child) or prints one line, `prefix` first, and exits with
 * `exitCode`.
 */
export function onServiceNode(options: { relaunch: boolean; exitCode: number; prefix: string }): boolean {
  const verdict = verdictFor(facts(), {
    canRelaunch: options.relaunch,
    entry: relative(process.cwd(), process.argv[1] ?? '') || (process.argv[1] ?? ''),
  });
  if (verdict.action === 'run') return true;
  if (verdict.action === 'relaunch') {
    relaunch(verdict.node);
    return false;
  }
  console.error(`${options.prefix}${verdict.message}`);
  process.exit(options.exitCode);
}
