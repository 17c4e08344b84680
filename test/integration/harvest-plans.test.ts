/**
 * A harvest page's cost does not grow with the position of its keyset: the resources are read from
 * the keyset on, never from the first one. Seen on the 100k PostgreSQL bench database: without the
 * bound on the resource side, the planner merged the entries with a scan of Resource from its
 * first row, filtering tens of thousands of rows for a page deep in the harvest (22 ms a page
 * instead of 2, and a whole harvest quadratic).
 */
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { db, onStatement, provider } from '../../src/db/client.ts';
import { createGraphQLHarvestSource } from '../../src/oai/graphql-source.ts';
import type { HarvestSource } from '../../src/oai/harvest-source.ts';
import { startApp, type TestApp } from '../support/app.ts';
import { createResource } from '../support/resources.ts';

let app: TestApp;
let source: HarvestSource;
const oids: number[] = [];

beforeAll(async () => {
  app = await startApp({ responseCache: { enabled: false } });
  source = createGraphQLHarvestSource((name, variables) => {
    const req = new IncomingMessage(new Socket());
    return app.runHarvestOperation(name, variables, { req, res: new ServerResponse(req) });
  });
  for (let i = 0; i < 12; i++) oids.push(await createResource(app, { titre: `Plan ${i}` }));
});

afterAll(async () => {
  await app.close();
});

interface PlanNode {
  'Relation Name'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  Plans?: PlanNode[];
}

/** Rows read from Resource by the plan, over all its loops. */
function resourceRowsRead(node: PlanNode): number {
  const own =
    node['Relation Name'] === 'Resource' ? (node['Actual Rows'] ?? 0) * (node['Actual Loops'] ?? 1) : 0;
  return own + (node.Plans ?? []).reduce((sum, child) => sum + resourceRowsRead(child), 0);
}

it('reads the resources of a page from its keyset on, however far into the harvest it is', async () => {
  const statements: { sql: string; params: unknown[] }[] = [];
  const stop = onStatement((sql, params) => statements.push({ sql, params: JSON.parse(params || '[]') }));
  const page = await source.page({ afterOid: oids[9]!, limit: 2, withMetadata: true });
  stop();
  expect(page.records.map((record) => record.header.oid)).toEqual(oids.slice(10, 12));
  expect(statements).toHaveLength(1);
  const { sql, params } = statements[0]!;
  const text = sql.replace(/^\/\* prepared \*\/ /, '');
  if (provider === 'postgresql') {
    const [row] = await db.$queryRawUnsafe<{ 'QUERY PLAN': [{ Plan: PlanNode }] }[]>(
      `EXPLAIN (ANALYZE, FORMAT JSON) ${text}`,
      ...params,
    );
    // The two resources of the page (and at most the one after, which tells there is no more).
    expect(resourceRowsRead(row!['QUERY PLAN'][0].Plan)).toBeLessThanOrEqual(3);
  } else {
    const rows = await db.$queryRawUnsafe<{ detail: string }[]>(`EXPLAIN QUERY PLAN ${text}`, ...params);
    const plan = rows.map((row) => row.detail).join('\n');
    expect(plan).not.toMatch(/SCAN r\b/);
    expect(plan).toMatch(/SEARCH r USING INTEGER PRIMARY KEY/);
  }
});

it('answers exactly the page asked for, whatever the size rounded into its statement', async () => {
  // A page of 5 reads 6 records (the sixth tells that more follow) out of a sub-query cut at 8
  // (src/read-model/rows.ts roundedSize): the statement's own limit decides what comes back.
  for (const withMetadata of [true, false]) {
    const page = await source.page({ afterOid: oids[0]!, limit: 5, withMetadata });
    expect(page.records.map((record) => record.header.oid)).toEqual(oids.slice(1, 6));
    expect(page.hasMore).toBe(true);
    const last = await source.page({ afterOid: oids[6]!, limit: 5, withMetadata });
    expect(last.records.map((record) => record.header.oid)).toEqual(oids.slice(7, 12));
    expect(last.hasMore).toBe(false);
  }
});
