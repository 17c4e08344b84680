/**
 * The OpenAPI document names the list indexes (src/rest/api-schemas.ts) without importing the lists
 * module (test/unit/rest-boundary.test.ts): its lists must stay the module's.
 */
import { expect, it } from 'vitest';
import { FULLTEXT, INDEXES } from '../../src/modules/lists/filters.ts';
import { LIST_INDEXES, SORTABLE_INDEXES } from '../../src/rest/api-schemas.ts';

it('documents every index a list filter accepts, and those it may be ordered by', () => {
  expect([...LIST_INDEXES].sort()).toEqual([...Object.keys(INDEXES), FULLTEXT].sort());
  const sortable = Object.entries(INDEXES)
    .filter(([, definition]) => definition.orderBy)
    .map(([name]) => name);
  expect([...SORTABLE_INDEXES].sort()).toEqual(sortable.sort());
});
