-- CreateTable
CREATE TABLE "HarvestEntry" (
    "oid" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "datestamp" DATETIME NOT NULL,
    "deleted" BOOLEAN NOT NULL DEFAULT false,
    "type" TEXT NOT NULL,
    "levelTags" TEXT NOT NULL DEFAULT '',
    "categoryTags" TEXT NOT NULL DEFAULT ''
);

-- CreateIndex
CREATE INDEX "HarvestEntry_datestamp_oid_idx" ON "HarvestEntry"("datestamp", "oid");

-- CreateIndex
CREATE INDEX "HarvestEntry_type_oid_idx" ON "HarvestEntry"("type", "oid");

-- The harvest entries (src/read-model/harvest.ts), kept by the database whatever writes Resource
-- and the join tables a record is made of (the service, copies, the importer's raw SQL, a restore,
-- an operator's SQL), in the transaction of the change: a rolled-back change leaves no entry.
-- Exposed: published, public (restriction 0), indexable, not an alias. An exposed resource has a
-- live entry, stamped now when it becomes exposed or when something its record shows changes
-- (the columns below; its levels and categories reach Resource as tags through the list_tags
-- triggers; its authors, contributors and types through the triggers on their tables); a live
-- entry whose resource is deleted or no longer exposed becomes a deleted record, stamped now.
-- Stamps are UTC truncated to the second, as Prisma stores a DateTime, so that from/until compare
-- exactly. Persons' names are not followed: a rename does not restamp the records of their resources.
-- SQLite drops a table's triggers with the table: a migration that redefines Resource must create
-- the four Resource_harvest_* triggers again (test/integration/harvest.test.ts checks they exist).

CREATE TRIGGER "Resource_harvest_insert" AFTER INSERT ON "Resource"
WHEN NEW."publie" AND NEW."restriction" = 0 AND NEW."indexable" AND NEW."aliasOf" IS NULL
BEGIN
  INSERT INTO "HarvestEntry" ("oid", "datestamp", "deleted", "type", "levelTags", "categoryTags")
  VALUES (NEW."oid", strftime('%Y-%m-%dT%H:%M:%S.000+00:00', 'now'), false, NEW."type", NEW."levelTags", NEW."categoryTags")
  ON CONFLICT ("oid") DO UPDATE SET "datestamp" = excluded."datestamp", "deleted" = false,
    "type" = excluded."type", "levelTags" = excluded."levelTags", "categoryTags" = excluded."categoryTags";
END;
CREATE TRIGGER "Resource_harvest_update" AFTER UPDATE ON "Resource"
WHEN NEW."publie" AND NEW."restriction" = 0 AND NEW."indexable" AND NEW."aliasOf" IS NULL AND (
    NOT EXISTS (SELECT 1 FROM "HarvestEntry" e WHERE e."oid" = NEW."oid" AND NOT e."deleted")
    OR OLD."titre" IS NOT NEW."titre"
    OR OLD."resume" IS NOT NEW."resume"
    OR OLD."description" IS NOT NEW."description"
    OR OLD."type" IS NOT NEW."type"
    OR OLD."langue" IS NOT NEW."langue"
    OR OLD."parametres" IS NOT NEW."parametres"
    OR OLD."dateCreation" IS NOT NEW."dateCreation"
    OR OLD."dateMiseAJour" IS NOT NEW."dateMiseAJour"
    OR OLD."levelTags" IS NOT NEW."levelTags"
    OR OLD."categoryTags" IS NOT NEW."categoryTags")
BEGIN
  INSERT INTO "HarvestEntry" ("oid", "datestamp", "deleted", "type", "levelTags", "categoryTags")
  VALUES (NEW."oid", strftime('%Y-%m-%dT%H:%M:%S.000+00:00', 'now'), false, NEW."type", NEW."levelTags", NEW."categoryTags")
  ON CONFLICT ("oid") DO UPDATE SET "datestamp" = excluded."datestamp", "deleted" = false,
    "type" = excluded."type", "levelTags" = excluded."levelTags", "categoryTags" = excluded."categoryTags";
END;
CREATE TRIGGER "Resource_harvest_withdraw" AFTER UPDATE ON "Resource"
WHEN NOT (NEW."publie" AND NEW."restriction" = 0 AND NEW."indexable" AND NEW."aliasOf" IS NULL)
BEGIN
  UPDATE "HarvestEntry" SET "deleted" = true, "datestamp" = strftime('%Y-%m-%dT%H:%M:%S.000+00:00', 'now')
  WHERE "oid" = NEW."oid" AND NOT "deleted";
END;
CREATE TRIGGER "Resource_harvest_delete" AFTER DELETE ON "Resource"
BEGIN
  UPDATE "HarvestEntry" SET "deleted" = true, "datestamp" = strftime('%Y-%m-%dT%H:%M:%S.000+00:00', 'now')
  WHERE "oid" = OLD."oid" AND NOT "deleted";
END;
CREATE TRIGGER "ResourceAuthor_harvest_insert" AFTER INSERT ON "ResourceAuthor"
BEGIN
  UPDATE "HarvestEntry" SET "datestamp" = strftime('%Y-%m-%dT%H:%M:%S.000+00:00', 'now') WHERE "oid" = NEW."resourceOid" AND NOT "deleted";
END;
CREATE TRIGGER "ResourceAuthor_harvest_delete" AFTER DELETE ON "ResourceAuthor"
BEGIN
  UPDATE "HarvestEntry" SET "datestamp" = strftime('%Y-%m-%dT%H:%M:%S.000+00:00', 'now') WHERE "oid" = OLD."resourceOid" AND NOT "deleted";
END;
CREATE TRIGGER "ResourceAuthor_harvest_update" AFTER UPDATE ON "ResourceAuthor"
BEGIN
  UPDATE "HarvestEntry" SET "datestamp" = strftime('%Y-%m-%dT%H:%M:%S.000+00:00', 'now') WHERE "oid" IN (OLD."resourceOid", NEW."resourceOid") AND NOT "deleted";
END;
CREATE TRIGGER "ResourceContributor_harvest_insert" AFTER INSERT ON "ResourceContributor"
BEGIN
  UPDATE "HarvestEntry" SET "datestamp" = strftime('%Y-%m-%dT%H:%M:%S.000+00:00', 'now') WHERE "oid" = NEW."resourceOid" AND NOT "deleted";
END;
CREATE TRIGGER "ResourceContributor_harvest_delete" AFTER DELETE ON "ResourceContributor"
BEGIN
  UPDATE "HarvestEntry" SET "datestamp" = strftime('%Y-%m-%dT%H:%M:%S.000+00:00', 'now') WHERE "oid" = OLD."resourceOid" AND NOT "deleted";
END;
CREATE TRIGGER "ResourceContributor_harvest_update" AFTER UPDATE ON "ResourceContributor"
BEGIN
  UPDATE "HarvestEntry" SET "datestamp" = strftime('%Y-%m-%dT%H:%M:%S.000+00:00', 'now') WHERE "oid" IN (OLD."resourceOid", NEW."resourceOid") AND NOT "deleted";
END;
CREATE TRIGGER "ResourcePedagogicType_harvest_insert" AFTER INSERT ON "ResourcePedagogicType"
BEGIN
  UPDATE "HarvestEntry" SET "datestamp" = strftime('%Y-%m-%dT%H:%M:%S.000+00:00', 'now') WHERE "oid" = NEW."resourceOid" AND NOT "deleted";
END;
CREATE TRIGGER "ResourcePedagogicType_harvest_delete" AFTER DELETE ON "ResourcePedagogicType"
BEGIN
  UPDATE "HarvestEntry" SET "datestamp" = strftime('%Y-%m-%dT%H:%M:%S.000+00:00', 'now') WHERE "oid" = OLD."resourceOid" AND NOT "deleted";
END;
CREATE TRIGGER "ResourcePedagogicType_harvest_update" AFTER UPDATE ON "ResourcePedagogicType"
BEGIN
  UPDATE "HarvestEntry" SET "datestamp" = strftime('%Y-%m-%dT%H:%M:%S.000+00:00', 'now') WHERE "oid" IN (OLD."resourceOid", NEW."resourceOid") AND NOT "deleted";
END;
CREATE TRIGGER "ResourceDocumentaryType_harvest_insert" AFTER INSERT ON "ResourceDocumentaryType"
BEGIN
  UPDATE "HarvestEntry" SET "datestamp" = strftime('%Y-%m-%dT%H:%M:%S.000+00:00', 'now') WHERE "oid" = NEW."resourceOid" AND NOT "deleted";
END;
CREATE TRIGGER "ResourceDocumentaryType_harvest_delete" AFTER DELETE ON "ResourceDocumentaryType"
BEGIN
  UPDATE "HarvestEntry" SET "datestamp" = strftime('%Y-%m-%dT%H:%M:%S.000+00:00', 'now') WHERE "oid" = OLD."resourceOid" AND NOT "deleted";
END;
CREATE TRIGGER "ResourceDocumentaryType_harvest_update" AFTER UPDATE ON "ResourceDocumentaryType"
BEGIN
  UPDATE "HarvestEntry" SET "datestamp" = strftime('%Y-%m-%dT%H:%M:%S.000+00:00', 'now') WHERE "oid" IN (OLD."resourceOid", NEW."resourceOid") AND NOT "deleted";
END;

-- The resources exposed now, stamped with their last change.
INSERT INTO "HarvestEntry" ("oid", "datestamp", "deleted", "type", "levelTags", "categoryTags")
SELECT "oid", strftime('%Y-%m-%dT%H:%M:%S.000+00:00', "dateMiseAJour"), false, "type", "levelTags", "categoryTags"
FROM "Resource" WHERE "Resource"."publie" AND "Resource"."restriction" = 0 AND "Resource"."indexable" AND "Resource"."aliasOf" IS NULL;
