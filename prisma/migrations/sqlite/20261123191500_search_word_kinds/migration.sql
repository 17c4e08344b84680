-- The index gains a row kind (word or stem) whose stems only the service computes: the rows are
-- dropped here and rebuilt from the resources at start-up (src/modules/lists/search-index.ts),
-- before the service listens.
-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_ResourceWord" (
    "kind" INTEGER NOT NULL,
    "word" TEXT NOT NULL,
    "resourceOid" INTEGER NOT NULL,
    "weight" INTEGER NOT NULL,

    PRIMARY KEY ("kind", "word", "resourceOid"),
    CONSTRAINT "ResourceWord_resourceOid_fkey" FOREIGN KEY ("resourceOid") REFERENCES "Resource" ("oid") ON DELETE CASCADE ON UPDATE CASCADE
);
DROP TABLE "ResourceWord";
ALTER TABLE "new_ResourceWord" RENAME TO "ResourceWord";
CREATE INDEX "ResourceWord_kind_word_weight_resourceOid_idx" ON "ResourceWord"("kind", "word", "weight", "resourceOid");
CREATE INDEX "ResourceWord_resourceOid_idx" ON "ResourceWord"("resourceOid");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;
