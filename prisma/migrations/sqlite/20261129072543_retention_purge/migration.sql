-- AlterTable
ALTER TABLE "AuditEntry" ADD COLUMN "pseudonymisedAt" DATETIME;

-- CreateTable
CREATE TABLE "JobLease" (
    "name" TEXT NOT NULL PRIMARY KEY,
    "holder" TEXT,
    "expiresAt" DATETIME NOT NULL
);

-- CreateIndex
CREATE INDEX "AuditEntry_pseudonymisedAt_at_idx" ON "AuditEntry"("pseudonymisedAt", "at");
