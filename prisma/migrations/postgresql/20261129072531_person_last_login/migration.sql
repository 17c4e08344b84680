-- AlterTable
ALTER TABLE "Person" ADD COLUMN     "lastLoginAt" TIMESTAMP(3);
