/**
 * What the service needs to know about the person calling (name, roles, the groups they belong
 * to or manage), in one statement; for a session, in the same statement as the session itself
 * (src/auth/session-store.ts), so that resolving a logged-in caller costs one statement.
 */
import type { Sql } from './dialect.ts';
import { date, json, once, read } from './rows.ts';

export interface PersonFacts {
  oid: number;
  pid: string;
  nom: string;
  prenom: string;
  /** Roles granted by an administrator or a lab. */
  roles: string[];
  /** Roles granted by the development login: they count only while it is on (src/permissions.ts). */
  devLoginRoles: string[];
  /** Groups the person is a member or a manager of. */
  groupOids: number[];
}

/**
 * The person whose oid is `oid` (an SQL expression) as one JSON array, or NULL: oid, pid, names,
 * roles (the development login's apart), group oids.
 */
function personFactsColumn(q: Sql, oid: string): string {
  const { dialect } = q;
  const roles = (condition: string) =>
    dialect.jsonArray('r.role', `"PersonRole" r WHERE r."personOid" = p.oid AND ${condition}`, 'r.role');
  const groups = dialect.jsonArray(
    'g."groupOid"',
    `(SELECT "groupOid" FROM "GroupMember" WHERE "personOid" = p.oid
      UNION SELECT "groupOid" FROM "GroupManager" WHERE "personOid" = p.oid) g`,
    'g."groupOid"',
  );
  return `(SELECT ${dialect.tuple(
    'p.oid',
    'p.pid',
    'p.nom',
    'p.prenom',
    roles(`r.source <> 'devLogin'`),
    roles(`r.source = 'devLogin'`),
    groups,
  )} FROM "Person" p WHERE p.oid = ${oid})`;
}

function toPersonFacts(column: unknown): PersonFacts | null {
  if (column === null || column === undefined) return null;
  // SQLite nests the two lists as JSON text, PostgreSQL as JSON.
  const [oid, pid, nom, prenom, roles, devLoginRoles, groupOids] =
    json<[number, string, string, string, unknown, unknown, unknown]>(column);
  return {
    oid,
    pid,
    nom,
    prenom,
    roles: json(roles),
    devLoginRoles: json(devLoginRoles),
    groupOids: json(groupOids),
  };
}

const personStatement = once((q) =>
  q.statement(`SELECT ${personFactsColumn(q, q.argument('oid', 'int'))} AS person`),
);

/** The facts of person `oid`, or null. One statement. */
export async function loadPersonFacts(oid: number): Promise<PersonFacts | null> {
  const [row] = await read<{ person: unknown }>(personStatement(), { oid });
  return toPersonFacts(row?.person);
}

/** A stored session: its data (JSON text), its expiry, and the facts of its person (`personOid`). */
export interface StoredSession {
  data: string;
  expiresAt: Date;
  person: PersonFacts | null;
}

const sessionStatement = once((q) => {
  const person = personFactsColumn(q, q.dialect.jsonInteger('s.data', 'personOid'));
  return q.statement(
    `SELECT s.data, s."expiresAt", ${person} AS person FROM "Session" s WHERE s.sid = ${q.argument('sid', 'text')}`,
  );
});

/** The session `sid` with its person's facts, or null. One statement. */
export async function loadSession(sid: string): Promise<StoredSession | null> {
  const [row] = await read<{ data: string; expiresAt: unknown; person: unknown }>(sessionStatement(), {
    sid,
  });
  return row ? { data: row.data, expiresAt: date(row.expiresAt), person: toPersonFacts(row.person) } : null;
}
