-- AlterTable
ALTER TABLE "AuditEntry" ADD COLUMN     "pseudonymisedAt" TIMESTAMP(3);

-- CreateTable
CREATE TABLE "JobLease" (
    "name" TEXT NOT NULL,
    "holder" TEXT,
    "expiresAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "JobLease_pkey" PRIMARY KEY ("name")
);

-- CreateIndex
CREATE INDEX "AuditEntry_pseudonymisedAt_at_idx" ON "AuditEntry"("pseudonymisedAt", "at");
