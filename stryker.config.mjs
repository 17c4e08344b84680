/**
 * Mutation testing (`npm run test:mutation`): mutants of the policy and filter modules, each run
 * against the fast tests of vitest.mutation.config.ts (SQLite). Minutes, not seconds: not part of
 * `npm test` nor CI. The report is written to data/mutation/ (HTML and JSON).
 * @type {import('@stryker-mutator/api/core').PartialStrykerOptions}
 */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutation.config.ts' },
  // Each mutant runs only the tests that reached it.
  coverageAnalysis: 'perTest',
  mutate: [
    'src/modules/resources/resources.policy.ts',
    'src/modules/groups/groups.policy.ts',
    'src/modules/persons/persons.policy.ts',
    'src/modules/lists/filters.ts',
  ],
  // The sandbox needs the sources, the generated Prisma clients and the configs, not the data.
  ignorePatterns: ['data', 'dist', 'bench', 'coverage', '.ci'],
  // Two cores shared with other work.
  concurrency: 2,
  timeoutMS: 20_000,
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'data/mutation/report.html' },
  jsonReporter: { fileName: 'data/mutation/report.json' },
  tempDirName: 'data/.stryker-tmp',
  thresholds: { high: 90, low: 85, break: 85 },
};
