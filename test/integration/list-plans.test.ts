/**
 * The most common list, public resources of one type newest first, is read in order from an index
 * (type, publie, restriction, dateMiseAJour, oid, …): no sort of every matching row, so its cost
 * does not grow with the repository. A level or category filter is tested on the entries of that
 * index (the tags it carries), not by probing a join table for each. The planners are steered away
 * from scans and sorts (tiny test tables would otherwise favour them) to show the statement can be
 * served that way at all; a value list written `= ANY(array)` could not (PostgreSQL reads several
 * values' ranges, out of date order).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { db, onStatement, provider } from '../../src/db/client.ts';
import { contentChanges } from '../../src/db/content-changes.ts';
import { tokenHeaders } from '../support/actors.ts';
import { startApp, type TestApp } from '../support/app.ts';
import { createResource } from '../support/resources.ts';

let app: TestApp;

beforeAll(async () => {
  app = await startApp({ responseCache: { enabled: false } });
  for (const titre of ['Plan un', 'Plan deux', 'Plan trois'])
    await createResource(app, { titre, type: 'em', niveaux: ['6e'], categories: [7] });
  // PostgreSQL reads an index alone only once it knows the table's pages are all visible.
  if (provider === 'postgresql') await db.$executeRawUnsafe('VACUUM ANALYZE "Resource"');
});

afterAll(async () => {
  await app.close();
});

/** The page statement a list request sends, with its parameters. */
async function pageStatement(path: string) {
  const statements: { sql: string; params: unknown[] }[] = [];
  const stop = onStatement((sql, params) => statements.push({ sql, params: JSON.parse(params || '[]') }));
  const answer = await app.client().get(path);
  stop();
  expect(answer.body.success, JSON.stringify(answer.body)).toBe(true);
  expect(answer.body.liste.length).toBeGreaterThanOrEqual(3);
  const page = statements.find(({ sql }) => sql.includes('"pageOid"'));
  expect(page, statements.map(({ sql }) => sql).join('\n')).toBeDefined();
  return { sql: page!.sql.replace(/^\/\* prepared \*\/ /, ''), params: page!.params };
}

/** The count statement a list request sends (its total counted, not kept), with its parameters. */
async function countStatement(path: string, headers: Record<string, string> = {}) {
  // A total is kept until content changes: moved, it is counted again.
  contentChanges.generation += 1;
  const statements: { sql: string; params: unknown[] }[] = [];
  const stop = onStatement((sql, params) => statements.push({ sql, params: JSON.parse(params || '[]') }));
  const answer = await app.client().get(path).set(headers);
  stop();
  expect(answer.body.total, JSON.stringify(answer.body)).toBeGreaterThanOrEqual(3);
  const count = statements
    .map(({ sql, params }) => ({ sql: sql.replace(/^\/\* prepared \*\/ /, ''), params }))
    .find(({ sql }) => /^SELECT count\(\*\)/i.test(sql));
  expect(count, statements.map(({ sql }) => sql).join('\n')).toBeDefined();
  return count!;
}

async function plan(sql: string, params: unknown[]): Promise<string> {
  if (provider === 'postgresql') {
    const [, , rows] = await db.$transaction([
      db.$executeRawUnsafe('SET LOCAL enable_sort = off'),
      db.$executeRawUnsafe('SET LOCAL enable_seqscan = off'),
      db.$queryRawUnsafe<{ 'QUERY PLAN': string }[]>(`EXPLAIN ${sql}`, ...params),
    ]);
    return rows.map((row) => row['QUERY PLAN']).join('\n');
  }
  const rows = await db.$queryRawUnsafe<{ detail: string }[]>(`EXPLAIN QUERY PLAN ${sql}`, ...params);
  return rows.map((row) => row.detail).join('\n');
}

/** The part of a plan that chooses the page (the documents' sub-queries come after it). */
function pagePart(text: string): string {
  const lines = text.split('\n');
  if (provider === 'sqlite') return lines.slice(0, lines.indexOf('SCAN page')).join('\n');
  // The page's own Limit, inside the plan: the one heading it cuts the rounded page (pages.ts).
  const start = lines.findIndex((line, index) => index > 0 && /\bLimit\b/.test(line));
  const depth = lines[start]!.search(/\S/);
  const end = lines.findIndex((line, index) => index > start && line.search(/\S/) <= depth);
  return lines.slice(start, end).join('\n');
}

it('reads public resources of a type newest first in index order', async () => {
  const { sql, params } = await pageStatement('/api/liste?type=em&orderBy=dateMiseAJour&order=desc&nb=25');
  const text = await plan(sql, params);
  expect(text).toContain('Resource_listOrder_idx');
  expect(text).not.toMatch(provider === 'postgresql' ? /\bSort\b/ : /TEMP B-TREE FOR ORDER BY/);
});

it('tests a level and categories on the entries of that index, without probing their join tables', async () => {
  const { sql, params } = await pageStatement(
    '/api/liste?type=em&niveaux=6e&categories=7,5&orderBy=dateMiseAJour&order=desc&nb=50',
  );
  const text = pagePart(await plan(sql, params));
  expect(text).toContain('Resource_listOrder_idx');
  expect(text).not.toMatch(provider === 'postgresql' ? /\bSort\b/ : /TEMP B-TREE FOR ORDER BY/);
  // The documents of the page read the join tables afterwards; choosing the page does not.
  expect(text).not.toMatch(/ResourceLevel|ResourceCategory/);
});

it('counts resources of a type from an index alone, indexable included, for anonymous and token callers', async () => {
  for (const headers of [{}, tokenHeaders]) {
    const { sql, params } = await countStatement('/api/liste?type=em', headers);
    const text = await plan(sql, params);
    expect(text, JSON.stringify(headers)).toMatch(
      provider === 'postgresql'
        ? /Index Only Scan( Backward)? using "Resource_listOrder_idx"/
        : /USING COVERING INDEX Resource_listOrder_idx/,
    );
  }
});

it('walks the public resources of a type newest first on that index alone, indexable tested on its entries', async () => {
  const { sql, params } = await pageStatement('/api/liste?type=em&orderBy=dateMiseAJour&order=desc&nb=25');
  const text = pagePart(await plan(sql, params));
  expect(text).toMatch(
    provider === 'postgresql'
      ? /Index Only Scan( Backward)? using "Resource_listOrder_idx"/
      : /USING COVERING INDEX Resource_listOrder_idx/,
  );
});

// (On SQLite the count is read synchronously, so requests cannot overlap on it: the same answer.)
it('counts a filter once when requests for it arrive together, and again once content changes', async () => {
  const counted = async () => {
    const statements: string[] = [];
    const stop = onStatement((sql) => statements.push(sql));
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => app.client().get('/api/liste?type=em&niveaux=6e&nb=2')),
    );
    stop();
    for (const answer of answers)
      expect(answer.body.total, JSON.stringify(answer.body)).toBeGreaterThanOrEqual(3);
    return statements.filter((sql) => /^(\/\* prepared \*\/ )?SELECT count\(\*\)/i.test(sql)).length;
  };
  contentChanges.generation += 1;
  expect(await counted()).toBe(1);
  expect(await counted()).toBe(0);
  contentChanges.generation += 1;
  expect(await counted()).toBe(1);
});
