/**
 * Resource operations: identification, reading (with the public and anonymous rules), the save
 * (create, overwrite or merge), deletion and relations. Every write runs in one transaction;
 * a failed write changes nothing.
 */
import { type Context, memo } from '../../context.ts';
import { db, type Prisma, type Transaction } from '../../db/client.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import { DomainError, deniedError, InvalidInputError } from '../../errors.ts';
import { parseId } from '../../lib/integers.ts';
import { type DocumentKey, loadDocument, type ResourceDocument } from '../../read-model/documents.ts';
import { auditActor, auditEntryData, recordAudit, stateAs } from '../audit/audit.service.ts';
import { groupNameKey } from '../groups/groups.service.ts';
import { enqueueChangeNotifications } from '../peers/outbox.ts';
import {
  type ParsedResourceInput,
  parseRelationsInput,
  parseResourceInput,
  type RelationsInput,
  type ResourceFields,
} from './resource-input.ts';
import { ResourceConflictError, ResourceNotFoundError } from './resources.errors.ts';
import { canDelete, canRead, isPublicAndPublished, type RightsSubject } from './resources.policy.ts';
import {
  type FullResource,
  factsOf,
  fullInclude,
  localOid,
  newReadKey,
  ridOf,
  storedState,
  writeLinks,
  writeWords,
} from './resources.repository.ts';
import {
  creationChanges,
  decideSave,
  namesToResolve,
  planSave,
  type ResolvedNames,
  type SavePlan,
} from './save-plan.ts';

type Where = Prisma.ResourceWhereUniqueInput;

// ---------------------------------------------------------------------------------------------
// Who is asking

const NO_GROUPS: ReadonlySet<number> = new Set();

/** Resources this request was allowed to read through their read key. */
const readByKey = (context: Context) => memo(context, 'resources:readByKey', () => new Set<number>());

export function rightsSubject(context: Context, resourceOid?: number): RightsSubject {
  return {
    viewer: context.viewer,
    // Loaded with the caller (src/read-model/person-facts.ts).
    groupOids: context.viewer.person?.groupOids ?? NO_GROUPS,
    hasReadKey: resourceOid !== undefined && readByKey(context).has(resourceOid),
  };
}

function denied(context: Context): Error {
  return deniedError(context.viewer);
}

// ---------------------------------------------------------------------------------------------
// Identification

export interface Identified {
  where: DocumentKey;
  /** The id as the caller wrote it, for messages and `deleted`. */
  label: string;
  byKey: boolean;
}

/**
 * `:origine/:idOrigine` of the legacy routes: an origin pair, a local rid (`<own baseId>/<oid>`),
 * or a read key (`cle/<key>`).
 */
/** No resource has this oid: what an id that names nothing is looked up as. */
const NO_OID = -1;

export function identifyByPair(context: Context, origine: string, idOrigine: string): Identified {
  const label = `${origine}/${idOrigine}`;
  if (origine === 'cle') return { where: { cle: idOrigine }, label, byKey: true };
  if (origine === context.config.baseId) {
    return { where: { oid: parseId(idOrigine) ?? NO_OID }, label, byKey: false };
  }
  return { where: { origine_idOrigine: { origine, idOrigine } }, label, byKey: false };
}

/** Any id a client may hold: an oid, a rid, an origin pair, or `cle/<key>`. */
export function identifyAny(context: Context, id: string): Identified {
  if (/^\d+$/.test(id)) return { where: { oid: parseId(id) ?? NO_OID }, label: id, byKey: false };
  const slash = id.indexOf('/');
  if (slash <= 0 || slash === id.length - 1) return { where: { oid: NO_OID }, label: id, byKey: false };
  return identifyByPair(context, id.slice(0, slash), id.slice(slash + 1));
}

// ---------------------------------------------------------------------------------------------
// Reading

export interface ReadOptions {
  /** `/api/public/…`: public and published resources only, whatever the caller. */
  publicOnly?: boolean;
}

/**
 * Reads a resource the caller may read, whole, in one statement. Anonymous callers (and public
 * routes) see only public and published resources, and anything else is "not found" for them, as
 * the public routes answer.
 */
export async function readResource(
  context: Context,
  id: Identified,
  options: ReadOptions = {},
): Promise<ResourceDocument> {
  const document = await loadDocument(id.where, context.config.baseId);
  if (!document) throw new ResourceNotFoundError(id.label);
  if (options.publicOnly || context.viewer.kind === 'anonymous') {
    if (!isPublicAndPublished(document.facts)) throw new ResourceNotFoundError(id.label);
    return document;
  }
  if (id.byKey) readByKey(context).add(document.oid);
  if (!canRead(rightsSubject(context, document.oid), document.facts)) throw denied(context);
  return document;
}

/** The rid of any resource, even a private one (only the identifier is disclosed). */
export async function findRid(context: Context, id: string): Promise<string> {
  if (!id.trim()) throw new InvalidInputError('id manquant');
  const identified = identifyAny(context, id.trim());
  const row = await db.resource.findUnique({ where: identified.where, select: { oid: true } });
  if (!row) throw new ResourceNotFoundError(id);
  return ridOf(context.config.baseId, row.oid);
}

export async function loadFull(where: Where, tx: Transaction | typeof db = db): Promise<FullResource | null> {
  return tx.resource.findUnique({ where, include: fullInclude });
}

// ---------------------------------------------------------------------------------------------
// Saving: read, plan (save-plan.ts), write

export interface SaveResult {
  oid: number;
  rid: string;
  warnings: string[];
  created: boolean;
}

/** Finds the resource a save designates (null: create), or fails on an id that names nothing. */
async function designated(context: Context, fields: ResourceFields): Promise<FullResource | null> {
  if (fields.oid !== undefined) {
    const row = await loadFull({ oid: fields.oid });
    if (!row) throw new ResourceNotFoundError(fields.oid);
    return row;
  }
  if (fields.rid !== undefined) {
    if (!fields.rid.startsWith(`${context.config.baseId}/`)) {
      throw new InvalidInputError(`rid : ${fields.rid} désigne une ressource d’une autre sésathèque`);
    }
    const row = await loadFull({ oid: localOid(context.config.baseId, fields.rid) ?? NO_OID });
    if (!row) throw new ResourceNotFoundError(fields.rid);
    return row;
  }
  if ((fields.origine === undefined) !== (fields.idOrigine === undefined)) {
    throw new InvalidInputError('origine et idOrigine vont ensemble : il faut les deux ou aucun');
  }
  if (fields.origine === undefined || fields.idOrigine === undefined) return null;
  const id = identifyByPair(context, fields.origine, fields.idOrigine);
  if (id.byKey) throw new InvalidInputError('origine : « cle » est réservé aux clés de lecture');
  const row = await loadFull(id.where);
  // A rid-shaped pair must name an existing resource; a foreign pair may create one.
  if (!row && fields.origine === context.config.baseId) throw new ResourceNotFoundError(id.label);
  return row;
}

/** The persons and groups a save names: one statement for the pids, one for the groups. */
async function resolveNames(names: { pids: string[]; groupNames: string[] }): Promise<ResolvedNames> {
  const persons =
    names.pids.length === 0
      ? []
      : await db.person.findMany({ where: { pid: { in: names.pids } }, select: { oid: true, pid: true } });
  const groups =
    names.groupNames.length === 0
      ? []
      : await db.group.findMany({
          where: { nomKey: { in: names.groupNames.map(groupNameKey) } },
          select: { oid: true, nomKey: true, nom: true },
        });
  return {
    persons: new Map(persons.map((row) => [row.pid, row.oid])),
    groups: new Map(groups.map((row) => [row.nomKey, { oid: row.oid, nom: row.nom }])),
  };
}

export interface SaveOptions {
  /** `forkAlias`: the right to fork instead of the right to update. */
  forkingAlias?: boolean;
  /** Properties the client sent that no field holds (REST): each comes back as a warning. */
  ignoredProperties?: readonly string[];
}

/**
 * The save. With `merge` (or when neither `titre` nor `categories` is given) the given fields are
 * merged into the existing resource; otherwise they replace its content, fields not given
 * returning to their defaults; ownership and sharing (authors, contributors, groups) and the alias
 * link are kept unless given. A designated resource that does not exist is created.
 */
export async function saveResource(
  context: Context,
  fields: unknown,
  merge: boolean,
  options: SaveOptions = {},
): Promise<SaveResult> {
  const input = parseResourceInput(fields, options.ignoredProperties);
  return onFreshState(async () =>
    saveInput(context, input, await designated(context, input.fields), merge, options),
  );
}

/** A save decided on a state that another save changed before it was written (see `decidedOn`). */
class StaleSave extends Error {}

/** How many times a save is decided again on a state changed meanwhile before it gives up. */
const SAVE_ATTEMPTS = 5;

/**
 * Runs `save` (which reads the resource, decides and writes) again on the new state when another
 * save changed the resource between its read and its write, so that neither is lost: each decides
 * on what the other wrote (rights included). Under more contention than that, a conflict.
 */
export async function onFreshState<T>(save: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await save();
    } catch (error) {
      if (!(error instanceof StaleSave)) throw error;
      if (attempt === SAVE_ATTEMPTS) {
        throw new ResourceConflictError('La ressource a été modifiée pendant l’enregistrement, réessayez');
      }
    }
  }
}

/**
 * `saveResource` over a resource the caller has just read whole (`existing`), which `fields` then
 * do not designate again: one read fewer for addRelations and forkAlias. The caller reads within
 * `onFreshState`, so that a save changed meanwhile is read and decided again.
 */
export async function saveOver(
  context: Context,
  existing: FullResource,
  fields: unknown,
  merge: boolean,
  options: SaveOptions = {},
): Promise<SaveResult> {
  return saveInput(context, parseResourceInput(fields, options.ignoredProperties), existing, merge, options);
}

async function saveInput(
  context: Context,
  input: ParsedResourceInput,
  existing: FullResource | null,
  merge: boolean,
  options: SaveOptions,
): Promise<SaveResult> {
  const decision = decideSave({
    input,
    merge,
    existing,
    forkingAlias: options.forkingAlias ?? false,
    subject: rightsSubject(context, existing?.oid),
    baseId: context.config.baseId,
  });
  if (decision instanceof DomainError) throw decision;
  const resolved = await resolveNames(namesToResolve(decision));
  return writeSave(context, planSave(decision, resolved, { now: new Date(), newReadKey }));
}

/** Writes a plan in one transaction: all of it, or nothing. */
async function writeSave(context: Context, plan: SavePlan): Promise<SaveResult> {
  const { baseId } = context.config;
  const actor = auditActor(context);
  try {
    return await db.$transaction(async (tx) => {
      if (plan.kind === 'create') {
        const created = await tx.resource.create({ data: plan.row });
        const idOrigine = plan.ownOrigin ? String(created.oid) : plan.row.idOrigine;
        if (plan.ownOrigin) await tx.resource.update({ where: { oid: created.oid }, data: { idOrigine } });
        await writeLinks(tx, created.oid, plan.links);
        await writeWords(tx, created.oid, plan.scalars);
        await enqueueChangeNotifications(tx, context, created.oid, null);
        await recordAudit(tx, actor, {
          action: 'created',
          entityKind: 'resource',
          entityId: created.oid,
          changes: creationChanges(plan, plan.row.origine, idOrigine),
        });
        return { oid: created.oid, rid: ridOf(baseId, created.oid), warnings: plan.warnings, created: true };
      }
      const archive =
        plan.archive &&
        (await tx.resourceArchive.create({
          data: {
            resourceOid: plan.oid,
            version: plan.archive.version,
            snapshot: plan.archive.snapshot as unknown as Prisma.InputJsonValue,
          },
        }));
      const { count } = await tx.resource.updateMany({
        where: { oid: plan.oid, dateMiseAJour: plan.decidedOn },
        data: { ...plan.row, ...(archive ? { archiveOid: archive.oid } : {}) },
      });
      // Changed (or deleted) since it was read: nothing of this transaction is kept.
      if (count === 0) throw new StaleSave();
      await writeLinks(tx, plan.oid, plan.changedLinks);
      if (plan.rewriteWords) await writeWords(tx, plan.oid, plan.scalars);
      await enqueueChangeNotifications(tx, context, plan.oid, plan.previousEnfants);
      if (plan.auditChanges) {
        await recordAudit(tx, actor, {
          action: 'updated',
          entityKind: 'resource',
          entityId: plan.oid,
          changes: plan.auditChanges,
        });
      }
      return { oid: plan.oid, rid: ridOf(baseId, plan.oid), warnings: plan.warnings, created: false };
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw new ResourceConflictError(plan.conflictMessage);
    throw error;
  }
}

// ---------------------------------------------------------------------------------------------
// Relations and deletion

/** Appends relations to a resource the caller may update. */
export async function addRelations(context: Context, input: RelationsInput): Promise<SaveResult> {
  const { ref, fields } = parseRelationsInput(input);
  const id =
    ref !== undefined
      ? identifyAny(context, ref)
      : fields.oid !== undefined
        ? { where: { oid: fields.oid }, label: String(fields.oid), byKey: false }
        : fields.origine !== undefined && fields.idOrigine !== undefined
          ? identifyByPair(context, fields.origine, fields.idOrigine)
          : null;
  if (!id) throw new InvalidInputError('Il faut identifier la ressource : oid, origine et idOrigine, ou ref');
  return onFreshState(async () => {
    const existing = await loadFull(id.where);
    if (!existing) throw new ResourceNotFoundError(id.label);
    const current = existing.relations.map((r) => ({ predicate: r.predicate, rid: r.targetRid }));
    return saveOver(context, existing, { relations: [...current, ...(fields.relations ?? [])] }, true);
  });
}

/** Deletes a resource the caller may delete; its links and archives go with it. */
export async function deleteResource(
  context: Context,
  id: Identified,
): Promise<{ oid: number; rid: string }> {
  const row = await loadFull(id.where);
  if (!row) throw new ResourceNotFoundError(id.label);
  if (!canDelete(rightsSubject(context, row.oid), factsOf(row))) throw denied(context);
  const { oid: _o, rid: _r, cle: _c, dateMiseAJour: _m, ...state } = storedState(row, context.config.baseId);
  await db.$transaction([
    db.resource.delete({ where: { oid: row.oid } }),
    db.auditEntry.create({
      data: auditEntryData(auditActor(context), {
        action: 'deleted',
        entityKind: 'resource',
        entityId: row.oid,
        changes: stateAs('before', state),
      }),
    }),
  ]);
  return { oid: row.oid, rid: ridOf(context.config.baseId, row.oid) };
}
