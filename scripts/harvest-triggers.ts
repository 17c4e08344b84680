/**
 * The harvest triggers of both databases, written from the field catalogue: a record's datestamp
 * moves when, and only when, something it disseminates or its visibility changes (docs/oai-pmh.md,
 * "Datestamps"). The columns compared are the catalogue's `harvest: 'restamps'` fields and the tag
 * columns the database keeps. `npm run db:migration:new` adds them to a migration when the latest
 * ones of the history differ, and `npm run db:check` fails until it has; so a field declared to
 * restamp needs no hand-written SQL. test/schema/resource-fields.test.ts holds the histories to it.
 */
import {
  DATABASE_KEPT_COLUMNS,
  fieldsWhere,
  RESOURCE_FIELDS,
  type ResourceFieldName,
} from '../src/catalogue/resource-fields.ts';

/** Who may harvest a record: public, published, indexable, not an alias (the harvest module's rule). */
const VISIBLE = (row: string) =>
  `${row}."publie" AND ${row}."restriction" = 0 AND ${row}."indexable" AND ${row}."aliasOf" IS NULL`;

/**
 * The value of a field as harvesters receive it, where it is not the column: of `parametres`, the
 * formats show only an url resource's address (src/modules/harvest/harvest.service.ts, addressOf), so
 * an exercise's settings saved again do not restamp it. SQLite: a text that is not JSON has none.
 */
const HARVESTED_VALUE: Partial<
  Record<ResourceFieldName, { sqlite: (row: string) => string; postgresql: (row: string) => string }>
> = {
  parametres: {
    sqlite: (row) =>
      `(CASE WHEN ${row}."type" = 'url' AND json_valid(${row}."parametres") THEN json_extract(${row}."parametres", '$.adresse') END)`,
    postgresql: (row) => `CASE WHEN ${row}."type" = 'url' THEN ${row}."parametres" -> 'adresse' END`,
  },
};

/** The columns compared: the catalogue's restamping fields, then the tags the database keeps. */
export function comparedColumns(): string[] {
  const restamping = fieldsWhere((field) => field.harvest === 'restamps');
  for (const name of restamping) {
    if (RESOURCE_FIELDS[name].kind === 'json' && !HARVESTED_VALUE[name]) {
      throw new Error(
        `${name}: a JSON field restamps by the value harvesters receive: add it to HARVESTED_VALUE`,
      );
    }
  }
  return [...restamping, ...DATABASE_KEPT_COLUMNS];
}

const harvestedValue = (dialect: 'sqlite' | 'postgresql', row: string, column: string) =>
  HARVESTED_VALUE[column as ResourceFieldName]?.[dialect](row) ?? `${row}."${column}"`;

const ENTRY_COLUMNS = `"oid", "datestamp", "deleted", "type", "levelTags", "categoryTags"`;
const ENTRY_UPDATE = (excluded: string) =>
  `"datestamp" = ${excluded}."datestamp", "deleted" = false,\n    "type" = ${excluded}."type", "levelTags" = ${excluded}."levelTags", "categoryTags" = ${excluded}."categoryTags"`;

/** SQLite: the row trigger of an update (insert and delete triggers compare nothing). */
export function sqliteHarvestTrigger(): string {
  const changed = comparedColumns()
    .map(
      (column) =>
        `    OR ${harvestedValue('sqlite', 'OLD', column)} IS NOT ${harvestedValue('sqlite', 'NEW', column)}`,
    )
    .join('\n');
  return `DROP TRIGGER "Resource_harvest_update";
CREATE TRIGGER "Resource_harvest_update" AFTER UPDATE ON "Resource"
WHEN ${VISIBLE('NEW')} AND (
    NOT EXISTS (SELECT 1 FROM "HarvestEntry" e WHERE e."oid" = NEW."oid" AND NOT e."deleted")
${changed})
BEGIN
  INSERT INTO "HarvestEntry" (${ENTRY_COLUMNS})
  VALUES (NEW."oid", strftime('%Y-%m-%dT%H:%M:%S.000+00:00', 'now'), false, NEW."type", NEW."levelTags", NEW."categoryTags")
  ON CONFLICT ("oid") DO UPDATE SET ${ENTRY_UPDATE('excluded')};
END;`;
}

/** PostgreSQL: the function of the statement triggers (a statement sees only its event's transition tables). */
export function postgresHarvestFunction(): string {
  const tuple = (row: string) =>
    comparedColumns()
      .map((column) => `        ${harvestedValue('postgresql', row, column)}`)
      .join(',\n');
  return `CREATE OR REPLACE FUNCTION "resource_harvest"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  stamp timestamp(3) := "harvest_stamp"();
BEGIN
  -- A statement trigger sees only the transition tables its event has.
  IF TG_OP = 'INSERT' THEN
    INSERT INTO "HarvestEntry" (${ENTRY_COLUMNS})
    SELECT n."oid", stamp, false, n."type", n."levelTags", n."categoryTags" FROM new_rows n
    WHERE ${VISIBLE('n')}
    ON CONFLICT ("oid") DO UPDATE SET ${ENTRY_UPDATE('EXCLUDED')};
  ELSIF TG_OP = 'UPDATE' THEN
    UPDATE "HarvestEntry" e SET "deleted" = true, "datestamp" = stamp
    FROM new_rows n WHERE e."oid" = n."oid" AND NOT e."deleted" AND NOT (${VISIBLE('n')});
    INSERT INTO "HarvestEntry" (${ENTRY_COLUMNS})
    SELECT n."oid", stamp, false, n."type", n."levelTags", n."categoryTags"
    FROM new_rows n JOIN old_rows o ON o."oid" = n."oid" LEFT JOIN "HarvestEntry" e ON e."oid" = n."oid"
    WHERE ${VISIBLE('n')}
      AND (e."oid" IS NULL OR e."deleted" OR (
${tuple('o')}
      ) IS DISTINCT FROM (
${tuple('n')}
      ))
    ON CONFLICT ("oid") DO UPDATE SET ${ENTRY_UPDATE('EXCLUDED')};
  ELSE
    UPDATE "HarvestEntry" e SET "deleted" = true, "datestamp" = stamp
    FROM old_rows o WHERE e."oid" = o."oid" AND NOT e."deleted";
  END IF;
  RETURN NULL;
END $$;`;
}

/** Text compared without its layout: whitespace runs are one space, none beside punctuation. */
export const normalisedSql = (sql: string) =>
  sql
    .replace(/--[^\n]*/g, '')
    .replace(/\s+/g, ' ')
    .replace(/\s*([(),;=])\s*/g, '$1')
    .trim();

/** The harvest trigger SQL a dialect's history defines last (`undefined`: none yet). */
export function latestHarvestTrigger(
  dialect: 'sqlite' | 'postgresql',
  migrationTexts: string[],
): string | undefined {
  const pattern =
    dialect === 'sqlite'
      ? /DROP TRIGGER "Resource_harvest_update";\s*CREATE TRIGGER "Resource_harvest_update"[\s\S]*?\nEND;/g
      : /CREATE OR REPLACE FUNCTION "resource_harvest"\(\)[\s\S]*?END \$\$;/g;
  const found = migrationTexts.flatMap((text) => [...text.matchAll(pattern)].map((match) => match[0]));
  return found.at(-1);
}

/** The harvest trigger SQL to append to a new migration of `dialect`, or '' when the history's latest is current. */
export function harvestTriggerChange(dialect: 'sqlite' | 'postgresql', migrationTexts: string[]): string {
  const wanted = dialect === 'sqlite' ? sqliteHarvestTrigger() : postgresHarvestFunction();
  const latest = latestHarvestTrigger(dialect, migrationTexts);
  if (latest !== undefined && normalisedSql(latest) === normalisedSql(wanted)) return '';
  return `-- The harvest triggers, written from the field catalogue (scripts/harvest-triggers.ts): the
-- columns whose change gives a record a new datestamp changed.
${wanted}`;
}
