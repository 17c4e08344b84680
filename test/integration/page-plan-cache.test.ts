/**
 * PostgreSQL keeps the plan of a page statement (its generic plan) instead of planning it again on
 * every execution: a list's page, the authors' page and an OAI-PMH harvest's page. It chooses the
 * generic plan only when that plan does not look costlier than the ones made for the values; with
 * the page size as a parameter (`LIMIT $5`), it assumed a tenth of the matching rows, and at
 * 100,000 resources the most common list (25 of a type, newest first) was planned anew on every
 * request: 0.3 ms of planning for 0.16 ms of execution, its backends' CPU per request 0.70 ms
 * against 0.26 at 10,000 (bench, 2026-11-29). A harvest's page with metadata was planned anew on
 * every page too (1.9 ms to plan, cold).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { db, onStatement } from '../../src/db/client.ts';
import { provider } from '../setup/test-databases.ts';
import { startApp, type TestApp } from '../support/app.ts';

let app: TestApp;
const RESOURCES = 20_000;
const AUTHORS = 1_000;

describe.runIf(provider === 'postgresql')('the page statements, on PostgreSQL', () => {
  beforeAll(async () => {
    app = await startApp({ responseCache: { enabled: false }, oai: { pageSize: 100 } });
    // Enough rows of each type for the planner's estimates to be those of a real repository.
    await db.$executeRawUnsafe(
      `INSERT INTO "Resource" (origine, "idOrigine", type, publie, restriction, indexable, "dateMiseAJour")
       SELECT 'plans', g::text, CASE WHEN g % 3 = 0 THEN 'em' ELSE 'url' END, true, 0, true,
              now() - g * interval '1 minute'
       FROM generate_series(1, ${RESOURCES}) g`,
    );
    // Two authors of each resource, among a thousand persons.
    await db.$executeRawUnsafe(
      `INSERT INTO "Person" (pid, "updatedAt") SELECT 'plans/' || g, now() FROM generate_series(1, ${AUTHORS}) g`,
    );
    await db.$executeRawUnsafe(
      `INSERT INTO "ResourceAuthor" ("resourceOid", "personOid", position)
       SELECT r.oid, p.oid, a.position FROM "Resource" r
       CROSS JOIN (VALUES (0), (1)) a(position)
       JOIN "Person" p ON p.pid = 'plans/' || (1 + (r.oid * (a.position + 7)) % ${AUTHORS})
       WHERE r.origine = 'plans' ON CONFLICT DO NOTHING`,
    );
    for (const table of ['Resource', 'Person', 'ResourceAuthor', 'HarvestEntry'])
      await db.$executeRawUnsafe(`VACUUM ANALYZE "${table}"`);
  });

  afterAll(async () => {
    await app?.close();
  });

  /** The statement (the first that `is`) a request sends, with its parameters. */
  async function statementOf(path: string, is: (sql: string) => boolean) {
    const statements: { sql: string; params: unknown[] }[] = [];
    const stop = onStatement((sql, params) => statements.push({ sql, params: JSON.parse(params || '[]') }));
    const answer = await app.client().get(path);
    stop();
    expect(answer.status, answer.text.slice(0, 300)).toBe(200);
    const page = statements.find(({ sql }) => is(sql));
    expect(page, statements.map(({ sql }) => sql).join('\n')).toBeDefined();
    return page!;
  }
  const pageStatement = (path: string) => statementOf(path, (sql) => sql.includes('"pageOid"'));

  const literal = (value: unknown): string =>
    Array.isArray(value)
      ? `ARRAY[${value.map(literal).join(', ')}]`
      : typeof value === 'string'
        ? `'${value.replaceAll("'", "''")}'`
        : String(value);

  /** Prepared and executed on one connection as pg does, then how PostgreSQL planned it. */
  async function plansOf({ sql, params }: { sql: string; params: unknown[] }, executions: number) {
    return db.$transaction(async (tx) => {
      await tx.$executeRawUnsafe(`PREPARE page_statement AS ${sql}`);
      for (let i = 0; i < executions; i++)
        await tx.$queryRawUnsafe(`EXECUTE page_statement(${params.map(literal).join(', ')})`);
      const [plans] = await tx.$queryRawUnsafe<{ generic: bigint; custom: bigint }[]>(
        `SELECT generic_plans AS generic, custom_plans AS custom FROM pg_prepared_statements
         WHERE name = 'page_statement'`,
      );
      await tx.$executeRawUnsafe('DEALLOCATE page_statement');
      return { generic: Number(plans!.generic), custom: Number(plans!.custom) };
    });
  }

  it('is planned once for every execution after the first few (its generic plan)', async () => {
    for (const path of [
      '/api/liste?type=em&orderBy=dateMiseAJour&order=desc&nb=25&format=light',
      '/api/liste?type=url&nb=500',
    ]) {
      const plans = await plansOf(await pageStatement(path), 12);
      // PostgreSQL tries five plans made for the values, then compares.
      expect(plans, path).toEqual({ generic: 7, custom: 5 });
    }
  });

  it("is planned once for the authors' page", async () => {
    const path = '/api/liste/auteurs?pids=plans/1,plans/2,plans/3&limit=500';
    expect(await plansOf(await pageStatement(path), 12)).toEqual({ generic: 7, custom: 5 });
  });

  it("is planned once for an OAI-PMH harvest's page, from the start and from a resumption token", async () => {
    const harvestPage = (path: string) =>
      statementOf(path, (sql) => sql.includes('FROM "HarvestEntry" e') && sql.includes('ORDER BY e.oid'));
    const first = await app.client().get('/oai?verb=ListRecords&metadataPrefix=oai_dc');
    const token = /<resumptionToken[^>]*>([^<]+)</.exec(first.text)?.[1];
    expect(token, first.text.slice(0, 500)).toBeDefined();
    for (const path of [
      '/oai?verb=ListRecords&metadataPrefix=oai_dc',
      '/oai?verb=ListIdentifiers&metadataPrefix=oai_dc',
      `/oai?verb=ListRecords&resumptionToken=${encodeURIComponent(token!)}`,
    ]) {
      expect(await plansOf(await harvestPage(path), 12), path).toEqual({ generic: 7, custom: 5 });
    }
  });

  it('answers the page asked for, whatever the size rounded into its text', async () => {
    for (const nb of [1, 3, 25, 33]) {
      const answer = await app.client().get(`/api/liste?type=em&orderBy=dateMiseAJour&order=desc&nb=${nb}`);
      expect(answer.body.liste).toHaveLength(nb);
      const dates = answer.body.liste.map((item: { dateMiseAJour: string }) => item.dateMiseAJour);
      expect(dates).toEqual([...dates].sort().reverse());
    }
  });
});
