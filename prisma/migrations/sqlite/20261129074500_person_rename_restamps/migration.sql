-- A person's names are in the records of the resources they author or contribute to (LOM and
-- Dublin Core creators and contributors): a change of those names restamps each such live record,
-- so that harvesters learn of it (a rectification reaches who received the name, GDPR art. 16 and
-- 19). A save that leaves the names as they were (a login with the same spelling) and a change of
-- the e-mail, which no record shows, restamp nothing.
CREATE TRIGGER "Person_harvest_update" AFTER UPDATE OF "nom", "prenom" ON "Person"
WHEN OLD."nom" IS NOT NEW."nom" OR OLD."prenom" IS NOT NEW."prenom"
BEGIN
  UPDATE "HarvestEntry" SET "datestamp" = strftime('%Y-%m-%dT%H:%M:%S.000+00:00', 'now')
  WHERE NOT "deleted" AND "oid" IN (
    SELECT "resourceOid" FROM "ResourceAuthor" WHERE "personOid" = NEW."oid"
    UNION SELECT "resourceOid" FROM "ResourceContributor" WHERE "personOid" = NEW."oid");
END;
