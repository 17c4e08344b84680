-- CreateIndex
CREATE INDEX "Resource_type_publie_restriction_dateMiseAJour_oid_idx" ON "Resource"("type", "publie", "restriction", "dateMiseAJour", "oid");
