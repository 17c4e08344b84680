/**
 * Resource operations: identification, reading (with the public and anonymous rules), the legacy
 * save (create, overwrite or merge), deletion and relations. Every write runs in one transaction;
 * a failed write changes nothing.
 */
import { isDeepStrictEqual } from 'node:util';
import { type Context, memo } from '../../context.ts';
import { db, type Prisma, type Transaction } from '../../db/client.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import { deniedError, ForbiddenError, InvalidInputError } from '../../errors.ts';
import { parseId } from '../../lib/integers.ts';
import { auditActor, auditEntryData, changedFields, recordAudit, stateAs } from '../audit/audit.service.ts';
import { groupNameKey } from '../groups/groups.service.ts';
import { enqueueChangeNotifications } from '../peers/outbox.ts';
import { type DocumentKey, loadDocument, type ResourceDocument } from './resource-documents.ts';
import { parseRelationsInput, parseResourceInput, type ResourceFields } from './resource-input.ts';
import { ResourceConflictError, ResourceNotFoundError } from './resources.errors.ts';
import {
  canChangeAuthors,
  canChangeGroups,
  canCreate,
  canDelete,
  canFork,
  canRead,
  canUpdate,
  isPublicAndPublished,
  type RightsSubject,
} from './resources.policy.ts';
import {
  type FullResource,
  factsOf,
  fullInclude,
  type LegacyResource,
  localOid,
  newReadKey,
  type ResourceLinks,
  ridOf,
  toLegacy,
  writeLinks,
  writeWords,
} from './resources.repository.ts';
import { DEFAULT_LANGUAGE } from './vocabulary.ts';

type Where = Prisma.ResourceWhereUniqueInput;

// ---------------------------------------------------------------------------------------------
// Who is asking

const NO_GROUPS: ReadonlySet<number> = new Set();

/** Resources this request was allowed to read through their read key. */
const readByKey = (context: Context) => memo(context, 'resources:readByKey', () => new Set<number>());

export function rightsSubject(context: Context, resourceOid?: number): RightsSubject {
  return {
    viewer: context.viewer,
    // Loaded with the caller (src/auth/person-facts.ts).
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
// Saving

export interface SaveResult {
  oid: number;
  rid: string;
  warnings: string[];
  created: boolean;
}

/** The state a save writes: scalars plus the multi-valued fields, in legacy names. */
type ResourceState = Omit<
  LegacyResource,
  'oid' | 'rid' | 'cle' | 'dateCreation' | 'dateMiseAJour' | 'version' | 'inc' | 'archiveOid'
>;

const CONTENT_DEFAULTS = {
  titre: '',
  resume: '',
  description: '',
  commentaires: '',
  parametres: {},
  niveaux: [],
  categories: [],
  typePedagogiques: [],
  typeDocumentaires: [],
  relations: [],
  langue: DEFAULT_LANGUAGE,
  publie: false,
  restriction: 0,
  indexable: true,
} satisfies Partial<ResourceState>;

/** Changing one of these archives the previous state and bumps the version. */
const VERSION_TRIGGERS = [
  'origine',
  'idOrigine',
  'parametres',
  'enfants',
  'auteurs',
  'contributeurs',
] as const;
/** Changing one of these bumps the minor revision `inc` only. */
const INC_TRIGGERS = ['titre', 'resume', 'description', 'commentaires'] as const;

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

/** Oids of the known pids, in order; `known` receives those pids (what is written, for the audit). */
async function personOids(
  pids: string[],
  label: string,
  warnings: string[],
  known: string[] = [],
): Promise<number[]> {
  if (pids.length === 0) return [];
  const rows = await db.person.findMany({ where: { pid: { in: pids } }, select: { oid: true, pid: true } });
  const byPid = new Map(rows.map((row) => [row.pid, row.oid]));
  for (const pid of pids) if (!byPid.has(pid)) warnings.push(`${label} ${pid} inconnu, ignoré`);
  known.push(...pids.filter((pid) => byPid.has(pid)));
  return pids.flatMap((pid) => (byPid.has(pid) ? [byPid.get(pid)!] : []));
}

/** Oids of the existing groups, in order; `known` receives their names as stored. */
async function groupOids(names: string[], warnings: string[], known: string[] = []): Promise<number[]> {
  if (names.length === 0) return [];
  const rows = await db.group.findMany({
    where: { nomKey: { in: names.map(groupNameKey) } },
    select: { oid: true, nomKey: true, nom: true },
  });
  const byKey = new Map(rows.map((row) => [row.nomKey, row]));
  for (const nom of names)
    if (!byKey.has(groupNameKey(nom))) warnings.push(`Groupe ${nom} inexistant, ignoré`);
  const found = names.flatMap((nom) => (byKey.has(groupNameKey(nom)) ? [byKey.get(groupNameKey(nom))!] : []));
  known.push(...found.map((row) => row.nom));
  return found.map((row) => row.oid);
}

/**
 * The legacy save. With `merge` (or when neither `titre` nor `categories` is posted) the posted
 * fields are merged into the existing resource; otherwise they replace its content, fields not
 * posted returning to their defaults; ownership and sharing (authors, contributors, groups) and
 * the alias link are kept unless posted. A designated resource that does not exist is created.
 */
export async function saveResource(
  context: Context,
  body: unknown,
  merge: boolean,
  options: { forkingAlias?: boolean } = {},
): Promise<SaveResult> {
  const { fields, posted, warnings } = parseResourceInput(body);
  const existing = await designated(context, fields);
  const mergeMode = merge || (!posted.has('titre') && !posted.has('categories'));
  const subject = rightsSubject(context, existing?.oid);
  const { baseId } = context.config;

  let before: ResourceState | null = null;
  if (existing) {
    const facts = factsOf(existing);
    const allowed = options.forkingAlias ? canFork(subject, facts) : canUpdate(subject, facts);
    if (!allowed) throw canRead(subject, facts) ? new ForbiddenError() : denied(context);
    const {
      oid: _o,
      rid: _r,
      cle: _c,
      dateCreation: _d,
      dateMiseAJour: _m,
      version: _v,
      inc: _i,
      archiveOid: _a,
      ...state
    } = toLegacy(existing, baseId);
    before = state;
  } else if (!canCreate(context.viewer)) {
    throw denied(context);
  }

  const content = Object.fromEntries(Object.entries(fields).filter(([key]) => !['oid', 'rid'].includes(key)));
  const kept = before && {
    origine: before.origine,
    idOrigine: before.idOrigine,
    aliasOf: before.aliasOf,
    type: before.type,
    auteurs: before.auteurs,
    auteursParents: before.auteursParents,
    contributeurs: before.contributeurs,
    groupes: before.groupes,
    groupesAuteurs: before.groupesAuteurs,
  };
  const after = {
    ...(before && mergeMode ? before : { ...CONTENT_DEFAULTS, ...kept }),
    ...content,
  } as Partial<ResourceState>;

  const problems: string[] = [];
  if (!after.type) problems.push('type : obligatoire');
  if (!existing && !after.titre) problems.push('titre : obligatoire pour créer une ressource');
  const ownRid = existing && ridOf(baseId, existing.oid);
  for (const [index, [, target]] of (after.relations ?? []).entries()) {
    if (target === ownRid)
      problems.push(`relations[${index}] : une ressource ne peut être en relation avec elle-même`);
  }
  if (problems.length > 0) throw new InvalidInputError(problems);

  if (existing) {
    const facts = factsOf(existing);
    const authorsChange = ['auteurs', 'contributeurs'].some(
      (key) => posted.has(key) && !isDeepStrictEqual(after[key as 'auteurs'], before?.[key as 'auteurs']),
    );
    const groupsChange = ['groupes', 'groupesAuteurs'].some(
      (key) => posted.has(key) && !isDeepStrictEqual(after[key as 'groupes'], before?.[key as 'groupes']),
    );
    if (authorsChange && !canChangeAuthors(subject, facts))
      throw new ForbiddenError('Seuls les auteurs peuvent modifier les auteurs et contributeurs');
    if (groupsChange && !canChangeGroups(subject, facts))
      throw new ForbiddenError('Seuls les auteurs peuvent modifier les groupes');
  }

  // What is written of the multi-valued fields (unknown persons and groups are left out).
  const written = {
    auteurs: [] as string[],
    contributeurs: [] as string[],
    auteursParents: [] as string[],
    groupes: [] as string[],
    groupesAuteurs: [] as string[],
  };
  const links: ResourceLinks = {
    authorOids: await personOids(after.auteurs ?? [], 'Auteur', warnings, written.auteurs),
    contributorOids: await personOids(
      after.contributeurs ?? [],
      'Contributeur',
      warnings,
      written.contributeurs,
    ),
    parentAuthorOids: await personOids(
      after.auteursParents ?? [],
      'Auteur parent',
      warnings,
      written.auteursParents,
    ),
    readerGroupOids: await groupOids(after.groupes ?? [], warnings, written.groupes),
    authorGroupOids: await groupOids(after.groupesAuteurs ?? [], warnings, written.groupesAuteurs),
    categories: after.categories ?? [],
    niveaux: after.niveaux ?? [],
    typePedagogiques: after.typePedagogiques ?? [],
    typeDocumentaires: after.typeDocumentaires ?? [],
    relations: after.relations ?? [],
  };
  // A new resource without (known) authors belongs to its creator.
  if (!existing && links.authorOids.length === 0 && context.viewer.person) {
    links.authorOids = [context.viewer.person.oid];
    written.auteurs = [context.viewer.person.pid];
  }

  const now = new Date();
  const publicNow = isPublicAndPublished({
    publie: after.publie ?? false,
    restriction: after.restriction ?? 0,
  });
  const scalars = {
    titre: after.titre ?? '',
    resume: after.resume ?? '',
    description: after.description ?? '',
    commentaires: after.commentaires ?? '',
    type: after.type!,
    langue: after.langue ?? DEFAULT_LANGUAGE,
    publie: after.publie ?? false,
    restriction: after.restriction ?? 0,
    indexable: after.indexable ?? true,
    parametres: (after.parametres ?? {}) as Prisma.InputJsonValue,
    enfants:
      after.enfants == null
        ? (null as unknown as Prisma.InputJsonValue)
        : (after.enfants as Prisma.InputJsonValue),
    aliasOf: after.aliasOf ?? null,
    dateMiseAJour: now,
  };
  const actor = auditActor(context);
  /** The audited state: what this save writes, in legacy names. */
  const auditedState = (origine: string, idOrigine: string): Record<string, unknown> => {
    const { dateMiseAJour: _m, ...content } = scalars;
    return {
      origine,
      idOrigine,
      ...content,
      ...written,
      categories: links.categories,
      niveaux: links.niveaux,
      typePedagogiques: links.typePedagogiques,
      typeDocumentaires: links.typeDocumentaires,
      relations: links.relations,
    };
  };

  try {
    return await db.$transaction(async (tx) => {
      if (!existing) {
        const created = await tx.resource.create({
          data: {
            ...scalars,
            dateCreation: now,
            // Without an origin, the resource is its own origin: (baseId, oid), set once the oid exists.
            origine: after.origine ?? baseId,
            idOrigine: after.idOrigine ?? `pending-${newReadKey()}`,
            cle: publicNow ? null : newReadKey(),
          },
        });
        if (after.origine === undefined) {
          await tx.resource.update({ where: { oid: created.oid }, data: { idOrigine: String(created.oid) } });
        }
        await writeLinks(tx, created.oid, links);
        await writeWords(tx, created.oid, scalars);
        await enqueueChangeNotifications(tx, context, created.oid, null);
        await recordAudit(tx, actor, {
          action: 'created',
          entityKind: 'resource',
          entityId: created.oid,
          changes: stateAs(
            'after',
            auditedState(after.origine ?? baseId, after.idOrigine ?? String(created.oid)),
          ),
        });
        return { oid: created.oid, rid: ridOf(baseId, created.oid), warnings, created: true };
      }
      const versionBump = VERSION_TRIGGERS.some(
        (key) => !isDeepStrictEqual(normalised(after[key]), normalised(before?.[key])),
      );
      const incBump = versionBump || INC_TRIGGERS.some((key) => after[key] !== before?.[key]);
      let archiveOid = existing.archiveOid;
      if (versionBump) {
        const archive = await tx.resourceArchive.create({
          data: {
            resourceOid: existing.oid,
            version: existing.version,
            snapshot: toLegacy(existing, baseId) as Prisma.InputJsonValue,
          },
        });
        archiveOid = archive.oid;
      }
      await tx.resource.update({
        where: { oid: existing.oid },
        data: {
          ...scalars,
          origine: after.origine ?? existing.origine,
          idOrigine: after.idOrigine ?? existing.idOrigine,
          cle: publicNow ? null : (existing.cle ?? newReadKey()),
          version: existing.version + (versionBump ? 1 : 0),
          inc: existing.inc + (incBump ? 1 : 0),
          archiveOid,
        },
      });
      await writeLinks(tx, existing.oid, links);
      if (INC_TRIGGERS.some((key) => after[key] !== before?.[key]))
        await writeWords(tx, existing.oid, scalars);
      await enqueueChangeNotifications(tx, context, existing.oid, before?.enfants);
      const changes = changedFields(
        { ...before, parametres: before?.parametres ?? {}, enfants: before?.enfants ?? null },
        auditedState(after.origine ?? existing.origine, after.idOrigine ?? existing.idOrigine),
        (a, b) => isDeepStrictEqual(normalised(a), normalised(b)),
      );
      // A save that changes nothing leaves nothing to audit.
      if (Object.keys(changes).length > 0) {
        await recordAudit(tx, actor, {
          action: 'updated',
          entityKind: 'resource',
          entityId: existing.oid,
          changes,
        });
      }
      return { oid: existing.oid, rid: ridOf(baseId, existing.oid), warnings, created: false };
    });
  } catch (error) {
    if (isUniqueViolation(error)) {
      throw new ResourceConflictError(`Une ressource ${after.origine}/${after.idOrigine} existe déjà`);
    }
    throw error;
  }
}

/** `undefined`, `null` and `{}` all mean "no parameters" when comparing versions. */
function normalised(value: unknown): unknown {
  if (value === undefined || value === null) return null;
  if (typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 0) return null;
  return value;
}

// ---------------------------------------------------------------------------------------------
// Relations and deletion

/** Appends relations (`[predicate, rid]` pairs) to a resource the caller may update. */
export async function addRelations(context: Context, body: unknown): Promise<SaveResult> {
  const { ref, fields } = parseRelationsInput(body);
  const id =
    ref !== undefined
      ? identifyAny(context, ref)
      : fields.oid !== undefined
        ? { where: { oid: fields.oid }, label: String(fields.oid), byKey: false }
        : fields.origine !== undefined && fields.idOrigine !== undefined
          ? identifyByPair(context, fields.origine, fields.idOrigine)
          : null;
  if (!id) throw new InvalidInputError('Il faut identifier la ressource : oid, origine et idOrigine, ou ref');
  const existing = await loadFull(id.where);
  if (!existing) throw new ResourceNotFoundError(id.label);
  const current = existing.relations.map((r) => [r.predicate, r.targetRid] as [number, string]);
  return saveResource(
    context,
    { oid: existing.oid, relations: [...current, ...(fields.relations ?? [])] },
    true,
  );
}

/** Deletes a resource the caller may delete; its links and archives go with it. */
export async function deleteResource(
  context: Context,
  id: Identified,
): Promise<{ oid: number; rid: string }> {
  const row = await loadFull(id.where);
  if (!row) throw new ResourceNotFoundError(id.label);
  if (!canDelete(rightsSubject(context, row.oid), factsOf(row))) throw denied(context);
  const { oid: _o, rid: _r, cle: _c, dateMiseAJour: _m, ...state } = toLegacy(row, context.config.baseId);
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
