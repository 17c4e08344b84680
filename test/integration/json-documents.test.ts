/**
 * A document the database builds as one JSON value (src/read-model/dialect.ts `object`, what every
 * resource document is read as): however many entries it has. PostgreSQL's json_build_object takes
 * at most 100 arguments, so a larger object is merged from parts; every entry must come back.
 */
import { expect, it } from 'vitest';
import { json, read, sql } from '../../src/read-model/rows.ts';

it.each([1, 50, 51, 120])('an object of %i entries keeps each entry and its value', async (size) => {
  const q = sql();
  const entries = Array.from({ length: size }, (_, i) => [`k${i}`, q.value(i * 7, 'int')] as const);
  const [row] = await read<{ doc: unknown }>(
    q.statement(`SELECT ${q.dialect.object(entries)} AS doc`, { planEachTime: true }),
    {},
  );
  expect(json(row!.doc)).toEqual(Object.fromEntries(entries.map(([key], i) => [key, i * 7])));
});
