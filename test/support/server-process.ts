/**
 * Real service processes: `node dist/server.js`, what production runs (`npm start` execs it),
 * compiled once per run by the global set-up. Each is spawned with a clean environment, a
 * configuration file, loopback only, and watched through its JSON log lines.
 *
 * Nothing outlives a test: every process spawned here leads its own process group, and the whole
 * group (the service and anything around it, such as npm) is killed and awaited by `killServers()`
 * (called after every test file by test/setup/database.ts), by `stop()` after a bounded wait, when
 * its start-up times out, and when the test worker exits. Every process carries the run's marker
 * in its environment; the global teardown kills any that a dead worker could not.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { scratchDir } from './scratch.ts';

/** In the environment of every process of this run (and of their children). */
export const RUN_MARKER = `RRS_TEST_RUN=${process.env.TEST_RUN_ID ?? 'default'}`;

/** Process groups spawned by this worker; a group may outlive its leader (npm's child). */
const groups = new Set<number>();

function exitOf(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((done) => child.once('exit', (code) => done(code)));
}

/** Live members of group `pgid` that belong to this run (a group id can be reused once empty). */
function ourMembers(pgid: number): number[] {
  return groupMembers(pgid).filter((pid) => isAlive(pid) && hasMarker(pid, RUN_MARKER));
}

function killAllOf(pgid: number): number {
  const members = ourMembers(pgid);
  for (const pid of members) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Gone meanwhile.
    }
  }
  return members.length;
}

/** SIGKILLs every process of group `pgid` until none is left (one may be forking meanwhile). */
async function killGroup(pgid: number): Promise<void> {
  const deadline = Date.now() + 5000;
  while (killAllOf(pgid) > 0 && Date.now() < deadline) {
    await new Promise((done) => setTimeout(done, 20));
  }
}

/** Kills every process group spawned here and waits until they are gone. */
export async function killServers(): Promise<void> {
  await Promise.all([...groups].map(killGroup));
  groups.clear();
}

// A worker that ends without running its hooks still takes its servers along.
process.once('exit', () => {
  for (const pgid of groups) killAllOf(pgid);
});

/** Live processes whose environment holds `marker` (the global teardown's last sweep). */
export function processesMarked(marker: string): number[] {
  return pids().filter((pid) => hasMarker(pid, marker));
}

function hasMarker(pid: number, marker: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(marker);
  } catch {
    return false;
  }
}

function pids(): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number);
}

/** Fields of /proc/<pid>/stat after the command name: state, ppid, pgid, … */
function statFields(pid: number): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

function groupMembers(pgid: number): number[] {
  return pids().filter((pid) => statFields(pid)?.[2] === String(pgid));
}

/** Parent pid of every live process. */
function parents(): Map<number, number> {
  const parentOf = new Map<number, number>();
  for (const pid of pids()) {
    const fields = statFields(pid);
    if (fields) parentOf.set(pid, Number(fields[1]));
  }
  return parentOf;
}

/** `root` and its descendants that run the service (whatever wraps it: npm, a shell, tsx). */
export function serviceProcesses(root: number): number[] {
  const parentOf = parents();
  const tree = new Set([root]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [pid, parent] of parentOf) {
      if (tree.has(parent) && !tree.has(pid)) {
        tree.add(pid);
        grew = true;
      }
    }
  }
  return [...tree].filter((pid) => {
    try {
      return /server\.(js|ts)/.test(readFileSync(`/proc/${pid}/cmdline`, 'utf8'));
    } catch {
      return false;
    }
  });
}

/** Whether `pid` is a live process (a zombie counts as gone). */
export function isAlive(pid: number): boolean {
  const state = statFields(pid)?.[0];
  return state !== undefined && state !== 'Z';
}

export function configFile(content: object): string {
  const file = join(scratchDir('server'), 'config.json');
  writeFileSync(file, JSON.stringify(content));
  return file;
}

/** The parent's environment without the service's own variables (and Vite's `BASE_URL=/`). */
function cleanEnvironment(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const key of [
    'BASE_URL',
    'BASE_ID',
    'API_TOKENS',
    'SESSION_SECRET',
    'DATABASE_URL',
    'CONFIG_FILE',
    'PORT',
  ]) {
    delete env[key];
  }
  return env;
}

// biome-ignore lint/suspicious/noExplicitAny: pino lines hold fields of any shape.
export type LogLine = Record<string, any>;

export interface StartOptions {
  /** The command, `node dist/server.js` by default (e.g. `npm start` to test the npm layer). */
  command?: string[];
  /** How long to wait for the "serving" line. */
  startTimeoutMs?: number;
  /** Keep only this much of the end of stdout (long load runs). */
  outputLimitChars?: number;
}

export function startServer(env: Record<string, string>, options: StartOptions = {}) {
  const [command, ...args] = options.command ?? [process.execPath, 'dist/server.js'];
  const [marker, runId] = RUN_MARKER.split('=') as [string, string];
  const child = spawn(command as string, args, {
    env: {
      ...cleanEnvironment(),
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      NODE_ENV: 'production',
      [marker]: runId,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group: the test can signal the group as a supervisor would, and the
    // group can be killed whole.
    detached: true,
  });
  if (child.pid) groups.add(child.pid);
  const killAll = () => killGroup(child.pid as number);
  let stdout = '';
  let stderr = '';
  // Always read both pipes: a full pipe would block the service's synchronous log writes.
  const limit = options.outputLimitChars ?? Number.POSITIVE_INFINITY;
  child.stdout?.on('data', (chunk) => {
    stdout += chunk;
    if (stdout.length > limit) stdout = stdout.slice(stdout.indexOf('\n', stdout.length - limit / 2) + 1);
  });
  child.stderr?.on('data', (chunk) => {
    stderr += chunk;
  });
  const exited = exitOf(child);

  const logLines = (): LogLine[] =>
    stdout.split('\n').flatMap((line) => {
      if (!line.startsWith('{')) return [];
      try {
        return [JSON.parse(line)];
      } catch {
        return [];
      }
    });

  const startTimeoutMs = options.startTimeoutMs ?? 30_000;
  const servingLine = new Promise<LogLine>((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new Error(`not serving after ${startTimeoutMs} ms (killed):\n${stdout}\n${stderr}`));
      void killAll();
    }, startTimeoutMs);
    const look = () => {
      const line = logLines().find((l) => l.msg === 'serving');
      if (line) {
        clearTimeout(timer);
        child.stdout?.off('data', look);
        resolve(line);
      }
    };
    child.stdout?.on('data', look);
    exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before serving:\n${stdout}\n${stderr}`));
    });
  });
  servingLine.catch(() => {});
  // Rejections are for the test that awaits them, not unhandled when it does not.
  const serving = servingLine.then((line) => line.port as number);
  serving.catch(() => {});
  const servicePid = servingLine.then((line) => line.pid as number);
  servicePid.catch(() => {});

  return {
    child,
    /** The port, once the service logs "serving". */
    serving,
    /** The pid of the service itself (not of npm when started through it). */
    servicePid,
    exited,
    output: () => ({ stdout, stderr }),
    logLines,
    /** The first log line matching `predicate`, waiting for it up to `timeoutMs`. */
    async waitForLog(predicate: (line: LogLine) => boolean, timeoutMs = 30_000): Promise<LogLine> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = logLines().find(predicate);
        if (found) return found;
        if (Date.now() > deadline) {
          throw new Error(`no matching log line within ${timeoutMs} ms:\n${stdout.slice(-4000)}`);
        }
        await new Promise((done) => setTimeout(done, 20));
      }
    },
    /** SIGTERM, then the exit code; SIGKILL (and null) when it has not exited within `timeoutMs`. */
    async stop(timeoutMs = 15_000): Promise<number | null> {
      child.kill('SIGTERM');
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((done) => {
        timer = setTimeout(() => done('late'), timeoutMs);
      });
      const outcome = await Promise.race([exited, late]);
      clearTimeout(timer);
      if (outcome !== 'late') return outcome;
      await killAll();
      return null;
    },
    /** kill -9 of the whole group, as a crash or an OOM killer would. */
    crash: killAll,
  };
}

export type ServerProcess = ReturnType<typeof startServer>;
