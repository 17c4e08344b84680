/**
 * Validation of a posted resource (legacy `POST /api/ressource` body). Every problem is collected
 * (one per field or list element, naming it) so a client can fix them all at once; unknown
 * properties are not errors but warnings; fields the server manages are ignored.
 */
import { z } from 'zod';
import { InvalidInputError } from '../../errors.ts';
import { INT32_MAX, INT32_MIN } from '../../lib/integers.ts';
import { checkTreeChildren } from '../trees/tree-input.ts';
import { RELATION_TYPES, RID_PATTERN } from './vocabulary.ts';

const text = z.string({ error: 'doit être une chaîne de caractères' });
const nonEmpty = text.min(1, 'ne doit pas être vide');
/**
 * Texts a database index holds: PostgreSQL refuses a B-tree entry above 2,704 bytes, and a
 * character takes up to 4 bytes. The limits leave room for the other columns of each index (the
 * origin pair; type, levels and categories in the list order index, src/read-model/conditions.ts).
 */
export const INDEXED_TEXT_LIMITS = {
  titre: 500,
  origine: 255,
  idOrigine: 255,
  rid: 255,
  type: 50,
  langue: 20,
  niveau: 20,
} as const;
/** Entries of the lists also kept as tags in the list order index. */
export const TAGGED_LIST_LIMITS = { niveaux: 20, categories: 50 } as const;
const atMost = (limit: number) => `au plus ${limit} caractères`;
/** Integer columns are 32-bit: a larger number is refused here rather than by the database. */
const int32 = z
  .number({ error: 'doit être un entier' })
  .int('doit être un entier')
  .min(INT32_MIN, 'nombre hors limites')
  .max(INT32_MAX, 'nombre hors limites');
const integers = z.array(int32, { error: 'doit être une liste d’entiers' });
const strings = z.array(z.string(), { error: 'doit être une liste de chaînes' });
const rid = text
  .max(INDEXED_TEXT_LIMITS.rid, atMost(INDEXED_TEXT_LIMITS.rid))
  .regex(RID_PATTERN, 'doit être un rid de la forme baseId/oid');
const listOfAtMost = <T extends z.ZodType>(items: z.ZodArray<T>, limit: number) =>
  items.max(limit, `au plus ${limit} valeurs`);

const relation = z
  .tuple([int32, z.string()], { error: 'doit être une paire [type de relation, rid]' })
  .superRefine(([predicate, target], ctx) => {
    if (!Object.hasOwn(RELATION_TYPES, predicate))
      ctx.addIssue({ code: 'custom', message: `type de relation inconnu (${predicate})` });
    if (target.length > INDEXED_TEXT_LIMITS.rid)
      ctx.addIssue({ code: 'custom', message: `rid cible trop long (${atMost(INDEXED_TEXT_LIMITS.rid)})` });
    else if (!RID_PATTERN.test(target))
      ctx.addIssue({ code: 'custom', message: `rid cible invalide (${target})` });
  });

/** The writable properties and their schemas. */
const fieldSchemas = {
  oid: z
    .number({ error: 'doit être un entier positif' })
    .int('doit être un entier positif')
    .positive('doit être un entier positif')
    .max(INT32_MAX, 'nombre hors limites'),
  rid,
  origine: nonEmpty.max(INDEXED_TEXT_LIMITS.origine, atMost(INDEXED_TEXT_LIMITS.origine)),
  idOrigine: z
    .union(
      [
        nonEmpty.max(INDEXED_TEXT_LIMITS.idOrigine, atMost(INDEXED_TEXT_LIMITS.idOrigine)),
        z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER),
      ],
      { error: 'doit être une chaîne ou un entier' },
    )
    .transform((value) => String(value)),
  titre: text.max(INDEXED_TEXT_LIMITS.titre, atMost(INDEXED_TEXT_LIMITS.titre)),
  resume: text,
  description: text,
  commentaires: text,
  type: nonEmpty
    .max(INDEXED_TEXT_LIMITS.type, atMost(INDEXED_TEXT_LIMITS.type))
    .refine((type) => type !== 'error', 'le type « error » est réservé aux éléments de liste en erreur'),
  categories: listOfAtMost(integers, TAGGED_LIST_LIMITS.categories),
  niveaux: listOfAtMost(
    z.array(z.string().max(INDEXED_TEXT_LIMITS.niveau, atMost(INDEXED_TEXT_LIMITS.niveau)), {
      error: 'doit être une liste de chaînes',
    }),
    TAGGED_LIST_LIMITS.niveaux,
  ),
  typePedagogiques: integers,
  typeDocumentaires: integers,
  auteurs: strings,
  auteursParents: strings,
  contributeurs: strings,
  groupes: strings,
  groupesAuteurs: strings,
  langue: nonEmpty.max(INDEXED_TEXT_LIMITS.langue, atMost(INDEXED_TEXT_LIMITS.langue)),
  publie: z.boolean({ error: 'doit être un booléen' }),
  restriction: z.union([z.literal(0), z.literal(1), z.literal(2), z.literal(3)], {
    error: 'doit valoir 0, 1, 2 ou 3',
  }),
  indexable: z.boolean({ error: 'doit être un booléen' }),
  parametres: z.unknown(),
  enfants: z
    .array(z.record(z.string(), z.unknown()), { error: 'doit être une liste d’objets' })
    .nullable()
    .superRefine(checkTreeChildren),
  aliasOf: rid.nullable(),
  relations: z.array(relation, { error: 'doit être une liste de paires [type de relation, rid]' }),
} as const;

export type ResourceFields = {
  -readonly [K in keyof typeof fieldSchemas]?: z.output<(typeof fieldSchemas)[K]>;
};

/** Managed by the server: accepted in a posted body (a read-modify-write round trip) and ignored. */
export const SERVER_FIELDS = new Set([
  'cle',
  'version',
  'inc',
  'dateCreation',
  'dateMiseAJour',
  'archiveOid',
  '_droits',
  '$droits',
  '_auteurs',
  '_contributeurs',
  '_relations',
  '_enfants',
  'success',
  'warnings',
]);

export interface ParsedResourceInput {
  fields: ResourceFields;
  /** Names of the properties present in the body (to tell merge from overwrite). */
  posted: ReadonlySet<string>;
  warnings: string[];
}

export function parseResourceInput(body: unknown): ParsedResourceInput {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new InvalidInputError('Le corps de la requête doit être un objet décrivant la ressource');
  }
  const fields: Record<string, unknown> = {};
  const problems: string[] = [];
  const warnings: string[] = [];
  for (const [key, value] of Object.entries(body)) {
    if (SERVER_FIELDS.has(key)) continue;
    // Own properties only: `toString` or `constructor` are unknown properties, not Object's members.
    const schema = Object.hasOwn(fieldSchemas, key)
      ? (fieldSchemas as Record<string, z.ZodType>)[key]
      : undefined;
    if (!schema) {
      warnings.push(`Propriété ${key} inconnue, ignorée`);
      continue;
    }
    const result = schema.safeParse(value);
    if (result.success) {
      fields[key] = result.data;
      continue;
    }
    for (const issue of result.error.issues) {
      const where = issue.path.length > 0 ? `${key}[${issue.path.join('][')}]` : key;
      problems.push(`${where} : ${issue.message}`);
    }
  }
  if (problems.length > 0) throw new InvalidInputError(problems);
  return { fields: fields as ResourceFields, posted: new Set(Object.keys(fields)), warnings };
}

export interface ParsedRelationsInput {
  /** Any id of the resource (oid, rid, `origine/idOrigine`), when given as `ref`. */
  ref?: string;
  fields: ResourceFields;
}

/**
 * Validation of a posted `addRelations` body: the resource (`ref`, `oid`, or `origine` and
 * `idOrigine`) and its new `relations`. Other properties are ignored.
 */
export function parseRelationsInput(body: unknown): ParsedRelationsInput {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new InvalidInputError('Le corps de la requête doit être un objet');
  }
  const { ref, relations, ...identity } = body as Record<string, unknown>;
  if (relations === undefined) throw new InvalidInputError('relations : obligatoire');
  const { fields } = parseResourceInput({ ...identity, relations });
  return typeof ref === 'string' || typeof ref === 'number' ? { ref: String(ref), fields } : { fields };
}
