-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_Resource" (
    "oid" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "origine" TEXT NOT NULL,
    "idOrigine" TEXT NOT NULL,
    "titre" TEXT NOT NULL DEFAULT '',
    "resume" TEXT NOT NULL DEFAULT '',
    "description" TEXT NOT NULL DEFAULT '',
    "commentaires" TEXT NOT NULL DEFAULT '',
    "type" TEXT NOT NULL,
    "langue" TEXT NOT NULL DEFAULT 'fra',
    "publie" BOOLEAN NOT NULL DEFAULT false,
    "restriction" INTEGER NOT NULL DEFAULT 0,
    "indexable" BOOLEAN NOT NULL DEFAULT true,
    "parametres" JSONB,
    "enfants" JSONB,
    "aliasOf" TEXT,
    "cle" TEXT,
    "version" INTEGER NOT NULL DEFAULT 1,
    "inc" INTEGER NOT NULL DEFAULT 0,
    "archiveOid" INTEGER,
    "dateCreation" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "dateMiseAJour" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "levelTags" TEXT NOT NULL DEFAULT '',
    "categoryTags" TEXT NOT NULL DEFAULT ''
);
INSERT INTO "new_Resource" ("aliasOf", "archiveOid", "cle", "commentaires", "dateCreation", "dateMiseAJour", "description", "enfants", "idOrigine", "inc", "indexable", "langue", "oid", "origine", "parametres", "publie", "restriction", "resume", "titre", "type", "version") SELECT "aliasOf", "archiveOid", "cle", "commentaires", "dateCreation", "dateMiseAJour", "description", "enfants", "idOrigine", "inc", "indexable", "langue", "oid", "origine", "parametres", "publie", "restriction", "resume", "titre", "type", "version" FROM "Resource";
DROP TABLE "Resource";
ALTER TABLE "new_Resource" RENAME TO "Resource";
CREATE UNIQUE INDEX "Resource_cle_key" ON "Resource"("cle");
CREATE INDEX "Resource_idOrigine_idx" ON "Resource"("idOrigine");
CREATE INDEX "Resource_type_idx" ON "Resource"("type");
CREATE INDEX "Resource_langue_idx" ON "Resource"("langue");
CREATE INDEX "Resource_publie_restriction_idx" ON "Resource"("publie", "restriction");
CREATE INDEX "Resource_listOrder_idx" ON "Resource"("type", "publie", "restriction", "dateMiseAJour", "oid", "levelTags", "categoryTags");
CREATE INDEX "Resource_restriction_idx" ON "Resource"("restriction");
CREATE INDEX "Resource_aliasOf_idx" ON "Resource"("aliasOf");
CREATE INDEX "Resource_titre_idx" ON "Resource"("titre");
CREATE INDEX "Resource_dateCreation_idx" ON "Resource"("dateCreation");
CREATE INDEX "Resource_dateMiseAJour_idx" ON "Resource"("dateMiseAJour");
CREATE UNIQUE INDEX "Resource_origine_idOrigine_key" ON "Resource"("origine", "idOrigine");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- Each resource's levels and categories as tags (`|6e|5e|`, `|7|5|`, in the resource's order;
-- `%` and `|` in a value escaped as %25 and %7C), for the list order index: kept by the
-- database from the join tables whatever writes them (the service, the importer, a restore,
-- an operator's SQL).
CREATE TRIGGER "ResourceLevel_tags_insert" AFTER INSERT ON "ResourceLevel" BEGIN
  UPDATE "Resource" SET "levelTags" = COALESCE((
      SELECT '|' || group_concat(replace(replace(x."level", '%', '%25'), '|', '%7C'), '|' ORDER BY x."position") || '|'
      FROM "ResourceLevel" x WHERE x."resourceOid" = NEW."resourceOid"), '')
  WHERE "oid" = NEW."resourceOid";
END;
CREATE TRIGGER "ResourceLevel_tags_delete" AFTER DELETE ON "ResourceLevel" BEGIN
  UPDATE "Resource" SET "levelTags" = COALESCE((
      SELECT '|' || group_concat(replace(replace(x."level", '%', '%25'), '|', '%7C'), '|' ORDER BY x."position") || '|'
      FROM "ResourceLevel" x WHERE x."resourceOid" = OLD."resourceOid"), '')
  WHERE "oid" = OLD."resourceOid";
END;
CREATE TRIGGER "ResourceLevel_tags_update" AFTER UPDATE ON "ResourceLevel" BEGIN
  UPDATE "Resource" SET "levelTags" = COALESCE((
      SELECT '|' || group_concat(replace(replace(x."level", '%', '%25'), '|', '%7C'), '|' ORDER BY x."position") || '|'
      FROM "ResourceLevel" x WHERE x."resourceOid" = "Resource"."oid"), '')
  WHERE "oid" IN (OLD."resourceOid", NEW."resourceOid");
END;
CREATE TRIGGER "ResourceCategory_tags_insert" AFTER INSERT ON "ResourceCategory" BEGIN
  UPDATE "Resource" SET "categoryTags" = COALESCE((
      SELECT '|' || group_concat(x."categoryId", '|' ORDER BY x."position") || '|'
      FROM "ResourceCategory" x WHERE x."resourceOid" = NEW."resourceOid"), '')
  WHERE "oid" = NEW."resourceOid";
END;
CREATE TRIGGER "ResourceCategory_tags_delete" AFTER DELETE ON "ResourceCategory" BEGIN
  UPDATE "Resource" SET "categoryTags" = COALESCE((
      SELECT '|' || group_concat(x."categoryId", '|' ORDER BY x."position") || '|'
      FROM "ResourceCategory" x WHERE x."resourceOid" = OLD."resourceOid"), '')
  WHERE "oid" = OLD."resourceOid";
END;
CREATE TRIGGER "ResourceCategory_tags_update" AFTER UPDATE ON "ResourceCategory" BEGIN
  UPDATE "Resource" SET "categoryTags" = COALESCE((
      SELECT '|' || group_concat(x."categoryId", '|' ORDER BY x."position") || '|'
      FROM "ResourceCategory" x WHERE x."resourceOid" = "Resource"."oid"), '')
  WHERE "oid" IN (OLD."resourceOid", NEW."resourceOid");
END;

-- The resources already there.
UPDATE "Resource" SET
  "levelTags" = COALESCE((
    SELECT '|' || group_concat(replace(replace(x."level", '%', '%25'), '|', '%7C'), '|' ORDER BY x."position") || '|'
    FROM "ResourceLevel" x WHERE x."resourceOid" = "Resource"."oid"), ''),
  "categoryTags" = COALESCE((
    SELECT '|' || group_concat(x."categoryId", '|' ORDER BY x."position") || '|'
    FROM "ResourceCategory" x WHERE x."resourceOid" = "Resource"."oid"), '');
