/**
 * PostgreSQL keeps the plan of a list's page statement (its generic plan) instead of planning it
 * again on every execution. It chooses the generic plan only when that plan does not look costlier
 * than the ones made for the values; with the page size as a parameter (`LIMIT $5`), it assumed a
 * tenth of the matching rows, and at 100,000 resources the most common list (25 of a type, newest
 * first) was planned anew on every request: 0.3 ms of planning for 0.16 ms of execution, its
 * backends' CPU per request 0.70 ms against 0.26 at 10,000 (bench, 2026-11-29).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { db, onStatement } from '../../src/db/client.ts';
import { provider } from '../setup/test-databases.ts';
import { startApp, type TestApp } from '../support/app.ts';

let app: TestApp;
const RESOURCES = 20_000;

describe.runIf(provider === 'postgresql')('the page statement of a list, on PostgreSQL', () => {
  beforeAll(async () => {
    app = await startApp({ responseCache: { enabled: false } });
    // Enough rows of each type for the planner's estimates to be those of a real repository.
    await db.$executeRawUnsafe(
      `INSERT INTO "Resource" (origine, "idOrigine", type, publie, restriction, indexable, "dateMiseAJour")
       SELECT 'plans', g::text, CASE WHEN g % 3 = 0 THEN 'em' ELSE 'url' END, true, 0, true,
              now() - g * interval '1 minute'
       FROM generate_series(1, ${RESOURCES}) g`,
    );
    await db.$executeRawUnsafe('VACUUM ANALYZE "Resource"');
  });

  afterAll(async () => {
    await app?.close();
  });

  /** The page statement a list request sends, with its parameters. */
  async function pageStatement(path: string) {
    const statements: { sql: string; params: unknown[] }[] = [];
    const stop = onStatement((sql, params) => statements.push({ sql, params: JSON.parse(params || '[]') }));
    const answer = await app.client().get(path);
    stop();
    expect(answer.body.success, JSON.stringify(answer.body).slice(0, 300)).toBe(true);
    const page = statements.find(({ sql }) => sql.includes('"pageOid"'));
    expect(page, statements.map(({ sql }) => sql).join('\n')).toBeDefined();
    return page!;
  }

  const literal = (value: unknown) =>
    typeof value === 'string' ? `'${value.replaceAll("'", "''")}'` : String(value);

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

  it('answers the page asked for, whatever the size rounded into its text', async () => {
    for (const nb of [1, 3, 25, 33]) {
      const answer = await app.client().get(`/api/liste?type=em&orderBy=dateMiseAJour&order=desc&nb=${nb}`);
      expect(answer.body.liste).toHaveLength(nb);
      const dates = answer.body.liste.map((item: { dateMiseAJour: string }) => item.dateMiseAJour);
      expect(dates).toEqual([...dates].sort().reverse());
    }
  });
});
