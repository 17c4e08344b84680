/**
 * Once per run: compile the service (process tests run `node dist/server.js`, as production does),
 * migrate the template database that every test file copies; at the end, drop it and kill any
 * service process a crashed test worker may have left.
 */
import { execFileSync } from 'node:child_process';
import { applyMigrations } from '../../src/db/migrate.ts';
import { processesMarked, RUN_MARKER } from '../support/server-process.ts';
import { dropTemplate, freshTemplateUrl, provider } from './test-databases.ts';

/** Kills any process of this run still alive (a worker that died could not clean up). */
function killLeftoverServers(): void {
  for (const pid of processesMarked(RUN_MARKER)) {
    try {
      process.kill(pid, 'SIGKILL');
      console.warn(`killed a service process left running by a test (pid ${pid})`);
    } catch {
      // Gone meanwhile.
    }
  }
}

export default async function setup(): Promise<() => Promise<void>> {
  execFileSync(process.execPath, ['scripts/build.mjs', '--if-stale'], { stdio: 'inherit' });
  const url = await freshTemplateUrl();
  await applyMigrations(url);
  console.log(`test databases: ${provider}, template migrated`);
  return async () => {
    killLeftoverServers();
    await dropTemplate();
  };
}
