/**
 * The tests the mutation run (`npm run test:mutation`, stryker.config.json) executes against every
 * mutant: the fast tests of the policy and filter modules, on SQLite (the script sets
 * TEST_DATABASE). Not part of `npm test`.
 */
import { defineConfig } from 'vitest/config';
import base from './vitest.config.ts';

export default defineConfig({
  ...base,
  test: {
    ...base.test,
    name: 'mutation',
    include: [
      'test/unit/resources-policy.test.ts',
      'test/unit/groups-persons-policy.test.ts',
      'test/unit/filters.test.ts',
      'test/unit/filters-lookups.test.ts',
    ],
    globalSetup: ['test/setup/template-setup.ts'],
    // Pure tests need no database: only filters-lookups.test.ts makes one (it imports the set-up),
    // which spares every other file a database copy on each of the hundreds of runs.
    setupFiles: [],
    reporters: ['default'],
  },
});
