/**
 * A save, decided without the database: from what was read (the validated body, the
 * designated resource, the persons and groups its names resolve to, who is asking), what to write
 * or which error to answer. Two steps, because the names are looked up only once the caller is
 * known to be allowed: `decideSave` (rights, merge or overwrite, defaults, validation), then
 * `planSave` (names to ids with their warnings, the row, the links, the archive, the audit).
 * resources.service.ts reads before, and writes a plan in one transaction.
 */
import { isDeepStrictEqual } from 'node:util';
import {
  type FieldValue,
  fieldDefault,
  fieldsWhere,
  RESOURCE_FIELDS,
  type ResourceFieldName,
} from '../../catalogue/resource-fields.ts';
import type { Prisma } from '../../db/client.ts';
import { type DomainError, deniedError, ForbiddenError, InvalidInputError } from '../../errors.ts';
import { changedFields, type FieldChanges, stateAs } from '../audit/audit.service.ts';
import { groupNameKey } from '../groups/groups.service.ts';
import type { ParsedResourceInput } from './resource-input.ts';
import {
  canChangeAuthors,
  canChangeGroups,
  canCreate,
  canFork,
  canRead,
  canUpdate,
  isPublicAndPublished,
  type RightsSubject,
} from './resources.policy.ts';
import {
  changedLinks,
  type FullResource,
  factsOf,
  type ResourceLinks,
  ridOf,
  type StoredState,
  storedState,
} from './resources.repository.ts';

/** The state a save writes: scalars plus the multi-valued fields, without what the service writes. */
export type ResourceState = Omit<StoredState, 'rid' | ServiceField>;

type ServiceField = {
  [N in ResourceFieldName]: (typeof RESOURCE_FIELDS)[N]['writer'] extends 'service' ? N : never;
}[ResourceFieldName];

/** What the service writes in a stored state: its fields, and the rid (its oid's). */
const SERVICE_WRITTEN = new Set<string>([...fieldsWhere((field) => field.writer === 'service'), 'rid']);

/** A stored state without what the service writes: the state a save starts from. */
const writtenByCallers = (state: StoredState) =>
  Object.fromEntries(Object.entries(state).filter(([name]) => !SERVICE_WRITTEN.has(name))) as ResourceState;

/** The scalar fields a caller writes (a save's body, an import's record), in the catalogue's order. */
const CALLER_FIELDS = fieldsWhere((field) => field.writer === 'caller') as CallerField[];

const defaultOf = (name: ResourceFieldName): unknown => fieldDefault(RESOURCE_FIELDS[name]);

/** What an overwrite (not a merge) leaves in the fields it was not posted. */
export const CONTENT_DEFAULTS = {
  ...(Object.fromEntries(
    CALLER_FIELDS.flatMap((name) => (defaultOf(name) === undefined ? [] : [[name, defaultOf(name)]])),
  ) as Pick<ResourceState, Exclude<DefaultedField, 'parametres'>> & { parametres: object }),
  niveaux: [],
  categories: [],
  typePedagogiques: [],
  typeDocumentaires: [],
  relations: [],
} satisfies Partial<ResourceState>;

/**
 * Changing one of these archives the previous state and bumps the version: the catalogue's fields
 * that say so, and the authors and contributors.
 */
const VERSION_TRIGGERS = [
  ...(fieldsWhere((field) => field.bumps === 'version') as (keyof ResourceState)[]),
  'authors',
  'contributors',
] satisfies (keyof ResourceState)[];
/** Changing one of these bumps the minor revision `inc` only (and rewrites the full-text words). */
const INC_TRIGGERS = fieldsWhere((field) => field.bumps === 'inc') as (keyof ResourceState)[];

/** `undefined`, `null` and `{}` all mean "no parameters" when comparing versions. */
export function normalised(value: unknown): unknown {
  if (value === undefined || value === null) return null;
  if (typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 0) return null;
  return value;
}

const sameNormalised = (a: unknown, b: unknown) => isDeepStrictEqual(normalised(a), normalised(b));

// ---------------------------------------------------------------------------------------------
// Deciding: rights, merge or overwrite, validation

/** Everything a save is decided on, as read before deciding. */
export interface SaveRequest {
  /** The validated body. */
  input: ParsedResourceInput;
  /** Merge the posted fields into the resource (also when neither `titre` nor `categories` is posted). */
  merge: boolean;
  /** The resource the body designates, whole; null: a creation. */
  existing: FullResource | null;
  /** `forkAlias`: the right to fork instead of the right to update. */
  forkingAlias: boolean;
  /** Who is saving, with the groups and the read key their rights depend on. */
  subject: RightsSubject;
  baseId: string;
}

/** A save the caller may make: the state before (null: a creation) and the state to write. */
export interface SaveDecision {
  request: SaveRequest;
  before: ResourceState | null;
  after: Partial<ResourceState>;
}

/**
 * Whether the caller may make this save, and the state it writes: with `merge`, the posted fields
 * over the existing resource; otherwise over the defaults, ownership and sharing (authors,
 * contributors, groups), origin, type and alias link being kept unless posted. The error is the
 * one the save answers; nothing is decided about names yet.
 */
export function decideSave(request: SaveRequest): SaveDecision | DomainError {
  const { input, existing, subject, baseId } = request;
  const { fields, posted } = input;
  const mergeMode = request.merge || (!posted.has('titre') && !posted.has('categories'));

  let before: ResourceState | null = null;
  if (existing) {
    const facts = factsOf(existing);
    const allowed = request.forkingAlias ? canFork(subject, facts) : canUpdate(subject, facts);
    if (!allowed) return canRead(subject, facts) ? new ForbiddenError() : deniedError(subject.viewer);
    before = writtenByCallers(storedState(existing, baseId));
  } else if (!canCreate(subject.viewer)) {
    return deniedError(subject.viewer);
  }

  const content = Object.fromEntries(Object.entries(fields).filter(([key]) => !['oid', 'rid'].includes(key)));
  const kept = before && {
    origine: before.origine,
    idOrigine: before.idOrigine,
    aliasOf: before.aliasOf,
    type: before.type,
    authors: before.authors,
    auteursParents: before.auteursParents,
    contributors: before.contributors,
    readerGroups: before.readerGroups,
    authorGroups: before.authorGroups,
  };
  const after = {
    ...(before && mergeMode ? before : { ...CONTENT_DEFAULTS, ...kept }),
    ...content,
  } as Partial<ResourceState>;

  const problems: string[] = [];
  if (!after.type) problems.push('type : obligatoire');
  if (!existing && !after.titre) problems.push('titre : obligatoire pour créer une ressource');
  const ownRid = existing && ridOf(baseId, existing.oid);
  for (const [index, { rid: target }] of (after.relations ?? []).entries()) {
    if (target === ownRid)
      problems.push(`relations[${index}] : une ressource ne peut être en relation avec elle-même`);
  }
  if (problems.length > 0) return new InvalidInputError(problems);

  if (existing) {
    const facts = factsOf(existing);
    const changed = (key: 'authors' | 'contributors' | 'readerGroups' | 'authorGroups') =>
      posted.has(key) && !isDeepStrictEqual(after[key], before?.[key]);
    const authorsChange = changed('authors') || changed('contributors');
    const groupsChange = changed('readerGroups') || changed('authorGroups');
    if (authorsChange && !canChangeAuthors(subject, facts))
      return new ForbiddenError('Seuls les auteurs peuvent modifier les auteurs et contributeurs');
    if (groupsChange && !canChangeGroups(subject, facts))
      return new ForbiddenError('Seuls les auteurs peuvent modifier les groupes');
  }
  return { request, before, after };
}

/** The pids and group names a decided save writes, each once: what the names are read for. */
export function namesToResolve({ after }: SaveDecision): { pids: string[]; groupNames: string[] } {
  return {
    pids: [
      ...new Set([...(after.authors ?? []), ...(after.contributors ?? []), ...(after.auteursParents ?? [])]),
    ],
    groupNames: [...new Set([...(after.readerGroups ?? []), ...(after.authorGroups ?? [])])],
  };
}

// ---------------------------------------------------------------------------------------------
// Planning: what to write

/** The persons and groups found for `namesToResolve`; a name missing here names nothing. */
export interface ResolvedNames {
  /** pid → person oid. */
  persons: ReadonlyMap<string, number>;
  /** Group name key (`groupNameKey`) → the group, with its name as stored. */
  groups: ReadonlyMap<string, { oid: number; nom: string }>;
}

/** What a plan may not decide by itself: the time of the save and fresh read keys. */
export interface SaveFresh {
  now: Date;
  newReadKey: () => string;
}

/** The content columns of the row (both a creation and an update write all of them). */
export type ResourceScalars = ReturnType<typeof scalarsOf>;

/** The multi-valued fields as written (unknown persons and groups left out). */
export interface WrittenNames {
  authors: string[];
  contributors: string[];
  auteursParents: string[];
  readerGroups: string[];
  authorGroups: string[];
}

interface PlanCommon {
  /** Warnings of the body, then one per unknown person or group, in the order of the fields. */
  warnings: string[];
  scalars: ResourceScalars;
  /** The multi-valued fields, replacing the resource's own (`writeLinks` deduplicates them). */
  links: ResourceLinks;
  /** What a clash on the origin pair answers (another resource holds it). */
  conflictMessage: string;
}

export interface CreationPlan extends PlanCommon {
  kind: 'create';
  row: ResourceScalars & { dateCreation: Date; origine: string; idOrigine: string; cle: string | null };
  /**
   * No origin was posted: the resource is its own origin (baseId, oid), so `row.idOrigine` is a
   * unique placeholder until the oid exists.
   */
  ownOrigin: boolean;
  /** The audited state without its origin pair, which may wait for the oid. */
  auditedContent: Record<string, unknown>;
}

export interface UpdatePlan extends PlanCommon {
  kind: 'update';
  oid: number;
  /**
   * `dateMiseAJour` of the state this plan was decided on: the update is written only while the row
   * still has it (every service save moves it), so a save never writes over one made meanwhile.
   */
  decidedOn: Date;
  row: ResourceScalars & {
    origine: string;
    idOrigine: string;
    cle: string | null;
    version: number;
    inc: number;
    archiveOid: number | null;
  };
  /** The previous state to archive (a version trigger changed); `row.archiveOid` then names the archive. */
  archive: { version: number; snapshot: StoredState } | null;
  /** A text changed: the full-text words are rewritten. */
  rewriteWords: boolean;
  /** The multi-valued fields that changed, the only ones rewritten (see `changedLinks`). */
  changedLinks: Partial<ResourceLinks>;
  /** The tree's children before, so that only newly linked peers are told. */
  previousEnfants: unknown;
  /** The audit entry's changes; null when the save changes nothing (no entry). */
  auditChanges: FieldChanges | null;
}

export type SavePlan = CreationPlan | UpdatePlan;

/** A resource's stored columns that its caller writes (`storedColumns`). */
export type StoredColumns = {
  [N in Exclude<CallerField, 'parametres' | 'enfants'>]: FieldValue<N>;
} & { parametres: Prisma.InputJsonValue; enfants: unknown[] | null };

type CallerField = {
  [N in ResourceFieldName]: (typeof RESOURCE_FIELDS)[N]['writer'] extends 'caller' ? N : never;
}[ResourceFieldName];

/** The caller's fields that have a default (`CONTENT_DEFAULTS`). */
type DefaultedField = {
  [N in CallerField]: (typeof RESOURCE_FIELDS)[N] extends { default: unknown } ? N : never;
}[CallerField];

/**
 * A resource's stored columns from its fields, the catalogue's defaults for what they leave out (null
 * where there is none): one rule for every writer (a save here, an import in
 * src/transfer/import-rows.ts).
 */
export function storedColumns(fields: Partial<Record<CallerField, unknown>>): StoredColumns {
  const columns: Record<string, unknown> = {};
  for (const name of CALLER_FIELDS) columns[name] = fields[name] ?? defaultOf(name) ?? null;
  return columns as StoredColumns;
}

function scalarsOf(after: Partial<ResourceState>, now: Date) {
  const { enfants, ...columns } = storedColumns(after);
  return {
    ...columns,
    enfants: enfants as unknown as Prisma.InputJsonValue,
    dateMiseAJour: now,
  };
}

/** Oids of the known pids, in order, and those pids; a warning per unknown one. */
function personsOf(pids: string[], label: string, persons: ResolvedNames['persons'], warnings: string[]) {
  for (const pid of pids) if (!persons.has(pid)) warnings.push(`${label} ${pid} inconnu, ignoré`);
  const known = pids.filter((pid) => persons.has(pid));
  return { oids: known.map((pid) => persons.get(pid)!), names: known };
}

/** Oids of the existing groups, in order, and their names as stored; a warning per unknown one. */
function groupsOf(names: string[], groups: ResolvedNames['groups'], warnings: string[]) {
  for (const nom of names)
    if (!groups.has(groupNameKey(nom))) warnings.push(`Groupe ${nom} inexistant, ignoré`);
  const found = names.flatMap((nom) =>
    groups.has(groupNameKey(nom)) ? [groups.get(groupNameKey(nom))!] : [],
  );
  return { oids: found.map((group) => group.oid), names: found.map((group) => group.nom) };
}

/** What the audit entry says the resource holds: its content, with the names and links as written. */
function auditedContentOf(scalars: ResourceScalars, written: WrittenNames, links: ResourceLinks) {
  const { dateMiseAJour: _m, ...auditedScalars } = scalars;
  return {
    ...auditedScalars,
    ...written,
    categories: links.categories,
    niveaux: links.niveaux,
    typePedagogiques: links.typePedagogiques,
    typeDocumentaires: links.typeDocumentaires,
    relations: links.relations,
  };
}

type AuditedContent = ReturnType<typeof auditedContentOf>;

/**
 * A creation: its origin the posted one, or its own (a placeholder until its oid exists), and a
 * fresh read key unless it is public and published.
 */
function planCreation(
  { request, after }: SaveDecision,
  common: PlanCommon,
  auditedContent: AuditedContent,
  publicNow: boolean,
  fresh: SaveFresh,
): CreationPlan {
  return {
    kind: 'create',
    ...common,
    row: {
      ...common.scalars,
      dateCreation: fresh.now,
      origine: after.origine ?? request.baseId,
      idOrigine: after.idOrigine ?? `pending-${fresh.newReadKey()}`,
      cle: publicNow ? null : fresh.newReadKey(),
    },
    ownOrigin: after.origine === undefined,
    auditedContent,
  };
}

/**
 * An update: the version bumped (and the previous state archived) when a version trigger changed,
 * `inc` when that or a text changed; the read key kept, made or dropped; the links and audit changes.
 */
function planUpdate(
  { request, before, after }: SaveDecision,
  existing: FullResource,
  common: PlanCommon,
  auditedContent: AuditedContent,
  publicNow: boolean,
  fresh: SaveFresh,
): UpdatePlan {
  const versionBump = VERSION_TRIGGERS.some((key) => !sameNormalised(after[key], before?.[key]));
  const textChanged = INC_TRIGGERS.some((key) => after[key] !== before?.[key]);
  const origine = after.origine ?? existing.origine;
  const idOrigine = after.idOrigine ?? existing.idOrigine;
  const changes = changedFields(
    { ...before, parametres: before?.parametres ?? {}, enfants: before?.enfants ?? null },
    { origine, idOrigine, ...auditedContent },
    sameNormalised,
  );
  return {
    kind: 'update',
    ...common,
    oid: existing.oid,
    decidedOn: existing.dateMiseAJour,
    row: {
      ...common.scalars,
      origine,
      idOrigine,
      cle: publicNow ? null : (existing.cle ?? fresh.newReadKey()),
      version: existing.version + (versionBump ? 1 : 0),
      inc: existing.inc + (versionBump || textChanged ? 1 : 0),
      archiveOid: existing.archiveOid,
    },
    archive: versionBump
      ? { version: existing.version, snapshot: storedState(existing, request.baseId) }
      : null,
    rewriteWords: textChanged,
    changedLinks: changedLinks(existing, common.links),
    previousEnfants: before?.enfants,
    auditChanges: Object.keys(changes).length > 0 ? changes : null,
  };
}

/**
 * The writes of a decided save: names resolved to ids (unknown ones left out, with a warning), a
 * new resource without known authors given to its creator, the row, the archive and version of an
 * update, the read key (none while public and published), and the audit entry.
 */
export function planSave(decision: SaveDecision, resolved: ResolvedNames, fresh: SaveFresh): SavePlan {
  const { request, after } = decision;
  const { existing, subject } = request;
  const warnings = [...request.input.warnings];

  const authors = personsOf(after.authors ?? [], 'Auteur', resolved.persons, warnings);
  const contributors = personsOf(after.contributors ?? [], 'Contributeur', resolved.persons, warnings);
  const parentAuthors = personsOf(after.auteursParents ?? [], 'Auteur parent', resolved.persons, warnings);
  const readerGroups = groupsOf(after.readerGroups ?? [], resolved.groups, warnings);
  const authorGroups = groupsOf(after.authorGroups ?? [], resolved.groups, warnings);
  const written: WrittenNames = {
    authors: authors.names,
    contributors: contributors.names,
    auteursParents: parentAuthors.names,
    readerGroups: readerGroups.names,
    authorGroups: authorGroups.names,
  };
  const links: ResourceLinks = {
    authorOids: authors.oids,
    contributorOids: contributors.oids,
    parentAuthorOids: parentAuthors.oids,
    readerGroupOids: readerGroups.oids,
    authorGroupOids: authorGroups.oids,
    categories: after.categories ?? [],
    niveaux: after.niveaux ?? [],
    typePedagogiques: after.typePedagogiques ?? [],
    typeDocumentaires: after.typeDocumentaires ?? [],
    relations: after.relations ?? [],
  };
  const creator = subject.viewer.person;
  if (!existing && links.authorOids.length === 0 && creator) {
    links.authorOids = [creator.oid];
    written.authors = [creator.pid];
  }

  const scalars = scalarsOf(after, fresh.now);
  const publicNow = isPublicAndPublished({ publie: scalars.publie, restriction: scalars.restriction });
  const auditedContent = auditedContentOf(scalars, written, links);
  const common: PlanCommon = {
    warnings,
    scalars,
    links,
    conflictMessage: `Une ressource ${after.origine}/${after.idOrigine} existe déjà`,
  };
  return existing
    ? planUpdate(decision, existing, common, auditedContent, publicNow, fresh)
    : planCreation(decision, common, auditedContent, publicNow, fresh);
}

/** The audit entry's changes of a creation, once its origin pair is known. */
export function creationChanges(plan: CreationPlan, origine: string, idOrigine: string): FieldChanges {
  return stateAs('after', { origine, idOrigine, ...plan.auditedContent });
}
