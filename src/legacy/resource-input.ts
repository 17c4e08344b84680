/**
 * Legacy resource bodies (`POST /api/ressource`, `POST /api/ressource/addRelations`) as the typed
 * GraphQL inputs: the legacy names renamed (`auteurs` → `authors`, `[predicate, rid]` pairs →
 * `{predicate, rid}`), an integer `idOrigine` sent as text. Only the wire format is checked here:
 * each property's JSON type as the legacy service read it, so that a wrong type answers the legacy
 * message, every one at once, where GraphQL would refuse the variable with its own. The rules
 * (ranges, lengths, rid forms, vocabularies, tree children) are the service's, which GraphQL
 * clients meet alike. Properties no input field holds travel as `ignoredProperties`, which the
 * service returns as warnings; those the server manages (read back from a GET and posted again)
 * are dropped without one.
 */
import {
  BODY_FIELDS,
  RESOURCE_FIELDS as CATALOGUE,
  type FieldKind,
  fieldsWhere,
  type ResourceFieldName,
} from '../catalogue/resource-fields.ts';
import { InvalidInputError } from '../errors.ts';
import { FIELD_OF_LEGACY } from './names.ts';

const INT32_MIN = -2_147_483_648;
const INT32_MAX = 2_147_483_647;

/**
 * What one property must be on the wire: the value to send, or its problems, each either the
 * property's own (`doit être un booléen`) or one of its items' (`[2] : doit être un entier`).
 */
type Wire = (value: unknown) => { problems: string[] } | { value: unknown };

const fits = (value: unknown): value is number =>
  Number.isInteger(value) && (value as number) >= INT32_MIN && (value as number) <= INT32_MAX;
const ok = (value: unknown) => ({ value });
const problem = (message: string) => ({ problems: [message] });

const text =
  (message = 'doit être une chaîne de caractères', nullable = false): Wire =>
  (value) =>
    typeof value === 'string' || (nullable && value === null) ? ok(value) : problem(message);

/** A 32-bit integer (GraphQL `Int`). */
const integer =
  (message: string): Wire =>
  (value) =>
    fits(value) ? ok(value) : problem(Number.isInteger(value) ? 'nombre hors limites' : message);

const boolean: Wire = (value) => (typeof value === 'boolean' ? ok(value) : problem('doit être un booléen'));

/** A list, each item checked by `item`: problems name the item (`categories[2] : …`). */
const list =
  (message: string, item: Wire): Wire =>
  (value) => {
    if (!Array.isArray(value)) return problem(message);
    const items: unknown[] = [];
    const problems: string[] = [];
    value.forEach((element, index) => {
      const checked = item(element);
      if ('problems' in checked)
        problems.push(...checked.problems.map((message) => `[${index}] : ${message}`));
      else items.push(checked.value);
    });
    return problems.length > 0 ? { problems } : ok(items);
  };

const integers = list('doit être une liste d’entiers', integer('doit être un entier'));
const strings = list('doit être une liste de chaînes', text());

/** `[predicate, rid]` → `{predicate, rid}`. */
const pair: Wire = (value) =>
  Array.isArray(value) && value.length === 2 && fits(value[0]) && typeof value[1] === 'string'
    ? ok({ predicate: value[0], rid: value[1] })
    : problem('doit être une paire [type de relation, rid]');

/** A scalar field's wire type by its catalogue kind (a date is not in bodies: the server writes them). */
const wireOfKind = (kind: FieldKind, nullable: boolean): Wire =>
  kind === 'int'
    ? integer('doit être un entier')
    : kind === 'boolean'
      ? boolean
      : kind === 'json'
        ? ok
        : text('doit être une chaîne de caractères', nullable);

/**
 * The wire types the legacy service gave some scalar fields, where they differ from their kind's:
 * their messages, an integer `idOrigine` sent as text, `enfants` as a list or null.
 */
const SCALAR_WIRES: Partial<Record<ResourceFieldName, Wire>> = {
  oid: integer('doit être un entier positif'),
  idOrigine: (value) =>
    typeof value === 'string'
      ? ok(value)
      : Number.isSafeInteger(value) && (value as number) >= 0
        ? ok(String(value))
        : problem('doit être une chaîne ou un entier'),
  restriction: integer('doit valoir 0, 1, 2 ou 3'),
  enfants: (value) =>
    value === null || Array.isArray(value) ? ok(value) : problem('doit être une liste d’objets'),
};

/**
 * Legacy property → its wire type; it fills the input field of its name (names.ts renames the few
 * that differ). The catalogue's fields a body may give, by kind, so that a new field needs no line
 * here; then the lists, which the catalogue does not hold.
 */
const RESOURCE_FIELDS: Record<string, { wire: Wire }> = {
  ...Object.fromEntries(
    BODY_FIELDS.map((name) => {
      const { kind, nullable } = CATALOGUE[name];
      return [name, { wire: SCALAR_WIRES[name] ?? wireOfKind(kind, nullable) }];
    }),
  ),
  rid: { wire: text() },
  categories: { wire: integers },
  niveaux: { wire: strings },
  typePedagogiques: { wire: integers },
  typeDocumentaires: { wire: integers },
  auteurs: { wire: strings },
  auteursParents: { wire: strings },
  contributeurs: { wire: strings },
  groupes: { wire: strings },
  groupesAuteurs: { wire: strings },
  relations: { wire: list('doit être une liste de paires [type de relation, rid]', pair) },
};

/** Managed by the server: a GET's answer posted back keeps them, and they are dropped silently. */
const SERVER_FIELDS = new Set([
  // The catalogue's fields the service writes, but those a body may give (the oid, which designates it).
  ...fieldsWhere((field) => field.writer === 'service').filter((name) => !BODY_FIELDS.includes(name)),
  '_droits',
  '$droits',
  '_auteurs',
  '_contributeurs',
  '_relations',
  '_enfants',
  'success',
  'warnings',
]);

/** The properties of `body` named in `fields`, typed and renamed, or every wire problem at once. */
function typedInput(body: Record<string, unknown>, fields: typeof RESOURCE_FIELDS) {
  const input: Record<string, unknown> = {};
  const problems: string[] = [];
  const ignoredProperties: string[] = [];
  for (const [name, value] of Object.entries(body)) {
    // Own properties only: `toString` or `constructor` are unknown properties, not Object's members.
    const known = Object.hasOwn(fields, name) ? fields[name] : undefined;
    if (!known) {
      if (!SERVER_FIELDS.has(name)) ignoredProperties.push(name);
      continue;
    }
    const checked = known.wire(value);
    if ('problems' in checked)
      problems.push(
        ...checked.problems.map((line) => (line.startsWith('[') ? name + line : `${name} : ${line}`)),
      );
    else input[FIELD_OF_LEGACY[name] ?? name] = checked.value;
  }
  if (problems.length > 0) throw new InvalidInputError(problems);
  return { input, ignoredProperties };
}

function objectBody(body: unknown, message: string): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new InvalidInputError(message);
  return body as Record<string, unknown>;
}

/** `POST /api/ressource`: the ResourceInput, and the properties it has no field for. */
export function resourceInput(body: unknown): {
  input: Record<string, unknown>;
  ignoredProperties: string[];
} {
  return typedInput(
    objectBody(body, 'Le corps de la requête doit être un objet décrivant la ressource'),
    RESOURCE_FIELDS,
  );
}

const RELATIONS_FIELDS: typeof RESOURCE_FIELDS = {
  ref: {
    wire: (value) =>
      typeof value === 'string' || typeof value === 'number' ? ok(String(value)) : ok(undefined),
  },
  oid: RESOURCE_FIELDS.oid!,
  origine: RESOURCE_FIELDS.origine!,
  idOrigine: RESOURCE_FIELDS.idOrigine!,
  relations: RESOURCE_FIELDS.relations!,
};

/** `POST /api/ressource/addRelations`: the ResourceRelationsInput (other properties are ignored). */
export function relationsInput(body: unknown): Record<string, unknown> {
  const { input } = typedInput(
    objectBody(body, 'Le corps de la requête doit être un objet'),
    RELATIONS_FIELDS,
  );
  return Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined));
}
