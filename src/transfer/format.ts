/**
 * The transfer format (docs/import-export.md): JSON Lines, one record per line, so that an export
 * of any size is written and read as a stream (a single JSON document would have to be held whole,
 * or parsed by a streaming parser, to read its last resource).
 *
 *   line 1   {"format": "resource-repository-transfer", "version": 1, "baseId": "<baseId>"}
 *   then     {"personne": <person>}  {"groupe": <group>}  {"ressource": <resource>}
 *
 * Each value is what the previous service's GET routes returned for that object (a resource as
 * `GET /api/ressource/:oid?format=full`, a group as `GET /api/groupe/:oid?format=full`, a person as
 * its stored document with `roles` and group names). Derived fields (`_auteurs`, `_droits`,
 * `gestionnairesNames`, …) are accepted and ignored. A resource is read as the REST layer reads a
 * posted one (src/legacy/resource-input.ts) and validated by the service's own rules
 * (parseResourceInput), so an import accepts exactly what the API accepts.
 */
import { z } from 'zod';
import { INT32_MAX } from '../lib/integers.ts';

export const FORMAT_NAME = 'resource-repository-transfer';
export const FORMAT_VERSION = 1;

export const headerSchema = z.object({
  format: z.literal(FORMAT_NAME, { error: `format: "${FORMAT_NAME}" expected` }),
  version: z.literal(FORMAT_VERSION, { error: `version: ${FORMAT_VERSION} expected` }),
  baseId: z
    .string()
    .min(1)
    .regex(/^[^/\s]+$/, 'baseId: without "/" or spaces'),
});
export type Header = z.infer<typeof headerSchema>;

const oid = z
  .number({ error: 'must be a positive integer' })
  .int('must be a positive integer')
  .positive('must be a positive integer')
  .max(INT32_MAX, 'number out of range');
const date = z.union([z.string(), z.number()], { error: 'must be a date' }).transform((value, ctx) => {
  const parsed = new Date(value);
  if (Number.isNaN(parsed.getTime())) {
    ctx.addIssue({ code: 'custom', message: 'not a valid date' });
    return z.NEVER;
  }
  return parsed;
});
const names = z.array(z.string(), { error: 'must be a list of strings' });

/**
 * `roles` as the previous service stored them, `{<role>: true|false}` (only `true` counts), or a
 * list of role names; normalised to the sorted list of granted roles.
 */
const roles = z
  .union([z.record(z.string(), z.boolean()), names], { error: 'must be {role: boolean} or a list' })
  .transform((value) =>
    [...new Set(Array.isArray(value) ? value : Object.keys(value).filter((role) => value[role]))].sort(),
  );

export const personSchema = z.object({
  oid,
  pid: z.string({ error: 'required' }).refine((pid) => pid.indexOf('/') > 0, 'must be <origin>/<id>'),
  nom: z.string().default(''),
  prenom: z.string().default(''),
  email: z
    .string()
    .nullish()
    .transform((value) => value ?? null),
  roles: roles.default([]),
  groupesMembre: names.default([]),
  groupesSuivis: names.default([]),
});
export type PersonRecord = z.infer<typeof personSchema>;

export const groupSchema = z.object({
  oid,
  nom: z.string({ error: 'required' }),
  description: z
    .string()
    .nullish()
    .transform((value) => value ?? ''),
  ouvert: z.boolean().default(false),
  public: z.boolean().default(false),
  /** Person oids of the exporting service, in order. */
  gestionnaires: z.array(oid).default([]),
  dateCreation: date.optional(),
});
export type GroupRecord = z.infer<typeof groupSchema>;

/**
 * What the service manages itself on a save, and an import keeps: the read key (links holding it
 * keep working), the version counters and the dates. Everything else of a resource goes through
 * parseResourceInput.
 */
export const resourceManagedSchema = z.object({
  oid,
  cle: z.string().min(1).nullish(),
  version: z.number().int().positive().max(INT32_MAX).optional(),
  inc: z.number().int().nonnegative().max(INT32_MAX).optional(),
  dateCreation: date.optional(),
  dateMiseAJour: date.optional(),
});

/** The kinds of records and the key each is wrapped in. */
export const RECORD_KEYS = { personne: 'person', groupe: 'group', ressource: 'resource' } as const;
export type RecordKind = (typeof RECORD_KEYS)[keyof typeof RECORD_KEYS];

/** A line's record: its kind and its (unvalidated) value, or why it is no record. */
export function recordOf(value: unknown): { kind: RecordKind; value: unknown } | { error: string } {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { error: 'a line must be a JSON object' };
  }
  const keys = Object.keys(value);
  const key = keys[0];
  if (keys.length !== 1 || key === undefined || !Object.hasOwn(RECORD_KEYS, key)) {
    return { error: 'a line must have a single key: personne, groupe or ressource' };
  }
  return {
    kind: RECORD_KEYS[key as keyof typeof RECORD_KEYS],
    value: (value as Record<string, unknown>)[key],
  };
}

/** Zod issues as `field : message` lines. */
export function describeIssues(error: z.ZodError): string[] {
  return error.issues.map((issue) =>
    issue.path.length > 0 ? `${issue.path.join('.')}: ${issue.message}` : issue.message,
  );
}

/** Lines of a file, read as a stream: memory holds one chunk and one line, whatever the size. */
export async function* readLines(
  chunks: AsyncIterable<Buffer | string>,
): AsyncGenerator<{ line: string; number: number }> {
  const decoder = new TextDecoder('utf-8', { fatal: false });
  let pending = '';
  let number = 0;
  for await (const chunk of chunks) {
    pending += typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
    let start = 0;
    let end = pending.indexOf('\n', start);
    while (end >= 0) {
      number += 1;
      yield { line: pending.slice(start, end).replace(/\r$/, ''), number };
      start = end + 1;
      end = pending.indexOf('\n', start);
    }
    pending = pending.slice(start);
  }
  pending += decoder.decode();
  if (pending.length > 0) yield { line: pending.replace(/\r$/, ''), number: number + 1 };
}
