-- AlterTable
ALTER TABLE "Person" ADD COLUMN "lastLoginAt" DATETIME;

-- Persons of before this migration: their last change stands for their last login (a lab login
-- rewrites the person, so it is at least as recent), so that none looks idle since creation.
UPDATE "Person" SET "lastLoginAt" = "updatedAt";
