/**
 * What the service needs to know about the person calling (name, roles, the groups they belong
 * to or manage), in one statement; for a session, in the same statement as the session itself
 * (src/auth/session-store.ts), so that resolving a logged-in caller costs one statement.
 */
import { db, provider } from '../db/client.ts';

export interface PersonFacts {
  oid: number;
  pid: string;
  nom: string;
  prenom: string;
  roles: string[];
  /** Groups the person is a member or a manager of. */
  groupOids: number[];
}

/**
 * SQL of the person whose oid is `oid` (an SQL expression) as one JSON array, or NULL: oid, pid,
 * names, roles, group oids.
 */
export function personFactsColumn(oid: string): string {
  if (provider === 'postgresql') {
    return `(SELECT json_build_array(p.oid, p.pid, p.nom, p.prenom,
      (SELECT coalesce(json_agg(r.role ORDER BY r.role), '[]') FROM "PersonRole" r WHERE r."personOid" = p.oid),
      (SELECT coalesce(json_agg(g."groupOid"), '[]') FROM (SELECT "groupOid" FROM "GroupMember" WHERE "personOid" = p.oid
        UNION SELECT "groupOid" FROM "GroupManager" WHERE "personOid" = p.oid) g))
      FROM "Person" p WHERE p.oid = ${oid})`;
  }
  return `(SELECT json_array(p.oid, p.pid, p.nom, p.prenom,
    json((SELECT coalesce(json_group_array(r.role ORDER BY r.role), '[]') FROM "PersonRole" r WHERE r."personOid" = p.oid)),
    json((SELECT coalesce(json_group_array(g."groupOid"), '[]') FROM (SELECT "groupOid" FROM "GroupMember" WHERE "personOid" = p.oid
      UNION SELECT "groupOid" FROM "GroupManager" WHERE "personOid" = p.oid) g)))
    FROM "Person" p WHERE p.oid = ${oid})`;
}

/** The column built by `personFactsColumn`, as PersonFacts. */
export function toPersonFacts(column: unknown): PersonFacts | null {
  if (column === null || column === undefined) return null;
  const [oid, pid, nom, prenom, roles, groupOids] = (
    typeof column === 'string' ? JSON.parse(column) : column
  ) as [number, string, string, string, string[], number[]];
  return { oid, pid, nom, prenom, roles, groupOids };
}

/** The facts of person `oid`, or null. One statement. */
export async function loadPersonFacts(oid: number): Promise<PersonFacts | null> {
  const parameter = provider === 'postgresql' ? '$1::int' : '?';
  const rows = await db.$queryRawUnsafe<{ person: unknown }[]>(
    `SELECT ${personFactsColumn(parameter)} AS person`,
    oid,
  );
  return toPersonFacts(rows[0]?.person);
}
