-- The index gains a row kind (word or stem) whose stems only the service computes: the rows are
-- dropped here and rebuilt from the resources at start-up (src/modules/lists/search-index.ts),
-- before the service listens.
DELETE FROM "ResourceWord";

-- DropIndex
DROP INDEX "ResourceWord_word_weight_resourceOid_idx";

-- AlterTable
ALTER TABLE "ResourceWord" DROP CONSTRAINT "ResourceWord_pkey",
ADD COLUMN     "kind" INTEGER NOT NULL,
ADD CONSTRAINT "ResourceWord_pkey" PRIMARY KEY ("kind", "word", "resourceOid");

-- CreateIndex
CREATE INDEX "ResourceWord_kind_word_weight_resourceOid_idx" ON "ResourceWord"("kind", "word", "weight", "resourceOid");
