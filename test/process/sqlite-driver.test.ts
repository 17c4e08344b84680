/**
 * The SQLite driver survives V8 collecting its objects outside any JavaScript context. better-sqlite3
 * 11 (what Prisma's SQLite adapter 6.19 asks for), compiled against Node.js 24.19 or later, aborted
 * the process there (`Assertion failed: (env) != nullptr` in `RemoveEnvironmentCleanupHook`, from
 * `Database::~Database`): the suite died at its first file, a loaded service at random. This very
 * script aborted in 0.1 s with better-sqlite3 11.10 on Node.js 24.21; the project now runs 12 (an
 * npm override under Prisma's adapter; docs/operations.md, "Node.js version").
 */
import { execFile } from 'node:child_process';
import { describe, expect, it } from 'vitest';

/**
 * Opens databases and statements and drops them, makes garbage, then idles: V8's collections (and
 * their second-pass weak callbacks, which destroy the driver's objects) then run from V8's own tasks,
 * outside any context. Counts the databases collected, so the run cannot pass without a collection.
 */
const SCRIPT = `
const Database = require('better-sqlite3');
let collected = 0;
const registry = new FinalizationRegistry(() => { collected += 1; });
for (let i = 0; i < 500; i++) {
  const db = new Database(':memory:');
  db.prepare('select 1').get();
  registry.register(db, i);
}
let garbage = [];
for (let i = 0; i < 200000; i++) garbage.push({ i, text: 'x' + i });
garbage = null;
globalThis.gc({ type: 'major', execution: 'async' });
setTimeout(() => { console.log(JSON.stringify({ collected })); }, 1500);
`;

describe('the SQLite driver on this Node.js', () => {
  it('lets V8 collect databases and statements outside a context without aborting the process', async () => {
    const run = await new Promise<{
      code: number | null;
      signal: string | null;
      stdout: string;
      stderr: string;
    }>((resolve) => {
      execFile(
        process.execPath,
        ['--expose-gc', '-e', SCRIPT],
        { timeout: 30_000 },
        (error, stdout, stderr) => {
          const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
          resolve({ code, signal: error?.signal ?? null, stdout, stderr });
        },
      );
    });
    expect(run.stderr).not.toMatch(/Assertion failed|RemoveEnvironmentCleanupHook/);
    expect({ code: run.code, signal: run.signal }, run.stderr).toEqual({ code: 0, signal: null });
    expect(JSON.parse(run.stdout).collected).toBeGreaterThan(0);
  });
});
