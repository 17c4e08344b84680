/**
 * The part of an erasure that rewrites JSON the database keeps about the past (audit entries'
 * `changes`, archives' `snapshot`, undelivered outbox `payload`s): which rows name the person, and
 * the same values with the person replaced by their pseudonym. The statements that find and write
 * those rows, one per table or fewer whatever their number, are src/db/erasure-rows.ts's.
 *
 * Values are replaced whole (a JSON string equal to the pid, the e-mail, a name or "Prénom Nom"),
 * never inside longer text: a pid is a prefix of other pids (`lab/u1` of `lab/u12`), and a family
 * name can be a word of a resource's title, which is the repository's, not the person's.
 */
import type { JsonRow, RewrittenRow } from '../../db/erasure-rows.ts';

/** What names a person in stored JSON. */
export interface PersonIdentity {
  oid: number;
  pid: string;
  nom: string;
  prenom: string;
  email: string | null;
}

/** Names shorter than this are not looked for as values: "" or "A" would match everything. */
const MIN_NAME_LENGTH = 2;

/** The string values that stand for the person, each replaced whole by the pseudonym. */
export function namingValues(person: PersonIdentity): string[] {
  const names = [
    person.pid,
    person.email ?? '',
    person.nom,
    person.prenom,
    `${person.prenom} ${person.nom}`,
    `${person.nom} ${person.prenom}`,
  ].map((value) => value.trim());
  return [...new Set(names.filter((value) => value.length >= MIN_NAME_LENGTH))];
}

/**
 * `value` with every string equal to one of `names` replaced by `pseudonym`, and the person's oid
 * in a group's `gestionnaires` (audited as oids) too. Keys are left alone.
 */
export function scrubbed(
  value: unknown,
  names: ReadonlySet<string>,
  oid: number,
  pseudonym: string,
): unknown {
  // `field`: the audited field a value belongs to, through its `{before, after}` wrapper.
  const walk = (node: unknown, field: string | undefined): unknown => {
    if (typeof node === 'string') return names.has(node.trim()) ? pseudonym : node;
    if (Array.isArray(node)) {
      return node.map((item) => (field === 'gestionnaires' && item === oid ? pseudonym : walk(item, field)));
    }
    if (node !== null && typeof node === 'object') {
      return Object.fromEntries(Object.entries(node).map(([key, item]) => [key, walk(item, field ?? key)]));
    }
    return node;
  };
  return walk(value, undefined);
}

/** Every string value of a JSON document, trimmed (what `scrubbed` compares with the names). */
export function stringValues(value: unknown, into: Set<string> = new Set()): Set<string> {
  if (typeof value === 'string') into.add(value.trim());
  else if (Array.isArray(value)) for (const item of value) stringValues(item, into);
  else if (value !== null && typeof value === 'object')
    for (const item of Object.values(value)) stringValues(item, into);
  return into;
}

/** The rows among `rows` that the pseudonym changes, with their new text. */
export function rewrittenRows(rows: JsonRow[], person: PersonIdentity, pseudonym: string): RewrittenRow[] {
  const names = new Set(namingValues(person));
  return rows.flatMap((row) => {
    const text = JSON.stringify(scrubbed(JSON.parse(row.text), names, person.oid, pseudonym));
    return text === JSON.stringify(JSON.parse(row.text)) ? [] : [{ key: row.key, text, read: row.text }];
  });
}
