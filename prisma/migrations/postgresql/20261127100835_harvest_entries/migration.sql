-- CreateTable
CREATE TABLE "HarvestEntry" (
    "oid" INTEGER NOT NULL,
    "datestamp" TIMESTAMP(3) NOT NULL,
    "deleted" BOOLEAN NOT NULL DEFAULT false,
    "type" TEXT NOT NULL,
    "levelTags" TEXT NOT NULL DEFAULT '',
    "categoryTags" TEXT NOT NULL DEFAULT '',

    CONSTRAINT "HarvestEntry_pkey" PRIMARY KEY ("oid")
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

CREATE FUNCTION "harvest_stamp"() RETURNS timestamp(3) LANGUAGE sql VOLATILE AS $$
  SELECT date_trunc('second', clock_timestamp() AT TIME ZONE 'UTC')::timestamp(3)
$$;

-- Once per statement for all the resources it touched (an import writes thousands in one).
CREATE FUNCTION "resource_harvest"() RETURNS trigger LANGUAGE plpgsql AS $$
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
      AND (e."oid" IS NULL OR e."deleted" OR (o."titre", o."resume", o."description", o."type", o."langue", o."parametres", o."dateCreation", o."dateMiseAJour", o."levelTags", o."categoryTags") IS DISTINCT FROM (n."titre", n."resume", n."description", n."type", n."langue", n."parametres", n."dateCreation", n."dateMiseAJour", n."levelTags", n."categoryTags"))
    ON CONFLICT ("oid") DO UPDATE SET "datestamp" = EXCLUDED."datestamp", "deleted" = false,
      "type" = EXCLUDED."type", "levelTags" = EXCLUDED."levelTags", "categoryTags" = EXCLUDED."categoryTags";
  ELSE
    UPDATE "HarvestEntry" e SET "deleted" = true, "datestamp" = stamp
    FROM old_rows o WHERE e."oid" = o."oid" AND NOT e."deleted";
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER "Resource_harvest_insert" AFTER INSERT ON "Resource"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "resource_harvest"();
CREATE TRIGGER "Resource_harvest_update" AFTER UPDATE ON "Resource"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "resource_harvest"();
CREATE TRIGGER "Resource_harvest_delete" AFTER DELETE ON "Resource"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "resource_harvest"();

-- Authors, contributors and types: the record of an exposed resource changes with them.
CREATE FUNCTION "resource_part_harvest"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  touched int[];
BEGIN
  IF TG_OP = 'INSERT' THEN
    SELECT array_agg(DISTINCT "resourceOid") INTO touched FROM new_rows;
  ELSIF TG_OP = 'DELETE' THEN
    SELECT array_agg(DISTINCT "resourceOid") INTO touched FROM old_rows;
  ELSE
    SELECT array_agg("resourceOid") INTO touched
    FROM (SELECT "resourceOid" FROM old_rows UNION SELECT "resourceOid" FROM new_rows) t;
  END IF;
  UPDATE "HarvestEntry" SET "datestamp" = "harvest_stamp"() WHERE "oid" = ANY(touched) AND NOT "deleted";
  RETURN NULL;
END $$;

CREATE TRIGGER "ResourceAuthor_harvest_insert" AFTER INSERT ON "ResourceAuthor"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "resource_part_harvest"();
CREATE TRIGGER "ResourceAuthor_harvest_update" AFTER UPDATE ON "ResourceAuthor"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "resource_part_harvest"();
CREATE TRIGGER "ResourceAuthor_harvest_delete" AFTER DELETE ON "ResourceAuthor"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "resource_part_harvest"();

CREATE TRIGGER "ResourceContributor_harvest_insert" AFTER INSERT ON "ResourceContributor"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "resource_part_harvest"();
CREATE TRIGGER "ResourceContributor_harvest_update" AFTER UPDATE ON "ResourceContributor"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "resource_part_harvest"();
CREATE TRIGGER "ResourceContributor_harvest_delete" AFTER DELETE ON "ResourceContributor"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "resource_part_harvest"();

CREATE TRIGGER "ResourcePedagogicType_harvest_insert" AFTER INSERT ON "ResourcePedagogicType"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "resource_part_harvest"();
CREATE TRIGGER "ResourcePedagogicType_harvest_update" AFTER UPDATE ON "ResourcePedagogicType"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "resource_part_harvest"();
CREATE TRIGGER "ResourcePedagogicType_harvest_delete" AFTER DELETE ON "ResourcePedagogicType"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "resource_part_harvest"();

CREATE TRIGGER "ResourceDocumentaryType_harvest_insert" AFTER INSERT ON "ResourceDocumentaryType"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "resource_part_harvest"();
CREATE TRIGGER "ResourceDocumentaryType_harvest_update" AFTER UPDATE ON "ResourceDocumentaryType"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "resource_part_harvest"();
CREATE TRIGGER "ResourceDocumentaryType_harvest_delete" AFTER DELETE ON "ResourceDocumentaryType"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "resource_part_harvest"();

-- The resources exposed now, stamped with their last change.
INSERT INTO "HarvestEntry" ("oid", "datestamp", "deleted", "type", "levelTags", "categoryTags")
SELECT "oid", date_trunc('second', "dateMiseAJour"), false, "type", "levelTags", "categoryTags"
FROM "Resource" WHERE "Resource"."publie" AND "Resource"."restriction" = 0 AND "Resource"."indexable" AND "Resource"."aliasOf" IS NULL;
