/**
 * The tool and the service started by a Node.js of another major version than the one they run on
 * (a machine's own `node`, first on a PATH without node_modules/.bin): the tool runs anyway, on the
 * project's Node.js; the service refuses in one line naming the command that starts it. Skipped
 * where the machine has no other Node.js on its PATH.
 */
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { configFile, startServer } from '../support/server-process.ts';

vi.setConfig({ testTimeout: 60_000 });

const required = JSON.parse(readFileSync('package.json', 'utf8')).engines.node as string;
const ourMajor = process.versions.node.split('.')[0];

/** A `node` of another major version on the PATH, outside any node_modules/.bin, if there is one. */
function otherNode(): { path: string; version: string } | undefined {
  for (const folder of (process.env.PATH ?? '').split(delimiter)) {
    const path = join(folder, 'node');
    if (folder.includes('node_modules') || !existsSync(path)) continue;
    const version = execFileSync(path, ['--version'], { encoding: 'utf8' }).trim().replace(/^v/, '');
    if (version.split('.')[0] !== ourMajor) return { path, version };
  }
  return undefined;
}

const other = otherNode();
if (!other)
  console.warn(`no Node.js of another major than ${ourMajor} on the PATH: node-runtime tests skipped`);

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<Run> {
  const environment: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'silent', ...env };
  delete environment.BASE_URL;
  return new Promise((resolve) => {
    execFile(command, args, { env: environment, timeout: 40_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr });
    });
  });
}

describe.skipIf(!other)(`started by Node.js ${other?.version} (the service runs on ${required})`, () => {
  const node = other?.path as string;
  const settings = () =>
    configFile({ baseId: 'runtime', baseUrl: 'http://runtime.test/', listeMax: 100, apiTokens: [] });

  it('node dist/cli/main.js runs the command on the project’s Node.js, its output and exit code intact', async () => {
    const listed = await run(node, ['dist/cli/main.js', '--json', 'token', 'list'], {
      CONFIG_FILE: settings(),
    });
    expect(listed.stderr).toBe('');
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout)).toEqual(expect.any(Array));
    const wrong = await run(node, ['dist/cli/main.js', 'token', 'lst'], { CONFIG_FILE: settings() });
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/^rrs: unknown command 'lst'/);
  });

  it('./dist/cli/main.js does too, with that Node.js first on the PATH', async () => {
    const path = [join(other?.path as string, '..'), process.env.PATH].join(delimiter);
    const help = await run('./dist/cli/main.js', ['--help'], { PATH: path });
    expect(help.stderr).toBe('');
    expect(help).toMatchObject({ code: 0, stdout: expect.stringMatching(/^Usage: rrs /) });
  });

  it('node dist/server.js refuses in one line, naming the Node.js it runs on and how to start it', async () => {
    const server = startServer(
      { CONFIG_FILE: settings(), DATABASE_URL: process.env.DATABASE_URL as string },
      { command: [node, 'dist/server.js'] },
    );
    expect(await server.exited).toBe(1);
    const { stdout, stderr } = server.output();
    expect(stdout).toBe('');
    expect(stderr).toMatch(/^[^\n]+\n$/);
    expect(stderr).toContain(`needs Node.js ${required}`);
    expect(stderr).toContain(`this is Node.js ${other?.version}`);
    expect(stderr).toContain('node_modules/.bin/node dist/server.js');
  });
});
