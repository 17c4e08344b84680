-- CreateIndex
CREATE INDEX "Person_lastLoginAt_createdAt_idx" ON "Person"("lastLoginAt", "createdAt");
