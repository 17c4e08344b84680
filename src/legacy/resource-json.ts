/**
 * Legacy JSON shapes of resources. A single resource carries its rights in `_droits`; list items
 * (nested) in `$droits`: the legacy transport never emitted a top-level key starting with `$`.
 * Used by every writer of the legacy format: the REST routes, transfer files.
 */
import { type ResourceFieldName, resourceFields } from '../catalogue/resource-fields.ts';
import { LEGACY_NAMES } from './names.ts';
import type {
  LegacyRefFragment,
  LegacyResourceFragment,
  ResourceFormatsFragment,
} from './operations.generated.ts';

export type RightsKey = '_droits' | '$droits';

/** A JSON object of the legacy format, built in its property order. */
export type LegacyJson = Record<string, unknown>;

/** The fields of a resource that name people (by pid) and groups (by name). */
type LinkField = 'authors' | 'contributors' | 'readerGroups' | 'authorGroups';
type DateField = 'dateCreation' | 'dateMiseAJour';

/**
 * A resource with people by pid, groups by name and dates as ISO text: a stored state
 * (src/modules/resources/resources.repository.ts), which transfer files write as legacy JSON.
 * Otherwise the fields of the LegacyResource fragment, which an operation's result has.
 */
export type StoredResource = Omit<LegacyResourceFragment, LinkField | DateField> &
  Record<LinkField, string[]> &
  Record<DateField, string>;

/**
 * Property orders of the legacy JSON, which existing clients see. Imposed here rather than taken
 * from the GraphQL result, whose order for fields of conditional fragments depends on the executor.
 * A Ref's fields are also its required properties in the OpenAPI document (api-schemas.ts).
 */
export const REF_FIELDS = [
  'aliasOf',
  'titre',
  'resume',
  'description',
  'commentaires',
  'type',
  'categories',
  'public',
] as const satisfies ReadonlyArray<keyof LegacyRefFragment>;
/**
 * The fields the legacy service sent, in its order, under their GraphQL names. A historical fact:
 * existing clients see this order, so it never changes.
 */
const LEGACY_ORDER = [
  'oid',
  'rid',
  'origine',
  'idOrigine',
  'aliasOf',
  'cle',
  'type',
  'titre',
  'resume',
  'description',
  'commentaires',
  'parametres',
  'niveaux',
  'categories',
  'typePedagogiques',
  'typeDocumentaires',
  'authors',
  'auteursParents',
  'contributors',
  'readerGroups',
  'authorGroups',
  'langue',
  'publie',
  'restriction',
  'indexable',
  'dateCreation',
  'dateMiseAJour',
  'version',
  'inc',
  'archiveOid',
];

/** The catalogue's fields the legacy service did not send: they follow its fields, in this order. */
export const FIELDS_SINCE_LEGACY: readonly ResourceFieldName[] = resourceFields
  .map(([name]) => name)
  .filter((name) => !LEGACY_ORDER.includes(name) && name !== 'enfants');

/**
 * The stored fields as the legacy JSON sends them (GraphQL name, legacy name): the legacy order,
 * then the catalogue's fields added since, in the catalogue's order, so that a new field needs no
 * line here. `enfants` and `relations` come last, as the legacy service sent them.
 */
const STORED_FIELDS: ReadonlyArray<readonly [field: string, legacyName: string]> = [
  ...LEGACY_ORDER,
  ...FIELDS_SINCE_LEGACY,
].map((field) => [field, LEGACY_NAMES[field] ?? field]);

/** An operation's links (`{person {pid}}`, `{group {nom}}`) as the legacy JSON names them. */
const LINK_NAMES: Readonly<Record<LinkField, (resource: LegacyResourceFragment) => string[]>> = {
  authors: (resource) => resource.authors.map((link) => link.person.pid),
  contributors: (resource) => resource.contributors.map((link) => link.person.pid),
  readerGroups: (resource) => resource.readerGroups.map((link) => link.group.nom),
  authorGroups: (resource) => resource.authorGroups.map((link) => link.group.nom),
};

/**
 * A resource's stored fields as the legacy JSON: the one place that JSON is built, for every route
 * (`ressource`, `full`, list items of `format=full`) and for transfer files. `resource` has the
 * GraphQL names with relations as `{predicate, rid}`, and people by pid and groups by name, or, with
 * `links`, as an operation's result has them (`LINK_NAMES`); `enfants` is sent only for trees.
 * Built in one pass, in the legacy order: a read's answer is made of it.
 */
function storedJson<R extends StoredResource | LegacyResourceFragment>(
  resource: R,
  links?: Readonly<Partial<Record<string, (resource: R) => unknown>>>,
): LegacyJson {
  // Read by the names of the catalogue's fields, which the field types list too.
  const fields: Readonly<Record<string, unknown>> = resource;
  const legacy: LegacyJson = { ...(resource.enfants != null ? WITH_ENFANTS : WITHOUT_ENFANTS) };
  for (const [field, legacyName] of STORED_FIELDS) {
    const name = links?.[field];
    legacy[legacyName] = name ? name(resource) : fields[field];
  }
  if (resource.enfants != null) legacy.enfants = resource.enfants;
  legacy.relations = resource.relations.map((r) => [r.predicate, r.rid]);
  return legacy;
}

/**
 * The legacy JSON's keys in their order, which `storedJson` copies and then fills. Some thirty
 * properties added one by one under computed names turn an object into a dictionary in V8, which
 * every later copy and JSON.stringify of it pays for (a full resource's answer: 3 against 0.9 µs to
 * stringify); a copy of an object made by JSON.parse keeps its fast layout.
 */
const keysOf = (names: readonly string[]): LegacyJson =>
  JSON.parse(JSON.stringify(Object.fromEntries(names.map((name) => [name, null]))));
const WITHOUT_ENFANTS = keysOf([...STORED_FIELDS.map(([, legacyName]) => legacyName), 'relations']);
const WITH_ENFANTS = keysOf([...STORED_FIELDS.map(([, legacyName]) => legacyName), 'enfants', 'relations']);

/** A resource with people by pid and groups by name (a transfer file's), as legacy JSON. */
export const legacyResourceJson = (resource: StoredResource): LegacyJson => storedJson(resource);

/** A Ref: its fields, `cle`/`enfants`/`parametres` only where they apply, and the rights. */
export function legacyRef(ref: LegacyRefFragment, rightsKey: RightsKey = '_droits'): LegacyJson {
  const legacy: LegacyJson = {};
  for (const name of REF_FIELDS) legacy[name] = ref[name];
  if (ref.cle != null) legacy.cle = ref.cle;
  if (ref.enfants != null) legacy.enfants = ref.enfants;
  if (ref.parametres != null) legacy.parametres = ref.parametres;
  legacy[rightsKey] = ref.droits;
  return legacy;
}

/** The stored fields of an operation's Resource, as legacy JSON. */
export const legacyFields = (resource: LegacyResourceFragment): LegacyJson =>
  storedJson(resource, LINK_NAMES);

/**
 * A resource in the requested format: `ressource` (default), `ref` or `full`. The format chose
 * what the operation selected (src/rest/operations/resources.graphql, `$asRef`, `$full`): the Ref
 * alone, or the stored fields (LegacyResource), with those of `full`.
 */
export function legacyResource(resource: ResourceFormatsFragment, format: unknown): LegacyJson {
  if (format === 'ref') return legacyRef(resource.ref!);
  const legacy = legacyFields(resource as LegacyResourceFragment);
  if (resource.droits !== undefined) legacy._droits = resource.droits;
  if (format === 'full') {
    legacy._auteurs = resource.authors!.map((link) => link.person.label);
    legacy._contributeurs = resource.contributors!.map((link) => link.person.label);
    legacy._relations = resource.resolvedRelations;
    legacy._enfants = resource.enfants ?? [];
  }
  return legacy;
}
