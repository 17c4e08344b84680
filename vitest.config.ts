import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// Which database the suite runs on: `npm test` runs it twice, TEST_DATABASE=sqlite then postgresql.
const database = process.env.TEST_DATABASE ?? 'sqlite';
// Names this run's template database and files, so that runs on one machine never collide.
process.env.TEST_RUN_ID ??= `${process.pid}`;
const runId = process.env.TEST_RUN_ID;

export default defineConfig({
  resolve: {
    // Node loads graphql's CJS build for the dependencies (its package has no "exports"), while Vite
    // would pick the ESM build for our code: two copies, whose instanceof checks fail across each
    // other ("from another module or realm"). Point our code at the CJS build too.
    alias: [
      {
        find: /^graphql$/,
        replacement: fileURLToPath(new URL('node_modules/graphql/index.js', import.meta.url)),
      },
    ],
  },
  test: {
    name: database,
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/setup/global-setup.ts'],
    setupFiles: ['test/setup/database.ts', 'test/setup/deprecations.ts'],
    env: { NODE_ENV: 'test', TEST_DATABASE: database, TEST_RUN_ID: runId },
    testTimeout: 20_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Each file loads the service's modules afresh (vitest's isolation). Sharing them between the
    // files of a worker (`isolate: false`) took a fifth off the suite's CPU, but what one file left
    // running (a timer, a retry) then wrote through the next file's database client: the response
    // cache test saw its generation move under it.
    // Files spend much of their time waiting on a database, a service process or a fake lab, so
    // one worker per core and one more keep the cores busy: on 2 cores, 3 workers ran the SQLite
    // half in 499 s instead of 700 (vitest's default, one less than the cores), PostgreSQL, whose
    // server shares the cores, in 691 s instead of 741.
    maxWorkers: Math.max(3, availableParallelism() - 1),
    sequence: { shuffle: { files: false, tests: true } },
    // The JSON report lets .ci/run print one closing line for both databases.
    reporters: ['default', ['json', { outputFile: `data/test-results/${database}.json` }]],
  },
});
