-- CreateTable
CREATE TABLE "AuditEntry" (
    "id" SERIAL NOT NULL,
    "at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "actorKind" TEXT NOT NULL,
    "actorOid" INTEGER,
    "actorPid" TEXT,
    "actorLabel" TEXT,
    "action" TEXT NOT NULL,
    "entityKind" TEXT NOT NULL,
    "entityId" INTEGER NOT NULL,
    "changes" JSONB,
    "requestId" TEXT,

    CONSTRAINT "AuditEntry_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "AuditEntry_entityKind_entityId_at_idx" ON "AuditEntry"("entityKind", "entityId", "at");

-- CreateIndex
CREATE INDEX "AuditEntry_actorPid_at_idx" ON "AuditEntry"("actorPid", "at");

-- CreateIndex
CREATE INDEX "AuditEntry_at_idx" ON "AuditEntry"("at");
