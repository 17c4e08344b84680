-- CreateTable
CREATE TABLE "ResourceWord" (
    "word" TEXT NOT NULL,
    "resourceOid" INTEGER NOT NULL,
    "weight" INTEGER NOT NULL,

    PRIMARY KEY ("word", "resourceOid"),
    CONSTRAINT "ResourceWord_resourceOid_fkey" FOREIGN KEY ("resourceOid") REFERENCES "Resource" ("oid") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE INDEX "ResourceWord_word_weight_resourceOid_idx" ON "ResourceWord"("word", "weight", "resourceOid");

-- CreateIndex
CREATE INDEX "ResourceWord_resourceOid_idx" ON "ResourceWord"("resourceOid");
