/**
 * Validation of a resource to save (GraphQL `ResourceInput`, and the services that save: copies,
 * peers' updates, the demo, imports). Every problem is collected (one per field or list element,
 * naming it) so a client can fix them all at once; unknown properties are not errors but warnings.
 * Types are checked too: GraphQL has checked them already, other callers have not.
 */
import { createRequire } from 'node:module';
import parseSpdx from 'spdx-expression-parse';
import { z } from 'zod';
import {
  BODY_FIELDS,
  type FieldKind,
  type FieldValue,
  RESOURCE_FIELDS,
  type ResourceFieldName,
} from '../../catalogue/resource-fields.ts';
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
  licence: 255,
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

/**
 * A resource's licence: an SPDX licence expression, as npm checks a package's `license`
 * (`CC-BY-SA-4.0`, `CC-BY-4.0 OR MIT`, `LicenseRef-…`), or the http(s) URL of a licence. SPDX
 * identifiers match whatever their case (the SPDX specification, annex D): `cc-by-sa-4.0` is stored
 * as `CC-BY-SA-4.0`, so that a list filtered on one finds the other.
 */
const require = createRequire(import.meta.url);
/** SPDX licence and exception identifiers by their lower-case form. */
const SPDX_IDS = new Map<string, string>(
  [
    ...(require('spdx-license-ids') as string[]),
    ...(require('spdx-license-ids/deprecated.json') as string[]),
    ...(require('spdx-exceptions') as string[]),
  ].map((id) => [id.toLowerCase(), id]),
);

const LICENCE_PROBLEM =
  'doit être une expression de licence SPDX (CC-BY-SA-4.0) ou l’URL http(s) d’une licence';

/** The licence as stored (SPDX identifiers in their canonical case), or undefined when it is none. */
export function normalisedLicence(value: string): string | undefined {
  if (/^https?:\/\//i.test(value)) return URL.canParse(value) ? value : undefined;
  // Identifiers are the words that are not operators; a `+` ("or later") after one is kept as it is.
  const expression = value.replace(/[A-Za-z0-9.-]+/g, (word) =>
    /^(AND|OR|WITH)$/i.test(word) ? word.toUpperCase() : (SPDX_IDS.get(word.toLowerCase()) ?? word),
  );
  try {
    parseSpdx(expression);
    return expression;
  } catch {
    return undefined;
  }
}

/** A relation to another resource. */
export interface Relation {
  predicate: number;
  rid: string;
}

const relation = z
  .object({ predicate: int32, rid: z.string() }, { error: 'doit être une relation {predicate, rid}' })
  .superRefine(({ predicate, rid: target }, ctx) => {
    if (!Object.hasOwn(RELATION_TYPES, predicate))
      ctx.addIssue({ code: 'custom', message: `type de relation inconnu (${predicate})` });
    if (target.length > INDEXED_TEXT_LIMITS.rid)
      ctx.addIssue({ code: 'custom', message: `rid cible trop long (${atMost(INDEXED_TEXT_LIMITS.rid)})` });
    else if (!RID_PATTERN.test(target))
      ctx.addIssue({ code: 'custom', message: `rid cible invalide (${target})` });
  });

/** A scalar field's rule by its catalogue kind, for a field without a rule of its own below. */
const SCHEMA_OF_KIND = {
  text,
  int: int32,
  boolean: z.boolean({ error: 'doit être un booléen' }),
  json: z.unknown(),
  date: z.iso.datetime({ error: 'doit être une date ISO 8601' }).transform((value) => new Date(value)),
} satisfies Record<FieldKind, z.ZodType>;

/** The catalogue's fields a body may give, each checked by its kind (nullable where the column is). */
const kindSchemas = Object.fromEntries(
  BODY_FIELDS.map((name) => {
    const { kind, nullable } = RESOURCE_FIELDS[name];
    return [name, nullable ? SCHEMA_OF_KIND[kind].nullable() : SCHEMA_OF_KIND[kind]];
  }),
) as unknown as { [N in ResourceFieldName]?: z.ZodType<FieldValue<N>, unknown> };

/**
 * The writable properties and their schemas: the catalogue's by kind (a new field needs no line
 * here unless it has a rule of its own), then the rules of the fields that have one, and the lists.
 */
const fieldSchemas = {
  ...kindSchemas,
  oid: z
    .number({ error: 'doit être un entier positif' })
    .int('doit être un entier positif')
    .positive('doit être un entier positif')
    .max(INT32_MAX, 'nombre hors limites'),
  rid,
  origine: nonEmpty.max(INDEXED_TEXT_LIMITS.origine, atMost(INDEXED_TEXT_LIMITS.origine)),
  idOrigine: nonEmpty.max(INDEXED_TEXT_LIMITS.idOrigine, atMost(INDEXED_TEXT_LIMITS.idOrigine)),
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
  authors: strings,
  auteursParents: strings,
  contributors: strings,
  readerGroups: strings,
  authorGroups: strings,
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
  licence: text
    .max(INDEXED_TEXT_LIMITS.licence, atMost(INDEXED_TEXT_LIMITS.licence))
    .transform((value, context) => {
      const licence = normalisedLicence(value);
      if (licence === undefined) context.addIssue({ code: 'custom', message: LICENCE_PROBLEM });
      return licence ?? value;
    })
    .nullable(),
  relations: z.array(relation, { error: 'doit être une liste de relations {predicate, rid}' }),
} as const;

export type ResourceFields = {
  -readonly [K in keyof typeof fieldSchemas]?: z.output<(typeof fieldSchemas)[K]>;
};

export interface ParsedResourceInput {
  fields: ResourceFields;
  /** Names of the fields given (to tell merge from overwrite). */
  posted: ReadonlySet<string>;
  warnings: string[];
}

/** The warning of a property the input has no field for. */
export const unknownProperty = (name: string) => `Propriété ${name} inconnue, ignorée`;

/**
 * The fields of `input`, valid, or every problem found. `ignored` names properties the client sent
 * that no field holds (REST: a legacy body's unknown properties): each is a warning, first.
 */
export function parseResourceInput(input: unknown, ignored: readonly string[] = []): ParsedResourceInput {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new InvalidInputError('Le corps de la requête doit être un objet décrivant la ressource');
  }
  const fields: Record<string, unknown> = {};
  const problems: string[] = [];
  const warnings = ignored.map(unknownProperty);
  for (const [key, value] of Object.entries(input)) {
    // A typed input carries every field, those not given as undefined.
    if (value === undefined) continue;
    // Own properties only: `toString` or `constructor` are unknown properties, not Object's members.
    const schema = Object.hasOwn(fieldSchemas, key)
      ? (fieldSchemas as Record<string, z.ZodType>)[key]
      : undefined;
    if (!schema) {
      warnings.push(unknownProperty(key));
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

/** Relations to append to a resource designated by `ref`, `oid`, or `origine` and `idOrigine`. */
export interface RelationsInput {
  ref?: string | null;
  oid?: number | null;
  origine?: string | null;
  idOrigine?: string | null;
  relations?: Relation[] | null;
}

export interface ParsedRelationsInput {
  /** Any id of the resource (oid, rid, `origine/idOrigine`), when given as `ref`. */
  ref?: string;
  fields: ResourceFields;
}

/** Validation of an `addRelations` input: the resource and its new `relations` (required). */
export function parseRelationsInput(input: RelationsInput): ParsedRelationsInput {
  const { ref, relations, ...identity } = input;
  if (relations == null) throw new InvalidInputError('relations : obligatoire');
  const given = Object.fromEntries(Object.entries(identity).filter(([, value]) => value != null));
  const { fields } = parseResourceInput({ ...given, relations });
  return ref == null ? { fields } : { ref, fields };
}
