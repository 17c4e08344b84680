/**
 * `npm run bench:plans`: the query plans of list requests, one per filterable index, per ordering
 * and for full-text search, on a seeded benchmark database (run `npm run bench` or
 * `npm run seed:bench` first). For each request, the plan of the page query and of the count,
 * flagging a full scan of the resource table.
 *
 *   DATABASE_URL=…   default: the largest database `npm run seed:bench` wrote (100000, else 10000
 *                    resources) of BENCH_DATABASE (sqlite, the default, or postgresql), named as
 *                    bench/databases.ts names them (data/bench/v<seed version>-<size>.db on SQLite)
 */
import Database from 'better-sqlite3';
import pg from 'pg';
import request from 'supertest';
import { benchApp } from './app.ts';
import { type BenchProvider, seededBenchDatabase } from './databases.ts';
import { serviceModule } from './service-build.ts';
import { BENCH_TOKEN } from './token.ts';

// From the tree bench/app.ts serves (service-build.ts): one database client. The namespace, not its
// members: `db` and `provider` are live bindings, set when benchApp opens the database.
const client = await serviceModule<typeof import('../src/db/client.ts')>('db/client');
const { onStatement } = client;
const { redact, sqlitePath } =
  await serviceModule<typeof import('../src/db/database-url.ts')>('db/database-url');

const databaseUrl =
  process.env.DATABASE_URL ??
  (await seededBenchDatabase((process.env.BENCH_DATABASE ?? 'sqlite') as BenchProvider, [100_000, 10_000]));
if (!databaseUrl) throw new Error('No benchmark database: run npm run bench (or npm run seed:bench) first');
console.log(`plans of ${redact(databaseUrl)}`);
// Statements are announced to onStatement only when asked.
const { app, close } = await benchApp(databaseUrl, { announceStatements: true });

/** Values that exist in the seeded data, so that each plan reads something. */
const [contributor, readerGroup] = await Promise.all([
  client.db.resourceContributor.groupBy({
    by: ['personOid'],
    _count: true,
    orderBy: { _count: { personOid: 'desc' } },
    take: 1,
  }),
  client.db.resourceGroup.findFirst({ select: { group: { select: { nom: true } } } }),
]);
const contributorPid =
  (await client.db.person.findUnique({ where: { oid: contributor[0]?.personOid ?? 0 } }))?.pid ?? 'none/0';
const groupName = encodeURIComponent(readerGroup?.group.nom ?? 'none');

const cases: [string, string][] = [
  ['titre', 'titre=fractions%20calcul%201'],
  ['oid', 'oid=10,20,30'],
  ['rid', 'rid=bench/42'],
  ['origine', 'origine=bench'],
  ['idOrigine', 'idOrigine=77'],
  ['type', 'type=em'],
  ['langue', 'langue=eng'],
  ['auteurs', 'auteurs=bench/1'],
  ['contributeurs (a few dozen)', `contributeurs=${encodeURIComponent(contributorPid)}`],
  ['niveaux', 'niveaux=6e'],
  ['categories', 'categories=7'],
  ['typePedagogiques', 'typePedagogiques=3'],
  ['typeDocumentaires', 'typeDocumentaires=12'],
  ['groupes', `groupes=${groupName}`],
  ['groupesAuteurs (none in the seed)', `groupesAuteurs=${groupName}`],
  ['publie', 'publie=false'],
  ['restriction', 'restriction=2'],
  ['aliasOf', 'aliasOf=bench/3'],
  ['dateCreation', 'dateCreation=2023-03-01'],
  ['dateMiseAJour', 'dateMiseAJour=2023-03-01'],
  ['order by titre', 'orderBy=titre'],
  ['order by dateMiseAJour desc', 'orderBy=dateMiseAJour&order=desc'],
  ['order by type', 'orderBy=type'],
  ['fulltext', 'fulltext=fractions%20triangle'],
  ['type + categories + order', 'type=em&categories=7&orderBy=dateMiseAJour&order=desc'],
];

let explain: (sql: string, params: unknown[]) => Promise<string[]>;
if (client.provider === 'sqlite') {
  const raw = new Database(sqlitePath(databaseUrl), { readonly: true });
  explain = async (sql, params) =>
    (
      raw
        .prepare(`EXPLAIN QUERY PLAN ${sql}`)
        .all(...params.map((p) => (typeof p === 'boolean' ? Number(p) : p))) as {
        detail: string;
      }[]
    ).map((row) => row.detail);
} else {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  explain = async (sql, params) =>
    (await client.query(`EXPLAIN ${sql}`, params)).rows.map(
      (row: Record<string, string>) => row['QUERY PLAN']!,
    );
}

/**
 * Full scans of the resource table (the planner's words differ per database). A scan *of an index*
 * in order (ordering with a limit) is not one.
 */
const fullScan = (plan: string[]) =>
  plan.some((line) => /^SCAN (main\.)?(r|Resource)$|Seq Scan on "Resource"( r)? /.test(line.trim()));

let scans = 0;
let planned = 0;
for (const [label, query] of cases) {
  for (const caller of ['anonymous', 'token'] as const) {
    const statements: { sql: string; params: unknown[] }[] = [];
    const stop = onStatement((sql, params) => statements.push({ sql, params: JSON.parse(params || '[]') }));
    const call = request(app).get(`/api/liste?${query}&nb=50`);
    if (caller === 'token') call.set('X-ApiToken', BENCH_TOKEN);
    const response = await call;
    stop();
    if (response.status !== 200)
      throw new Error(`${label}: ${response.status} ${JSON.stringify(response.body)}`);
    // The page and the count: the statements reading the resource table or the word index first.
    const isCount = (sql: string) => /^SELECT count\(\*\)/i.test(sql);
    const main = statements
      .map(({ sql, params }) => ({ sql: sql.replace(/^\/\* prepared \*\/ /, ''), params }))
      .filter(
        ({ sql }) =>
          isCount(sql) || /^SELECT .* FROM [`"]?(main[`"]?\.)?[`"]?Resource(Word)?[`"]? .*LIMIT/s.test(sql),
      );
    for (const { sql, params } of main.slice(0, 2)) {
      const plan = await explain(sql, params);
      const scan = fullScan(plan);
      if (scan) scans += 1;
      planned += 1;
      console.log(
        `\n## ${label} (${caller}) ${isCount(sql) ? 'count' : 'page'}${scan ? '  <-- full scan' : ''}`,
      );
      for (const line of plan.slice(0, 8)) console.log(`   ${line}`);
    }
  }
}
console.log(
  `\n${cases.length * 2} requests, ${scans} of their ${planned} statements with a full scan of Resource`,
);
await close();
process.exit(0);
