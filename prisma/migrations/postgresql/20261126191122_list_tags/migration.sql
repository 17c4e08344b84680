-- DropIndex
DROP INDEX "Resource_type_publie_restriction_dateMiseAJour_oid_idx";

-- AlterTable
ALTER TABLE "Resource" ADD COLUMN     "categoryTags" TEXT NOT NULL DEFAULT '',
ADD COLUMN     "levelTags" TEXT NOT NULL DEFAULT '';

-- CreateIndex
CREATE INDEX "Resource_listOrder_idx" ON "Resource"("type", "publie", "restriction", "dateMiseAJour", "oid", "levelTags", "categoryTags");

-- Each resource's levels and categories as tags (`|6e|5e|`, `|7|5|`, in the resource's order;
-- `%` and `|` in a value escaped as %25 and %7C), for the list order index: kept by the
-- database from the join tables whatever writes them (the service, the importer, a restore,
-- an operator's SQL), once per statement for all the resources it touched.

CREATE FUNCTION "resource_level_tags"(resource int) RETURNS text LANGUAGE sql STABLE AS $$
  SELECT COALESCE('|' || string_agg(replace(replace("level", '%', '%25'), '|', '%7C'), '|' ORDER BY "position") || '|', '')
  FROM "ResourceLevel" WHERE "resourceOid" = resource
$$;

CREATE FUNCTION "resource_category_tags"(resource int) RETURNS text LANGUAGE sql STABLE AS $$
  SELECT COALESCE('|' || string_agg("categoryId"::text, '|' ORDER BY "position") || '|', '')
  FROM "ResourceCategory" WHERE "resourceOid" = resource
$$;

CREATE FUNCTION "resource_tags"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  touched int[];
BEGIN
  -- A statement trigger sees only the transition tables its event has.
  IF TG_OP = 'INSERT' THEN
    SELECT array_agg(DISTINCT "resourceOid") INTO touched FROM new_rows;
  ELSIF TG_OP = 'DELETE' THEN
    SELECT array_agg(DISTINCT "resourceOid") INTO touched FROM old_rows;
  ELSE
    SELECT array_agg("resourceOid") INTO touched
    FROM (SELECT "resourceOid" FROM old_rows UNION SELECT "resourceOid" FROM new_rows) t;
  END IF;
  IF TG_TABLE_NAME = 'ResourceLevel' THEN
    UPDATE "Resource" SET "levelTags" = "resource_level_tags"("oid") WHERE "oid" = ANY(touched);
  ELSE
    UPDATE "Resource" SET "categoryTags" = "resource_category_tags"("oid") WHERE "oid" = ANY(touched);
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER "ResourceLevel_tags_insert" AFTER INSERT ON "ResourceLevel"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "resource_tags"();
CREATE TRIGGER "ResourceLevel_tags_update" AFTER UPDATE ON "ResourceLevel"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "resource_tags"();
CREATE TRIGGER "ResourceLevel_tags_delete" AFTER DELETE ON "ResourceLevel"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "resource_tags"();

CREATE TRIGGER "ResourceCategory_tags_insert" AFTER INSERT ON "ResourceCategory"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "resource_tags"();
CREATE TRIGGER "ResourceCategory_tags_update" AFTER UPDATE ON "ResourceCategory"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "resource_tags"();
CREATE TRIGGER "ResourceCategory_tags_delete" AFTER DELETE ON "ResourceCategory"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "resource_tags"();

-- The resources already there.
UPDATE "Resource" SET
  "levelTags" = "resource_level_tags"("oid"),
  "categoryTags" = "resource_category_tags"("oid")
WHERE EXISTS (SELECT 1 FROM "ResourceLevel" x WHERE x."resourceOid" = "Resource"."oid")
   OR EXISTS (SELECT 1 FROM "ResourceCategory" x WHERE x."resourceOid" = "Resource"."oid");
