-- CreateTable
CREATE TABLE "ResourceWord" (
    "word" TEXT NOT NULL,
    "resourceOid" INTEGER NOT NULL,
    "weight" INTEGER NOT NULL,

    CONSTRAINT "ResourceWord_pkey" PRIMARY KEY ("word","resourceOid")
);

-- CreateIndex
CREATE INDEX "ResourceWord_word_weight_resourceOid_idx" ON "ResourceWord"("word", "weight", "resourceOid");

-- CreateIndex
CREATE INDEX "ResourceWord_resourceOid_idx" ON "ResourceWord"("resourceOid");

-- AddForeignKey
ALTER TABLE "ResourceWord" ADD CONSTRAINT "ResourceWord_resourceOid_fkey" FOREIGN KEY ("resourceOid") REFERENCES "Resource"("oid") ON DELETE CASCADE ON UPDATE CASCADE;
