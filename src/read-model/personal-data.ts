/**
 * Where a person is named outside the tables that link to them by foreign key (GDPR export,
 * src/modules/privacy/export.service.ts): in the JSON the service keeps (audit changes, outbox
 * payloads, resource archives, a resource's `parametres` and `enfants`) and in session data. One statement, run by the export inside its
 * own transaction (so it reads the export's snapshot), not through `read`.
 *
 * A person is named by a JSON string value equal to their pid, e-mail or "Prénom Nom" (resources
 * name authors by pid; a sequence's `parametres` may list pupils), never by a substring: `labA/4` must not find `labA/42`'s rows. Group audit
 * entries also name managers by oid (`gestionnaires`, `gestionnaireAjoute`). Each table is scanned:
 * an export is a rare, operator-initiated request, and no index could serve a search inside JSON.
 */
import { provider, type Transaction } from '../db/client.ts';
import type { Provider } from '../db/database-url.ts';
import { dialects, Sql, type Statement } from './dialect.ts';

/** Where the rows the statement finds come from. */
export type NamingSource = 'audit' | 'outbox' | 'archive' | 'resource' | 'session';

export interface NamingRow {
  source: NamingSource;
  /** The row's key, as text (audit ids and archive oids are integers, the others text). */
  id: string;
}

/** Outbox messages still to deliver: a delivered one is the peer's now, and is purged by retention. */
export const UNDELIVERED_STATUSES = ['pending', 'failed'] as const;

/** `column` (JSON) holds a string value, at any depth, that is one of the list placeholder `names`. */
function namesIn(q: Sql, column: string, names: string): string {
  if (q.dialect.provider === 'sqlite') {
    return `EXISTS (SELECT 1 FROM json_tree(${column}) t WHERE t.type = 'text' AND ${q.dialect.isAnyOf('t.atom', names)})`;
  }
  return `EXISTS (SELECT 1 FROM jsonb_path_query(${column}, 'strict $.**') AS v(value)
    WHERE jsonb_typeof(v.value) = 'string' AND ${q.dialect.isAnyOf(`(v.value #>> '{}')`, names)})`;
}

/** A group audit entry's `changes` name the person `oid` as a manager (added, or listed). */
function managerOidIn(q: Sql, column: string, oid: string): string {
  if (q.dialect.provider === 'sqlite') {
    return `EXISTS (SELECT 1 FROM json_each(${column}) f, json_tree(f.value) t
      WHERE f.key LIKE 'gestionnaire%' AND t.type = 'integer' AND t.atom = ${oid})`;
  }
  return `EXISTS (SELECT 1 FROM jsonb_each(${column}) AS f(key, value), jsonb_path_query(f.value, 'strict $.**') AS v(value)
    WHERE f.key LIKE 'gestionnaire%' AND jsonb_typeof(v.value) = 'number' AND v.value = to_jsonb(${oid}))`;
}

const written = new Map<Provider, Statement>();

/**
 * The statement of the rows naming a person, for `provider`. Arguments: `oid`, `pid`, and `names`
 * (pid, e-mail, "Prénom Nom": the string values that name them).
 */
export function namingRowsStatement(provider: Provider): Statement {
  const known = written.get(provider);
  if (known) return known;
  const q = new Sql(dialects[provider]);
  const oid = () => q.argument('oid', 'int');
  const names = () => q.argumentList('names', 'text');
  const statuses = UNDELIVERED_STATUSES.map((status) => `'${status}'`).join(', ');
  const text = `SELECT 'audit' AS source, CAST(a.id AS TEXT) AS id FROM "AuditEntry" a
    WHERE a."actorOid" = ${oid()} OR a."actorPid" = ${q.argument('pid', 'text')}
       OR (a.changes IS NOT NULL AND (${namesIn(q, 'a.changes', names())}
           OR (a."entityKind" = 'group' AND ${managerOidIn(q, 'a.changes', oid())})))
    UNION ALL
    SELECT 'outbox', o.id FROM "OutboxMessage" o
    WHERE o.status IN (${statuses}) AND ${namesIn(q, 'o.payload', names())}
    UNION ALL
    SELECT 'archive', CAST(r.oid AS TEXT) FROM "ResourceArchive" r WHERE ${namesIn(q, 'r.snapshot', names())}
    UNION ALL
    SELECT 'resource', CAST(r.oid AS TEXT) FROM "Resource" r
    WHERE (r.parametres IS NOT NULL AND ${namesIn(q, 'r.parametres', names())})
       OR (r.enfants IS NOT NULL AND ${namesIn(q, 'r.enfants', names())})
    UNION ALL
    SELECT 'session', s.id FROM "Session" s WHERE ${q.dialect.jsonInteger('s.data', 'personOid')} = ${oid()}`;
  const statement = q.statement(text, { planEachTime: true });
  written.set(provider, statement);
  return statement;
}

/** The rows naming the person, read in `tx` (the export's snapshot). */
export function namingRows(tx: Transaction, args: { oid: number; pid: string; names: string[] }) {
  const statement = namingRowsStatement(provider);
  return tx.$queryRawUnsafe<NamingRow[]>(statement.text, ...statement.bind(args));
}
