/**
 * `npm run bench:plans` reads the database `npm run seed:bench` writes, without being told where:
 * a real run of the script (tsx, as npm runs it) in a folder holding only a seeded SQLite database
 * named as the seeding names it (a migrated, empty one stands for it: the plans need no rows).
 */
import { execFile } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { expect, it, vi } from 'vitest';
import { SEED_VERSION } from '../../bench/databases.ts';
import { applyMigrations } from '../../src/db/migrate.ts';
import { scratchDir } from '../support/scratch.ts';

// Loading the service's modules through tsx takes seconds on a busy machine.
vi.setConfig({ testTimeout: 120_000 });

const root = resolve(import.meta.dirname, '../..');

it('finds the database seed:bench wrote and plans every request on it', async () => {
  const folder = scratchDir('bench-plans');
  mkdirSync(join(folder, 'data/bench'), { recursive: true });
  const seeded = `data/bench/v${SEED_VERSION}-10000.db`;
  await applyMigrations(`file:${join(folder, seeded)}`);
  const env: NodeJS.ProcessEnv = { ...process.env };
  // The test file's own database must not stand in for the seeded one.
  delete env.DATABASE_URL;
  delete env.BENCH_DATABASE;
  const run = await new Promise<{ code: number | null; stdout: string; stderr: string }>((done) => {
    execFile(
      join(root, 'node_modules/.bin/tsx'),
      [join(root, 'bench/plans.ts')],
      { cwd: folder, env, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => done({ code: error ? ((error.code as number) ?? 1) : 0, stdout, stderr }),
    );
  });
  expect(run.code, run.stderr).toBe(0);
  expect(run.stdout).toContain(`plans of file:./${seeded}`);
  // Each request's page and count, each with its plan, for both callers.
  for (const caller of ['anonymous', 'token']) {
    for (const statement of ['page', 'count']) {
      expect(run.stdout, `${caller} ${statement}`).toMatch(
        new RegExp(`\\n## type \\(${caller}\\) ${statement}[^\\n]*\\n {3}\\S`),
      );
    }
  }
  // Every request's page is planned (its count too, unless the same filters' total is kept).
  const [, requests] = /\n(\d+) requests, \d+ of their \d+ statements with a full scan of Resource\n$/.exec(
    run.stdout,
  ) ?? [undefined, '0'];
  const pages = new Set([...run.stdout.matchAll(/\n## (.+) page/g)].map((match) => match[1]));
  expect(pages.size).toBe(Number(requests));
  // A full scan of the resource table is flagged, whatever alias the statement gives the table.
  for (const section of run.stdout.split('\n## ').slice(1)) {
    const [heading, ...plan] = section.split('\n');
    const scans = plan.some((line) =>
      /^ {3}(SCAN (main\.)?(r|Resource)$|.*Seq Scan on "Resource"( r)? )/.test(line),
    );
    expect(heading!.endsWith('<-- full scan'), section).toBe(scans);
  }
});
