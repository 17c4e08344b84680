/**
 * Reading a transfer file and validating its records, before anything is compared or written: the
 * header first (a wrong one stops the import, since nothing may be written for a file of another
 * baseId), then each line as a record, checked by the format's schemas (format.ts) and, for a
 * resource, as the REST layer reads a posted one and by the rules the resource service saves with
 * (parseResourceInput), so that an import accepts exactly what the API accepts. A record that fails is a problem to report, not an error.
 */

import { resourceInput } from '../legacy/resource-input.ts';
import { textFlawIn } from '../lib/text.ts';
import { checkGroupName } from '../modules/groups/groups.service.ts';
import { type ParsedResourceInput, parseResourceInput } from '../modules/resources/resource-input.ts';
import { ridOf } from '../modules/resources/resources.repository.ts';
import { descendants } from '../modules/trees/tree-walk.ts';
import {
  describeIssues,
  type GroupRecord,
  groupSchema,
  headerSchema,
  type PersonRecord,
  personSchema,
  type RecordKind,
  readLines,
  recordOf,
  resourceManagedSchema,
} from './format.ts';
import { messageOf } from './import-report.ts';

/** The file cannot be imported at all (its header): nothing was written. */
export class TransferFormatError extends Error {}

export interface Located<T> {
  line: number;
  value: T;
}

/** A record's value once valid, or why it is skipped (with its pid, name or oid when it has one). */
export type Checked<T> = { valid: T } | { problem: { id: string | undefined; message: string } };

/** A group record with its name checked by the groups' rules: trimmed, and its key. */
export interface ValidGroup {
  group: GroupRecord;
  nom: string;
  nomKey: string;
}

/** A resource record the service's rules accept, with the origin it will have here. */
export interface Candidate {
  line: number;
  oid: number;
  origine: string;
  idOrigine: string;
  fields: ParsedResourceInput['fields'];
  managed: ReturnType<typeof resourceManagedSchema.parse>;
}

/**
 * The file's records after its header, which is checked first. Lines that are no record are
 * skipped, and told to `onInvalidLine` (once is enough: the first reading tells, the second not).
 */
export async function* readRecords(
  chunks: AsyncIterable<Buffer | string>,
  baseId: string,
  onInvalidLine?: (line: number, message: string) => void,
): AsyncGenerator<{ line: number; kind: RecordKind; value: unknown }> {
  let header = false;
  for await (const { line, number } of readLines(chunks)) {
    if (!line.trim()) continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      if (!header) throw new TransferFormatError(`line ${number}: the header is not JSON`);
      onInvalidLine?.(number, 'invalid JSON');
      continue;
    }
    if (!header) {
      checkHeader(value, number, baseId);
      header = true;
      continue;
    }
    const record = recordOf(value);
    if ('error' in record) {
      onInvalidLine?.(number, record.error);
      continue;
    }
    yield { line: number, ...record };
  }
  if (!header) throw new TransferFormatError('empty file: it needs at least the header line');
}

function checkHeader(value: unknown, line: number, baseId: string) {
  const header = headerSchema.safeParse(value);
  if (!header.success) {
    throw new TransferFormatError(
      `line ${line}: invalid header (${describeIssues(header.error).join('; ')})`,
    );
  }
  if (header.data.baseId !== baseId) {
    throw new TransferFormatError(
      `the file comes from the base ${header.data.baseId} and this service is ${baseId}: ` +
        `rids would change (${header.data.baseId}/<oid> would become ${baseId}/<oid>). ` +
        `Set baseId (or BASE_ID) to ${header.data.baseId}.`,
    );
  }
}

const FLAWS = {
  nul: 'a NUL character, which no database stores',
  'lone-surrogate':
    'ill-formed Unicode (a lone surrogate, \\uD800 to \\uDFFF), which no database stores exactly',
};

/**
 * Why a record holds text the service refuses from any client (src/lib/text.ts), naming the field,
 * or undefined: checked before its schema, so the record is skipped with the reason instead of a
 * database error at write time.
 */
function textProblem(value: unknown, key: string): Checked<never> | undefined {
  const found = textFlawIn(value);
  return found && { problem: { id: idOf(value, key), message: `${found.path}: ${FLAWS[found.flaw]}` } };
}

export function checkPerson(value: unknown): Checked<PersonRecord> {
  const flawed = textProblem(value, 'pid');
  if (flawed) return flawed;
  const parsed = personSchema.safeParse(value);
  if (!parsed.success) {
    return { problem: { id: idOf(value, 'pid'), message: describeIssues(parsed.error).join('; ') } };
  }
  return { valid: parsed.data };
}

export function checkGroup(value: unknown): Checked<ValidGroup> {
  const flawed = textProblem(value, 'nom');
  if (flawed) return flawed;
  const parsed = groupSchema.safeParse(value);
  if (!parsed.success) {
    return { problem: { id: idOf(value, 'nom'), message: describeIssues(parsed.error).join('; ') } };
  }
  try {
    const { nom, nomKey } = checkGroupName(parsed.data.nom);
    return { valid: { group: parsed.data, nom, nomKey } };
  } catch (error) {
    return { problem: { id: parsed.data.nom, message: messageOf(error) } };
  }
}

/**
 * The resource record validated by the service's own rules, with the warnings those rules give
 * (unknown properties), or why it is skipped.
 */
export function checkResource(
  line: number,
  value: unknown,
  baseId: string,
): Checked<{ candidate: Candidate; warnings: string[] }> {
  const flawed = textProblem(value, 'oid');
  if (flawed) return flawed;
  const managed = resourceManagedSchema.safeParse(value);
  if (!managed.success) {
    return { problem: { id: idOf(value, 'oid'), message: describeIssues(managed.error).join('; ') } };
  }
  const { oid } = managed.data;
  let input: ParsedResourceInput;
  try {
    // A record is the legacy JSON of a resource, read as the REST layer reads a posted one.
    const { input: fields, ignoredProperties } = resourceInput(value);
    input = parseResourceInput(fields, ignoredProperties);
  } catch (error) {
    return { problem: { id: String(oid), message: messageOf(error) } };
  }
  const { fields } = input;
  const problems: string[] = [];
  const rid = ridOf(baseId, oid);
  if (fields.rid !== undefined && fields.rid !== rid)
    problems.push(`rid: ${fields.rid} does not match the oid (${rid})`);
  if (!fields.type) problems.push('type: required');
  if (!fields.titre) problems.push('titre: required');
  if ((fields.origine === undefined) !== (fields.idOrigine === undefined)) {
    problems.push('origine and idOrigine go together: both or neither');
  }
  if (problems.length > 0) return { problem: { id: String(oid), message: problems.join('; ') } };
  return {
    valid: {
      candidate: {
        line,
        oid,
        // Created here without an origin: its own (baseId, oid), as the service does.
        origine: fields.origine ?? baseId,
        idOrigine: fields.idOrigine ?? String(oid),
        fields,
        managed: managed.data,
      },
      warnings: input.warnings,
    },
  };
}

/** The oid a resource record declares, unchecked: enough to tell a reference to it from a dangling one. */
export function declaredOid(value: unknown): number | undefined {
  const oid = (value as { oid?: unknown } | null)?.oid;
  return typeof oid === 'number' && Number.isInteger(oid) ? oid : undefined;
}

/** Rids a resource refers to in this repository's form (relations, alias source, tree children). */
export function localReferences(fields: ParsedResourceInput['fields']): string[] {
  const rids = (fields.relations ?? []).map(({ rid }) => rid);
  if (fields.aliasOf) rids.push(fields.aliasOf);
  for (const child of descendants(fields.enfants))
    if (typeof child.aliasOf === 'string') rids.push(child.aliasOf);
  return rids;
}

function idOf(value: unknown, key: string): string | undefined {
  const id = (value as Record<string, unknown> | null)?.[key];
  return typeof id === 'string' || typeof id === 'number' ? String(id) : undefined;
}
