-- AlterTable
ALTER TABLE "Resource" ADD COLUMN "licence" TEXT;

-- CreateIndex
CREATE INDEX "Resource_licence_idx" ON "Resource"("licence");

-- The harvest triggers, written from the field catalogue (scripts/harvest-triggers.ts): the
-- columns whose change gives a record a new datestamp changed.
DROP TRIGGER "Resource_harvest_update";
CREATE TRIGGER "Resource_harvest_update" AFTER UPDATE ON "Resource"
WHEN NEW."publie" AND NEW."restriction" = 0 AND NEW."indexable" AND NEW."aliasOf" IS NULL AND (
    NOT EXISTS (SELECT 1 FROM "HarvestEntry" e WHERE e."oid" = NEW."oid" AND NOT e."deleted")
    OR OLD."titre" IS NOT NEW."titre"
    OR OLD."resume" IS NOT NEW."resume"
    OR OLD."description" IS NOT NEW."description"
    OR OLD."type" IS NOT NEW."type"
    OR OLD."langue" IS NOT NEW."langue"
    OR (CASE WHEN OLD."type" = 'url' AND json_valid(OLD."parametres") THEN json_extract(OLD."parametres", '$.adresse') END) IS NOT (CASE WHEN NEW."type" = 'url' AND json_valid(NEW."parametres") THEN json_extract(NEW."parametres", '$.adresse') END)
    OR OLD."dateCreation" IS NOT NEW."dateCreation"
    OR OLD."licence" IS NOT NEW."licence"
    OR OLD."levelTags" IS NOT NEW."levelTags"
    OR OLD."categoryTags" IS NOT NEW."categoryTags")
BEGIN
  INSERT INTO "HarvestEntry" ("oid", "datestamp", "deleted", "type", "levelTags", "categoryTags")
  VALUES (NEW."oid", strftime('%Y-%m-%dT%H:%M:%S.000+00:00', 'now'), false, NEW."type", NEW."levelTags", NEW."categoryTags")
  ON CONFLICT ("oid") DO UPDATE SET "datestamp" = excluded."datestamp", "deleted" = false,
    "type" = excluded."type", "levelTags" = excluded."levelTags", "categoryTags" = excluded."categoryTags";
END;
