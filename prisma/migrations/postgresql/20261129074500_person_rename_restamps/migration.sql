-- A person's names are in the records of the resources they author or contribute to (LOM and
-- Dublin Core creators and contributors): a change of those names restamps each such live record,
-- so that harvesters learn of it (a rectification reaches who received the name, GDPR art. 16 and
-- 19). A save that leaves the names as they were (a login with the same spelling) and a change of
-- the e-mail, which no record shows, restamp nothing. Once per statement, as the other triggers.
CREATE FUNCTION "person_harvest"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  renamed int[];
BEGIN
  SELECT array_agg(n."oid") INTO renamed
  FROM new_rows n JOIN old_rows o ON o."oid" = n."oid"
  WHERE (o."nom", o."prenom") IS DISTINCT FROM (n."nom", n."prenom");
  IF renamed IS NULL THEN
    RETURN NULL;
  END IF;
  UPDATE "HarvestEntry" SET "datestamp" = "harvest_stamp"()
  WHERE NOT "deleted" AND "oid" IN (
    SELECT "resourceOid" FROM "ResourceAuthor" WHERE "personOid" = ANY(renamed)
    UNION SELECT "resourceOid" FROM "ResourceContributor" WHERE "personOid" = ANY(renamed));
  RETURN NULL;
END $$;

CREATE TRIGGER "Person_harvest_update" AFTER UPDATE ON "Person"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "person_harvest"();
