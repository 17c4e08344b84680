/**
 * Migration histories, one per provider, both generated from prisma/schema.prisma.
 *
 *   tsx scripts/db-migrate.ts deploy       apply pending migrations to DATABASE_URL
 *   tsx scripts/db-migrate.ts new <name>   add a migration to both histories (SQLite and PostgreSQL):
 *                                          the model's changes, and the harvest triggers when the
 *                                          catalogue's restamping fields changed (harvest-triggers.ts)
 *   tsx scripts/db-migrate.ts check        exit 1 when a history or the derived schema is stale
 *
 * `new` and `check` replay each history into a shadow database and diff it against the model. The
 * PostgreSQL side needs a server: TEST_POSTGRES_URL, default postgresql://postgres@127.0.0.1:5432/test
 * (only its shadow databases are written to).
 */
import { execFile } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { DEFAULT_DATABASE_URL, type Provider, prismaPaths } from '../src/db/database-url.ts';
import { applyMigrations } from '../src/db/migrate.ts';
import { derivePostgresSchema } from './derive-schemas.ts';
import { harvestTriggerChange } from './harvest-triggers.ts';

const run = promisify(execFile);
const cliUrls: Record<Provider, string> = {
  // The SQLite shadow database lives in memory; this file is never created.
  sqlite: `file:${join(tmpdir(), 'rrs-migrate-diff.db')}`,
  postgresql: process.env.TEST_POSTGRES_URL ?? 'postgresql://postgres@127.0.0.1:5432/test',
};

/** SQL that would bring the provider's migration history up to the model ('' when in step). */
export async function pendingSql(
  provider: Provider,
  migrations: string = prismaPaths[provider].migrations,
): Promise<string> {
  const { schema } = prismaPaths[provider];
  const { stdout } = await run(
    'npx',
    [
      'prisma',
      'migrate',
      'diff',
      '--from-migrations',
      migrations,
      '--to-schema-datamodel',
      schema,
      '--script',
    ],
    { env: { ...process.env, DATABASE_URL: cliUrls[provider], PRISMA_HIDE_UPDATE_MESSAGE: '1' } },
  );
  return stdout.replace('-- This is an empty migration.', '').trim();
}

/** The texts of a provider's migrations, in the order they apply. */
function historyTexts(provider: Provider): string[] {
  const { migrations } = prismaPaths[provider];
  return readdirSync(migrations)
    .filter((name) => /^\d/.test(name))
    .sort()
    .map((folder) => readFileSync(join(migrations, folder, 'migration.sql'), 'utf8'));
}

/**
 * What a new migration of `provider` must hold: the model's changes (Prisma's diff), then the
 * harvest triggers where the catalogue's restamping fields changed ('' when in step).
 */
async function pendingMigration(provider: Provider): Promise<string> {
  const sql = await pendingSql(provider);
  const model = sql && provider === 'sqlite' ? sqliteMigrationScript(sql) : sql;
  const triggers = harvestTriggerChange(provider, historyTexts(provider));
  return [model, triggers].filter(Boolean).join('\n\n');
}

/**
 * The triggers the SQLite history defines on each table, as their latest CREATE TRIGGER (one a
 * later migration drops is left out): a table redefinition drops its table's triggers with it.
 */
export function historyTriggers(migrations: string = prismaPaths.sqlite.migrations): Map<string, string[]> {
  const byName = new Map<string, { table: string; sql: string }>();
  for (const folder of readdirSync(migrations)
    .filter((name) => /^\d/.test(name))
    .sort()) {
    const text = readFileSync(join(migrations, folder, 'migration.sql'), 'utf8');
    // In the order of the text: a migration that changes a trigger drops it, then creates it again.
    for (const [sql, created, table, dropped] of text.matchAll(
      /CREATE TRIGGER "([^"]+)" (?:AFTER|BEFORE|INSTEAD OF) \w+(?: OF [^\n]*?)? ON "([^"]+)"[\s\S]*?\nEND;|DROP TRIGGER (?:IF EXISTS )?"([^"]+)"/g,
    )) {
      if (created) byName.set(created, { table: table!, sql });
      else byName.delete(dropped!);
    }
  }
  const byTable = new Map<string, string[]>();
  for (const { table, sql } of byName.values()) byTable.set(table, [...(byTable.get(table) ?? []), sql]);
  return byTable;
}

/**
 * A SQLite migration as Prisma writes it, made to replay with the triggers of the history: a
 * table redefinition ends by renaming `new_X` to X, and SQLite then checks every trigger, failing
 * on those that name X (dropped a moment before: the list tags' triggers name Resource). With
 * `legacy_alter_table` the rename leaves triggers alone, and they name the new table once renamed.
 * The service's runner sets it on its connection too; Prisma's shadow database needs it here.
 * Dropping X dropped the triggers on X (the harvest entries' on Resource): they are created again.
 */
export function sqliteMigrationScript(
  sql: string,
  triggers: Map<string, string[]> = historyTriggers(),
): string {
  if (!sql.includes('ALTER TABLE "new_')) return sql;
  const redefined = [...sql.matchAll(/ALTER TABLE "new_([^"]+)" RENAME TO "\1"/g)].map(([, table]) => table!);
  const again = redefined.flatMap((table) => triggers.get(table) ?? []);
  const recreated = again.length
    ? `\n\n-- The triggers on the tables redefined, dropped with them.\n${again.join('\n')}`
    : '';
  return `PRAGMA legacy_alter_table=ON;\n${sql}\nPRAGMA legacy_alter_table=OFF;${recreated}`;
}

async function main(): Promise<void> {
  const [command, name] = process.argv.slice(2);
  if (command === 'deploy') {
    const say = (fields: object, message: string) => console.log(message, JSON.stringify(fields));
    await applyMigrations(process.env.DATABASE_URL || DEFAULT_DATABASE_URL, { info: say, warn: say });
    return;
  }
  const derived = derivePostgresSchema(readFileSync(prismaPaths.sqlite.schema, 'utf8'));
  if (command === 'new') {
    if (!name || !/^[a-z0-9_]+$/.test(name)) throw new Error('usage: db-migrate new <snake_case_name>');
    writeFileSync(prismaPaths.postgresql.schema, derived);
    const stamp = new Date().toISOString().replace(/\D/g, '').slice(0, 14);
    for (const provider of ['sqlite', 'postgresql'] as const) {
      const sql = await pendingMigration(provider);
      if (!sql) {
        console.log(`${provider}: already in step, no migration written`);
        continue;
      }
      const dir = join(prismaPaths[provider].migrations, `${stamp}_${name}`);
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'migration.sql'), `${sql}\n`);
      console.log(`${provider}: wrote ${dir}/migration.sql`);
    }
    return;
  }
  if (command === 'check') {
    const problems: string[] = [];
    if (readFileSync(prismaPaths.postgresql.schema, 'utf8') !== derived) {
      problems.push(`${prismaPaths.postgresql.schema} is stale: run npm run db:derive`);
    }
    for (const provider of ['sqlite', 'postgresql'] as const) {
      const sql = await pendingMigration(provider);
      if (sql)
        problems.push(
          `${provider} migrations are behind the model or the field catalogue (npm run db:migration:new -- <name>); missing:\n${sql}`,
        );
    }
    if (problems.length > 0) {
      console.error(problems.join('\n'));
      process.exit(1);
    }
    console.log('schemas and both migration histories are in step with the model');
    return;
  }
  throw new Error('usage: db-migrate deploy | new <name> | check');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((error) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
