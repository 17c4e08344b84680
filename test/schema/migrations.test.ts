/**
 * The two migration histories and the derived PostgreSQL schema stay in step with the one model
 * (prisma/schema.prisma). Each suite checks its own provider's history.
 */
import { copyFileSync, cpSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { pendingSql, sqliteMigrationScript } from '../../scripts/db-migrate.ts';
import { derivePostgresSchema } from '../../scripts/derive-schemas.ts';
import { prismaPaths } from '../../src/db/database-url.ts';
import { applyMigrations } from '../../src/db/migrate.ts';
import { createEmptyDatabase, dropTestDatabase, provider } from '../setup/test-databases.ts';
import { scratchDir } from '../support/scratch.ts';

describe('migrations', () => {
  it('prisma/postgresql/schema.prisma is derived from the current model (npm run db:derive)', () => {
    const derived = derivePostgresSchema(readFileSync(prismaPaths.sqlite.schema, 'utf8'));
    expect(readFileSync(prismaPaths.postgresql.schema, 'utf8')).toBe(derived);
  });

  it(`the ${provider} history produces the model (npm run db:migration:new -- <name>)`, async () => {
    expect(await pendingSql(provider)).toBe('');
  });

  it(`the check notices a ${provider} history that lags behind the model`, async () => {
    const empty = scratchDir('history');
    copyFileSync(
      join(prismaPaths[provider].migrations, 'migration_lock.toml'),
      join(empty, 'migration_lock.toml'),
    );
    expect(await pendingSql(provider, empty)).toMatch(/CREATE TABLE "Person"/);
  });

  it(`the ${provider} list_tags migration gives the resources already there their tags`, async () => {
    const before = scratchDir('history');
    cpSync(prismaPaths[provider].migrations, before, { recursive: true });
    withoutMigrationsFrom(before, '20261126191122_list_tags');
    const url = await createEmptyDatabase('tags');
    try {
      await applyMigrations(url, undefined, before);
      await sql(url, [
        `INSERT INTO "Resource" ("oid", "origine", "idOrigine", "type") VALUES (1, 'a', '1', 'em'), (2, 'a', '2', 'em'), (3, 'a', '3', 'em')`,
        `INSERT INTO "ResourceLevel" ("resourceOid", "level", "position") VALUES (1, '5e', 1), (1, 'a|b%', 0), (2, 'cp', 0)`,
        `INSERT INTO "ResourceCategory" ("resourceOid", "categoryId", "position") VALUES (1, 7, 0), (3, 9, 1), (3, 2, 0)`,
      ]);
      await applyMigrations(url);
      const read = 'SELECT "oid", "levelTags", "categoryTags" FROM "Resource" ORDER BY "oid"';
      expect(await sql(url, [read])).toEqual([
        { oid: 1, levelTags: '|a%7Cb%25|5e|', categoryTags: '|7|' },
        { oid: 2, levelTags: '|cp|', categoryTags: '' },
        { oid: 3, levelTags: '', categoryTags: '|2|9|' },
      ]);
      // A row moved to another resource by hand (the update triggers): both resources follow.
      await sql(url, [`UPDATE "ResourceLevel" SET "resourceOid" = 3 WHERE "level" = 'cp'`]);
      expect((await sql(url, [read])).map((row) => row.levelTags)).toEqual(['|a%7Cb%25|5e|', '', '|cp|']);
    } finally {
      await dropTestDatabase(url);
    }
  });

  it(`the ${provider} harvest_entries migration gives the resources exposed then an entry stamped with their last change`, async () => {
    const before = scratchDir('history');
    cpSync(prismaPaths[provider].migrations, before, { recursive: true });
    withoutMigrationsFrom(before, readdirSync(before).find((name) => name.endsWith('_harvest_entries'))!);
    const url = await createEmptyDatabase('harvest');
    try {
      await applyMigrations(url, undefined, before);
      // Dates as Prisma stores them on each database (UTC).
      const at = provider === 'sqlite' ? '2020-05-06T07:08:09.123+00:00' : '2020-05-06 07:08:09.123';
      await sql(url, [
        `INSERT INTO "Resource" ("oid", "origine", "idOrigine", "type", "publie", "restriction", "indexable", "aliasOf", "dateMiseAJour") VALUES
          (1, 'a', '1', 'em', true, 0, true, NULL, '${at}'),
          (2, 'a', '2', 'em', false, 0, true, NULL, '${at}'),
          (3, 'a', '3', 'em', true, 2, true, NULL, '${at}'),
          (4, 'a', '4', 'em', true, 0, false, NULL, '${at}'),
          (5, 'a', '5', 'em', true, 0, true, 'b/1', '${at}')`,
        `INSERT INTO "ResourceLevel" ("resourceOid", "level", "position") VALUES (1, '6e', 0)`,
      ]);
      await applyMigrations(url);
      const stamp =
        provider === 'sqlite'
          ? '"datestamp"'
          : `to_char("datestamp", 'YYYY-MM-DD"T"HH24:MI:SS.MS') || '+00:00'`;
      expect(
        await sql(url, [
          `SELECT "oid", ${stamp} AS "datestamp", "deleted", "type", "levelTags" FROM "HarvestEntry" ORDER BY "oid"`,
        ]),
      ).toEqual([
        {
          oid: 1,
          datestamp: '2020-05-06T07:08:09.000+00:00',
          deleted: provider === 'sqlite' ? 0 : false,
          type: 'em',
          levelTags: '|6e|',
        },
      ]);
    } finally {
      await dropTestDatabase(url);
    }
  });

  describe.runIf(provider === 'sqlite')('a later migration redefining Resource (sqlite)', () => {
    // Prisma's way of changing a SQLite table: a copy, the old one dropped, the copy renamed. The
    // copy is the table as the list_tags migration defined it, with one more column.
    const listTags = readFileSync(
      join(prismaPaths.sqlite.migrations, '20261126191122_list_tags', 'migration.sql'),
      'utf8',
    );
    // With the columns later migrations added (the licence's).
    const added = readdirSync(prismaPaths.sqlite.migrations)
      .filter((name) => name > '20261126191122_list_tags' && /^\d/.test(name))
      .flatMap((name) => [
        ...readFileSync(join(prismaPaths.sqlite.migrations, name, 'migration.sql'), 'utf8').matchAll(
          /ALTER TABLE "Resource" ADD COLUMN ("\w+" [^;]+);/g,
        ),
      ])
      .map((match) => `,\n    ${match[1]}`)
      .join('');
    const table = /CREATE TABLE "new_Resource" \(([^;]*)\n\);/.exec(listTags)![1] + added;
    const redefinition = [
      '-- RedefineTables',
      'PRAGMA defer_foreign_keys=ON;',
      'PRAGMA foreign_keys=OFF;',
      `CREATE TABLE "new_Resource" (${table},\n    "extra" TEXT\n);`,
      'INSERT INTO "new_Resource" SELECT *, NULL FROM "Resource";',
      'DROP TABLE "Resource";',
      'ALTER TABLE "new_Resource" RENAME TO "Resource";',
      'PRAGMA foreign_keys=ON;',
      'PRAGMA defer_foreign_keys=OFF;',
    ].join('\n');

    /** The history with one more migration holding `sql`. */
    function historyWith(sql: string): string {
      const folder = scratchDir('history');
      cpSync(prismaPaths.sqlite.migrations, folder, { recursive: true });
      mkdirSync(join(folder, '99990101000000_redefine_resource'));
      writeFileSync(join(folder, '99990101000000_redefine_resource', 'migration.sql'), `${sql}\n`);
      return folder;
    }

    it('fails to replay as Prisma writes it: the rename trips on the list tags triggers', async () => {
      await expect(pendingSql('sqlite', historyWith(redefinition))).rejects.toThrow(/P3006/);
    });

    it('replays as db:migration:new writes it, in Prisma', async () => {
      const folder = historyWith(sqliteMigrationScript(redefinition));
      // It replays: what remains is to undo the test's change (the model has no `extra`).
      expect(await pendingSql('sqlite', folder)).toContain('CREATE TABLE "new_Resource"');
    });

    it('keeps the harvest entries as db:migration:new writes it: the triggers on Resource are created again', async () => {
      const folder = historyWith(sqliteMigrationScript(redefinition));
      const file = join(scratchDir('redefined'), 'repository.db');
      await applyMigrations(`file:${file}`, undefined, folder);
      const database = new Database(file);
      try {
        database.exec(
          `INSERT INTO "Resource" ("oid", "origine", "idOrigine", "type", "publie") VALUES (1, 'a', '1', 'em', true)`,
        );
        // Each trigger as the history last defines it: the update trigger restamps on the title,
        // not on dateMiseAJour (harvest_disseminated_changes).
        const longAgo = '2001-01-01T00:00:00.000+00:00';
        const stampAfter = (change: string) => {
          database.exec(`UPDATE "HarvestEntry" SET "datestamp" = '${longAgo}'`);
          database.exec(change);
          return database.prepare('SELECT "datestamp" FROM "HarvestEntry"').pluck().get();
        };
        expect(stampAfter(`UPDATE "Resource" SET "titre" = 'Autre'`)).not.toBe(longAgo);
        expect(stampAfter(`UPDATE "Resource" SET "dateMiseAJour" = '2020-01-01T00:00:00.000+00:00'`)).toBe(
          longAgo,
        );
        database.exec(`UPDATE "Resource" SET "restriction" = 3 WHERE "oid" = 1`);
        expect(database.prepare('SELECT "oid", "deleted" FROM "HarvestEntry"').all()).toEqual([
          { oid: 1, deleted: 1 },
        ]);
      } finally {
        database.close();
      }
    });

    it('replays in the service even as Prisma writes it, the triggers still at work', async () => {
      const folder = historyWith(redefinition);
      const file = join(scratchDir('redefined'), 'repository.db');
      await applyMigrations(`file:${file}`, undefined, folder);
      const database = new Database(file);
      try {
        database.exec(
          `INSERT INTO "Resource" ("oid", "origine", "idOrigine", "type") VALUES (1, 'a', '1', 'em')`,
        );
        database.exec(`INSERT INTO "ResourceLevel" ("resourceOid", "level", "position") VALUES (1, '6e', 0)`);
        expect(database.prepare('SELECT "levelTags", "extra" FROM "Resource"').get()).toEqual({
          levelTags: '|6e|',
          extra: null,
        });
      } finally {
        database.close();
      }
    });
  });
});

/** Removes migration `first` and every later one from the history in `folder`. */
function withoutMigrationsFrom(folder: string, first: string): void {
  for (const name of readdirSync(folder)) {
    if (/^\d/.test(name) && name >= first) rmSync(join(folder, name), { recursive: true });
  }
}

/** Runs `statements` one by one on `url`; the rows of the last. */
async function sql(url: string, statements: string[]): Promise<Record<string, unknown>[]> {
  let rows: Record<string, unknown>[] = [];
  if (provider === 'sqlite') {
    const database = new Database(url.replace(/^file:/, ''));
    try {
      for (const statement of statements) {
        const prepared = database.prepare(statement);
        if (prepared.reader) {
          rows = prepared.all() as Record<string, unknown>[];
        } else {
          prepared.run();
          rows = [];
        }
      }
    } finally {
      database.close();
    }
    return rows;
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (const statement of statements) rows = (await client.query(statement)).rows;
  } finally {
    await client.end();
  }
  return rows;
}
