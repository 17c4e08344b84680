-- A record's datestamp moves when, and only when, something it disseminates (oai_dc, lom) or its
-- visibility changes (docs/oai-pmh.md, "Datestamps"). Two columns compared since harvest_entries
-- broke the "only when": dateMiseAJour, which no format shows and every service save moves (a save
-- of comments alone restamped the record), and parametres as a whole, of which the formats show only
-- an url resource's address (an exercise's settings saved again restamped it). Compared now: the
-- address alone, as the harvest module reads it (src/modules/harvest/harvest.service.ts, addressOf).
CREATE OR REPLACE FUNCTION "resource_harvest"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  stamp timestamp(3) := "harvest_stamp"();
BEGIN
  -- A statement trigger sees only the transition tables its event has.
  IF TG_OP = 'INSERT' THEN
    INSERT INTO "HarvestEntry" ("oid", "datestamp", "deleted", "type", "levelTags", "categoryTags")
    SELECT n."oid", stamp, false, n."type", n."levelTags", n."categoryTags" FROM new_rows n
    WHERE n."publie" AND n."restriction" = 0 AND n."indexable" AND n."aliasOf" IS NULL
    ON CONFLICT ("oid") DO UPDATE SET "datestamp" = EXCLUDED."datestamp", "deleted" = false,
      "type" = EXCLUDED."type", "levelTags" = EXCLUDED."levelTags", "categoryTags" = EXCLUDED."categoryTags";
  ELSIF TG_OP = 'UPDATE' THEN
    UPDATE "HarvestEntry" e SET "deleted" = true, "datestamp" = stamp
    FROM new_rows n WHERE e."oid" = n."oid" AND NOT e."deleted" AND NOT (n."publie" AND n."restriction" = 0 AND n."indexable" AND n."aliasOf" IS NULL);
    INSERT INTO "HarvestEntry" ("oid", "datestamp", "deleted", "type", "levelTags", "categoryTags")
    SELECT n."oid", stamp, false, n."type", n."levelTags", n."categoryTags"
    FROM new_rows n JOIN old_rows o ON o."oid" = n."oid" LEFT JOIN "HarvestEntry" e ON e."oid" = n."oid"
    WHERE n."publie" AND n."restriction" = 0 AND n."indexable" AND n."aliasOf" IS NULL
      AND (e."oid" IS NULL OR e."deleted" OR (
        o."titre", o."resume", o."description", o."type", o."langue",
        CASE WHEN o."type" = 'url' THEN o."parametres" -> 'adresse' END,
        o."dateCreation", o."levelTags", o."categoryTags"
      ) IS DISTINCT FROM (
        n."titre", n."resume", n."description", n."type", n."langue",
        CASE WHEN n."type" = 'url' THEN n."parametres" -> 'adresse' END,
        n."dateCreation", n."levelTags", n."categoryTags"
      ))
    ON CONFLICT ("oid") DO UPDATE SET "datestamp" = EXCLUDED."datestamp", "deleted" = false,
      "type" = EXCLUDED."type", "levelTags" = EXCLUDED."levelTags", "categoryTags" = EXCLUDED."categoryTags";
  ELSE
    UPDATE "HarvestEntry" e SET "deleted" = true, "datestamp" = stamp
    FROM old_rows o WHERE e."oid" = o."oid" AND NOT e."deleted";
  END IF;
  RETURN NULL;
END $$;
