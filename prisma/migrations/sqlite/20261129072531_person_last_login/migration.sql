-- AlterTable
ALTER TABLE "Person" ADD COLUMN "lastLoginAt" DATETIME;
