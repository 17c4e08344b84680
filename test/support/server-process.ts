/**
 * Real service processes (`src/server.ts`, what `npm start` runs), spawned with a clean environment
 * and a configuration file, watched through their JSON log lines.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const children = new Set<ChildProcess>();

/** Kills every process still running (after a failed test). */
export function killServers(): void {
  for (const child of children) child.kill('SIGKILL');
  children.clear();
}

export function configFile(content: object): string {
  const file = join(mkdtempSync(join(tmpdir(), 'rrs-server-')), 'config.json');
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

export function startServer(env: Record<string, string>) {
  const child = spawn('node_modules/.bin/tsx', ['src/server.ts'], {
    env: { ...cleanEnvironment(), PORT: '0', LOG_LEVEL: 'info', NODE_ENV: 'production', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const exited = new Promise<number | null>((resolve) =>
    child.on('exit', (code) => {
      children.delete(child);
      resolve(code);
    }),
  );
  const serving = new Promise<number>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`not serving after 30 s:\n${stdout}\n${stderr}`)),
      30_000,
    );
    child.stdout.on('data', () => {
      const line = stdout.split('\n').find((l) => l.includes('"msg":"serving"'));
      if (line) {
        clearTimeout(timer);
        resolve(JSON.parse(line).port);
      }
    });
    exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before serving:\n${stderr}`));
    });
  });
  serving.catch(() => {});

  const logLines = (): LogLine[] =>
    stdout.split('\n').flatMap((line) => {
      try {
        return [JSON.parse(line)];
      } catch {
        return [];
      }
    });

  return {
    child,
    serving,
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
        await new Promise((done) => setTimeout(done, 50));
      }
    },
    /** SIGTERM, then the exit code. */
    async stop(): Promise<number | null> {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

export type ServerProcess = ReturnType<typeof startServer>;
