/**
 * Person operations: creation or update by an administrator (`personne/add`), upsert from a lab
 * login, look-ups. Roles are stored with their source so that a lab login replaces only the roles
 * a lab granted, roles granted by an administrator survive later logins, and the development
 * login's count only while it is on (src/permissions.ts roleSourceGrants).
 */
import { z } from 'zod';
import type { Viewer } from '../../auth/viewer.ts';
import type { Config } from '../../config.ts';
import type { Context } from '../../context.ts';
import { db, type Prisma, type Transaction } from '../../db/client.ts';
import { InvalidInputError, NotFoundError } from '../../errors.ts';
import { normaliseForComparison } from '../../lib/text.ts';
import type { RoleSource } from '../../permissions.ts';

/** A pid is `<prefix>/<id>`: a slash after the first character. */
export const isPid = (value: string) => value.indexOf('/') > 0;

const requiredText = (label: string) =>
  z
    .string({ error: `${label} manquant` })
    .trim()
    .min(1, `${label} manquant`);

/** A pid is a unique index's entry: at most this many characters (see INDEXED_TEXT_LIMITS). */
export const MAX_PID_LENGTH = 255;

const addPersonInput = z
  .object({
    origine: requiredText('origine').refine(
      (value) => !value.includes('/'),
      'origine ne doit pas contenir de /',
    ),
    idOrigine: requiredText('idOrigine'),
    nom: requiredText('nom'),
    prenom: requiredText('prenom'),
    email: z.string().trim().email('email invalide').nullish(),
    roles: z.array(z.string()).nullish(),
  })
  .refine(
    ({ origine, idOrigine }) => origine.length + 1 + idOrigine.length <= MAX_PID_LENGTH,
    `pid (origine/idOrigine) : au plus ${MAX_PID_LENGTH} caractères`,
  );

/** Unvalidated: whatever the caller posted; `addPerson` validates it. */
export type AddPersonInput = {
  [K in keyof z.input<typeof addPersonInput>]?: z.input<typeof addPersonInput>[K] | null;
};

/** A problem of `addPersonInput` in English, for the command-line tool. */
function operatorIssue(issue: z.core.$ZodIssue): string {
  const field = issue.path.join('.') || 'pid';
  if (issue.code === 'invalid_format') return `${field}: not an e-mail address`;
  if (issue.code === 'too_small') return `${field}: required`;
  if (issue.code === 'too_big' || field === 'pid') return `${field}: at most ${MAX_PID_LENGTH} characters`;
  if (field === 'origine') return 'origin: must not contain "/"';
  return `${field}: invalid`;
}

function parseOrThrow<T>(schema: z.ZodType<T>, input: unknown): T {
  const result = schema.safeParse(input);
  if (!result.success) {
    throw new InvalidInputError(result.error.issues.map((issue) => issue.message)).forOperators(
      result.error.issues.map(operatorIssue).join('; '),
    );
  }
  return result.data;
}

/**
 * Creates or updates a person; when `roles` is given it becomes the set of roles granted by
 * `source` (an administrator, unless the development login calls).
 */
export async function addPerson(
  input: AddPersonInput,
  config: Config,
  source: Exclude<RoleSource, 'lab'> = 'admin',
) {
  const data = parseOrThrow(addPersonInput, input);
  const unknownRoles = (data.roles ?? []).filter((role) => !Object.hasOwn(config.roles, role));
  if (unknownRoles.length > 0) {
    const known = Object.keys(config.roles).join(', ');
    throw new InvalidInputError(
      unknownRoles.map((role) => `Rôle ${role} inconnu (rôles connus : ${known})`),
    ).forOperators(
      unknownRoles.map((role) => `Unknown role ${role} (roles of the configuration: ${known})`).join('; '),
    );
  }
  const pid = `${data.origine}/${data.idOrigine}`;
  return db.$transaction(async (tx) => {
    const fields = {
      nom: data.nom,
      prenom: data.prenom,
      ...(data.email !== undefined ? { email: data.email } : {}),
    };
    const person = await tx.person.upsert({ where: { pid }, create: { pid, ...fields }, update: fields });
    if (data.roles) await setRoles(tx, person.oid, source, [...new Set(data.roles)]);
    return person;
  });
}

export interface LabUser {
  pid: string;
  nom: string;
  prenom: string;
  email: string | null;
  role: string;
}

/** Creates or refreshes a person from a lab's answer; the lab's role replaces earlier lab roles only. */
export async function upsertFromLab(user: LabUser) {
  return db.$transaction(async (tx) => {
    const fields = { nom: user.nom, prenom: user.prenom, email: user.email };
    const person = await tx.person.upsert({
      where: { pid: user.pid },
      create: { pid: user.pid, ...fields },
      update: fields,
    });
    await setRoles(tx, person.oid, 'lab', [user.role]);
    return person;
  });
}

/** Who may take over a role another source holds: an administrator's grant outranks a lab's, a
 * lab's the development login's. */
const OUTRANKED: Record<RoleSource, RoleSource[]> = {
  admin: ['lab', 'devLogin'],
  lab: ['devLogin'],
  devLogin: [],
};

/** Makes `roles` the roles of `source`, leaving roles of other sources alone. */
async function setRoles(tx: Transaction, personOid: number, source: RoleSource, roles: string[]) {
  await tx.personRole.deleteMany({ where: { personOid, source, role: { notIn: roles } } });
  if (OUTRANKED[source].length > 0) {
    // A grant of a role a lower source gave becomes the grantor's: it must outlive that source's
    // next change (a lab login giving another role removes the lab's).
    await tx.personRole.updateMany({
      where: { personOid, source: { in: OUTRANKED[source] }, role: { in: roles } },
      data: { source, grantedAt: new Date() },
    });
  }
  const held = await tx.personRole.findMany({
    where: { personOid, role: { in: roles } },
    select: { role: true },
  });
  const heldRoles = new Set(held.map((r) => r.role));
  // A role already held from a higher source is kept as it is (a lab does not take an administrator's).
  const missing = roles.filter((role) => !heldRoles.has(role));
  if (missing.length > 0) {
    await tx.personRole.createMany({ data: missing.map((role) => ({ personOid, role, source })) });
  }
}

/** A Prisma selection of a person, as a GraphQL field plans it (`queryFromInfo`). */
export type PersonQuery = Pick<Prisma.PersonFindUniqueArgs, 'select' | 'include'>;

/**
 * The logged-in person of `viewer` with what `plan` selects, or null when nobody is logged in: the
 * selection is planned only then, so an anonymous or token caller costs neither a statement nor
 * the planning of one.
 */
export async function viewerPerson(viewer: Viewer, plan: () => PersonQuery) {
  if (!viewer.person) return null;
  return db.person.findUnique({ ...plan(), where: { oid: viewer.person.oid } });
}

export async function findByPid(pid: string) {
  const person = await db.person.findUnique({ where: { pid } });
  if (!person) throw new NotFoundError(`Aucune personne avec le pid ${pid}`);
  return person;
}

/** A name given by a user designates the person: family name, or given and family names in either order. */
export function nameDesignates(person: { nom: string; prenom: string }, name: string): boolean {
  const wanted = normaliseForComparison(name);
  return [person.nom, `${person.prenom} ${person.nom}`, `${person.nom} ${person.prenom}`].some(
    (candidate) => normaliseForComparison(candidate) === wanted,
  );
}

/**
 * `checkPid`: the person whose pid and name (case and accents ignored) both match. An unknown pid
 * and a wrong name get the same answer, so the route cannot be used to probe pids.
 */
export async function findByPidAndName(
  context: Context,
  pid: string | null | undefined,
  nom: string | null | undefined,
) {
  const problems = [];
  if (!pid?.trim()) problems.push('pid manquant');
  if (!nom?.trim()) problems.push('nom manquant');
  if (problems.length > 0) throw new InvalidInputError(problems);
  // Guessing a person's name from their pid is an authentication-like probe: failures are limited.
  const attempt = { kind: 'pidCheck', address: context.client.address, subject: pid!.trim() } as const;
  await context.services.abuse.assertAllowed(attempt);
  const person = await db.person.findUnique({ where: { pid: pid!.trim() } });
  if (!person || !nameDesignates(person, nom!)) {
    await context.services.abuse.recordFailure(attempt);
    throw new NotFoundError(`Aucune personne avec le pid ${pid!.trim()} et le nom ${nom!.trim()}`);
  }
  return person;
}
