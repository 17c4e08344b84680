-- DropIndex
DROP INDEX "Resource_listOrder_idx";

-- DropIndex
DROP INDEX "Resource_publie_restriction_idx";

-- CreateIndex
CREATE INDEX "Resource_publie_restriction_indexable_idx" ON "Resource"("publie", "restriction", "indexable");

-- CreateIndex
CREATE INDEX "Resource_listOrder_idx" ON "Resource"("type", "publie", "restriction", "dateMiseAJour", "oid", "levelTags", "categoryTags", "indexable");
