/**
 * Process entry (`node dist/server.js`, which `npm start` execs): on the Node.js the service runs
 * on, starts it (./start.ts); started by another, says in one line which to use and exits 1,
 * before loading any module that would fail on it.
 */
import { onServiceNode } from './lifecycle/node-runtime.ts';

if (onServiceNode({ relaunch: false, exitCode: 1, prefix: 'The service ' })) {
  const { start } = await import('./start.ts');
  await start().catch((error: unknown) => {
    console.error(error instanceof Error ? error.stack : error);
    process.exit(1);
  });
}
