/** The DateTime scalar (src/graphql/scalars.ts): graphql-scalars' own, but serialized to ISO text. */
import type { GraphQLScalarType } from 'graphql';
import { describe, expect, it } from 'vitest';
import { schema } from '../../src/gateway/schema.ts';

const dateTime = schema.getType('DateTime') as GraphQLScalarType;

describe('DateTime', () => {
  it('serializes a Date, ISO text or a timestamp to the text a Date becomes in JSON', () => {
    const date = new Date('2026-11-29T10:09:26.123Z');
    expect(dateTime.serialize(date)).toBe(JSON.parse(JSON.stringify(date)));
    expect(dateTime.serialize('2026-11-29T11:09:26.123+01:00')).toBe('2026-11-29T10:09:26.123Z');
    expect(dateTime.serialize(date.getTime())).toBe('2026-11-29T10:09:26.123Z');
  });

  it('still refuses what is not a date, and parses variables to a Date', () => {
    expect(() => dateTime.serialize(new Date(Number.NaN))).toThrow(/invalid Date/);
    expect(() => dateTime.serialize('hier')).toThrow(/invalid date-time-string/);
    expect(dateTime.parseValue('2026-11-29T10:09:26Z')).toEqual(new Date('2026-11-29T10:09:26Z'));
  });
});
