/**
 * The set-up most test files share, as vitest fixtures: a fake lab, an app on the file's database
 * trusting that lab, and the cast of resource callers. Each is built once per file, on first use,
 * and closed when the file ends; a file picks its options with `override`:
 *
 *   const test = appTest.override({ labId: 'labL', appOptions: { maxSql: 40 } });
 *   test('…', async ({ app, cast }) => { … });
 *
 * Tests keep their own data (unique names, markers), so they stay independent of each other and of
 * their order; suite hooks receive the same fixtures (`test.beforeAll(async ({ app }) => …)`).
 */
import { test as base } from 'vitest';
import type { ConfigInput } from '../../src/config.ts';
import { type Browser, logIn } from './actors.ts';
import { startApp, type TestApp } from './app.ts';
import { type FakeLab, labUser, startFakeLab } from './fake-lab.ts';
import { type Cast, castFor } from './resources.ts';

export const appTest = base
  /** baseId of the file's fake lab (distinct per file makes pids readable in failures). */
  .extend('labId', { scope: 'file' }, 'lab')
  /** Configuration beside the lab, as `startApp` takes it. */
  .extend('appOptions', { scope: 'file' }, {} as Partial<ConfigInput>)
  .extend('lab', { scope: 'file' }, async ({ labId }, { onCleanup }) => {
    const lab = await startFakeLab(labId);
    onCleanup(() => lab.close());
    return lab;
  })
  .extend('app', { scope: 'file' }, async ({ lab, appOptions }, { onCleanup }) => {
    const app: TestApp = await startApp({ ...appOptions, labs: [lab.config(), ...(appOptions.labs ?? [])] });
    onCleanup(() => app.close());
    return app;
  })
  /** Nine kinds of resource caller and a group (test/support/resources.ts). */
  .extend('cast', { scope: 'file' }, async ({ app, lab }): Promise<Cast> => castFor(app, lab))
  /** A teacher logged in through the lab. */
  .extend(
    'teacher',
    { scope: 'file' },
    async ({ app, lab }): Promise<Browser> => logIn(app, lab, labUser({ type: 1 })),
  );

export type AppFixtures = { app: TestApp; lab: FakeLab };
