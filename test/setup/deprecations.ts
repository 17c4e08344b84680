/**
 * No deprecation warning in the test's process: a deprecated call works today and breaks at the
 * library's next major (pg 9 drops the queueing of a query on a busy connection, which a Promise.all
 * inside a transaction relied on). Node.js warns once per process, so the file that first makes the
 * call fails, naming where.
 */
import { afterAll, expect } from 'vitest';

const deprecations: string[] = [];
const onWarning = (warning: Error) => {
  if (warning.name === 'DeprecationWarning') deprecations.push(warning.stack ?? warning.message);
};
process.on('warning', onWarning);

afterAll(() => {
  process.off('warning', onWarning);
  expect(deprecations, 'deprecation warnings').toEqual([]);
});
