-- AlterTable
ALTER TABLE "Resource" ADD COLUMN     "licence" TEXT;

-- CreateIndex
CREATE INDEX "Resource_licence_idx" ON "Resource"("licence");

-- The harvest triggers, written from the field catalogue (scripts/harvest-triggers.ts): the
-- columns whose change gives a record a new datestamp changed.
CREATE OR REPLACE FUNCTION "resource_harvest"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  stamp timestamp(3) := "harvest_stamp"();
BEGIN
  -- A statement trigger sees only the transition tables its event has.
  IF TG_OP = 'INSERT' THEN
    INSERT INTO "HarvestEntry" ("oid", "datestamp", "deleted", "type", "levelTags", "categoryTags")
    SELECT n."oid", stamp, false, n."type", n."levelTags", n."categoryTags" FROM new_rows n
    WHERE n."publie" AND n."restriction" = 0 AND n."indexable" AND n."aliasOf" IS NULL
    ON CONFLICT ("oid") DO UPDATE SET "datestamp" = EXCLUDED."datestamp", "deleted" = false,
    "type" = EXCLUDED."type", "levelTags" = EXCLUDED."levelTags", "categoryTags" = EXCLUDED."categoryTags";
  ELSIF TG_OP = 'UPDATE' THEN
    UPDATE "HarvestEntry" e SET "deleted" = true, "datestamp" = stamp
    FROM new_rows n WHERE e."oid" = n."oid" AND NOT e."deleted" AND NOT (n."publie" AND n."restriction" = 0 AND n."indexable" AND n."aliasOf" IS NULL);
    INSERT INTO "HarvestEntry" ("oid", "datestamp", "deleted", "type", "levelTags", "categoryTags")
    SELECT n."oid", stamp, false, n."type", n."levelTags", n."categoryTags"
    FROM new_rows n JOIN old_rows o ON o."oid" = n."oid" LEFT JOIN "HarvestEntry" e ON e."oid" = n."oid"
    WHERE n."publie" AND n."restriction" = 0 AND n."indexable" AND n."aliasOf" IS NULL
      AND (e."oid" IS NULL OR e."deleted" OR (
        o."titre",
        o."resume",
        o."description",
        o."type",
        o."langue",
        CASE WHEN o."type" = 'url' THEN o."parametres" -> 'adresse' END,
        o."dateCreation",
        o."licence",
        o."levelTags",
        o."categoryTags"
      ) IS DISTINCT FROM (
        n."titre",
        n."resume",
        n."description",
        n."type",
        n."langue",
        CASE WHEN n."type" = 'url' THEN n."parametres" -> 'adresse' END,
        n."dateCreation",
        n."licence",
        n."levelTags",
        n."categoryTags"
      ))
    ON CONFLICT ("oid") DO UPDATE SET "datestamp" = EXCLUDED."datestamp", "deleted" = false,
    "type" = EXCLUDED."type", "levelTags" = EXCLUDED."levelTags", "categoryTags" = EXCLUDED."categoryTags";
  ELSE
    UPDATE "HarvestEntry" e SET "deleted" = true, "datestamp" = stamp
    FROM old_rows o WHERE e."oid" = o."oid" AND NOT e."deleted";
  END IF;
  RETURN NULL;
END $$;
