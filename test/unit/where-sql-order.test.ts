/**
 * SQLite tests a conjunction's probes in the order written, for every row an ordered index gives:
 * whereSql writes those taking fewer index seeks first, with their values in the same order.
 */
import { describe, expect, it } from 'vitest';
import { parameterSink, whereSql } from '../../src/modules/lists/where-sql.ts';

const where = {
  AND: [
    { type: 'em' },
    { categories: { some: { categoryId: { in: [7, 5] } } } },
    { levels: { some: { level: { in: ['6e'] } } } },
    { publie: true, restriction: 0 },
  ],
};

describe('the order of a conjunction', () => {
  it('on SQLite: the one-value level probe before the two-category probe, values in step', () => {
    const { sink, values } = parameterSink('sqlite');
    const sql = whereSql(sink, where)!;
    expect(sql.indexOf('"ResourceLevel"')).toBeGreaterThan(0);
    expect(sql.indexOf('"ResourceLevel"')).toBeLessThan(sql.indexOf('"ResourceCategory"'));
    // Placeholders are anonymous on SQLite: the values must follow the text's order.
    expect(values).toEqual(['em', 1, 0, '6e', '[7,5]']);
  });

  it('on PostgreSQL: as given (its planner orders the tests)', () => {
    const { sink, values } = parameterSink('postgresql');
    const sql = whereSql(sink, where)!;
    expect(sql.indexOf('"ResourceCategory"')).toBeLessThan(sql.indexOf('"ResourceLevel"'));
    expect(values).toEqual(['em', [7, 5], '6e', true, 0]);
  });
});
