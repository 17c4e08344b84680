/**
 * SQLite tests a conjunction's probes in the order written, for every row an ordered index gives:
 * whereSql writes those taking fewer index seeks first, with their values in the same order. A
 * level or category is a test of the resource's tags, on the index entry itself: no seek at all.
 */
import { describe, expect, it } from 'vitest';
import { whereSql } from '../../src/read-model/conditions.ts';
import { dialects, Sql } from '../../src/read-model/dialect.ts';

const where = {
  AND: [
    { type: 'em' },
    { pedagogicTypes: { some: { typeId: { in: [7, 5] } } } },
    { documentaryTypes: { some: { typeId: { in: [3] } } } },
    { levels: { some: { level: { in: ['6e'] } } } },
    { publie: true, restriction: 0 },
  ],
};

describe('the order of a conjunction', () => {
  it('on SQLite: the tags first, then the one-value probe before the two-value probe, values in step', () => {
    const q = new Sql(dialects.sqlite);
    const sql = whereSql(q, where);
    const { values } = q;
    expect(sql).not.toContain('"ResourceLevel"');
    expect(sql.indexOf('"levelTags"')).toBeGreaterThan(0);
    expect(sql.indexOf('"levelTags"')).toBeLessThan(sql.indexOf('"ResourceDocumentaryType"'));
    expect(sql.indexOf('"ResourceDocumentaryType"')).toBeLessThan(sql.indexOf('"ResourcePedagogicType"'));
    // Placeholders are anonymous on SQLite: the values must follow the text's order.
    expect(values).toEqual(['em', '|6e|', 1, 0, 3, '[7,5]']);
  });

  it('on PostgreSQL: as given (its planner orders the tests)', () => {
    const q = new Sql(dialects.postgresql);
    const sql = whereSql(q, where);
    const { values } = q;
    expect(sql.indexOf('"ResourcePedagogicType"')).toBeLessThan(sql.indexOf('"ResourceDocumentaryType"'));
    expect(sql.indexOf('"ResourceDocumentaryType"')).toBeLessThan(sql.indexOf('"levelTags"'));
    expect(values).toEqual(['em', [7, 5], 3, '|6e|', true, 0]);
  });
});
