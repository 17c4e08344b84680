/**
 * Copies and aliases. An alias is a resource of its own that points to its source (`aliasOf`) and
 * carries the caller as author; forking turns an alias into a real copy of its source, keeping the
 * alias oid. Cloning copies a type this repository can edit, and otherwise makes (or reuses) the
 * caller's alias; an alias of a peer's resource is made from its public form, fetched from the peer.
 * All go through `saveResource` (forking through `saveOver`, the alias being read already): same
 * validation, warnings and transaction.
 */
import { fieldsWhere } from '../../catalogue/resource-fields.ts';
import type { Context } from '../../context.ts';
import { db } from '../../db/client.ts';
import { deniedError, ForbiddenError, InvalidInputError } from '../../errors.ts';
import { fetchPeerResource } from '../peers/peer-sources.ts';
import { ResourceNotFoundError } from './resources.errors.ts';
import { canCreate } from './resources.policy.ts';
import { type FullResource, localOid, ridOf, type StoredState, storedState } from './resources.repository.ts';
import {
  loadFull,
  onFreshState,
  readResource,
  type SaveResult,
  saveOver,
  saveResource,
} from './resources.service.ts';
import type { ResourceState } from './save-plan.ts';
import { EDITABLE_TYPES, RELATION_COPY_OF } from './vocabulary.ts';

function requireCreator(context: Context) {
  const person = context.viewer.person;
  if (!person) throw deniedError(context.viewer);
  if (!canCreate(context.viewer)) throw new ForbiddenError();
  return person;
}

/** A readable local resource, whole. */
async function readableSource(context: Context, oid: number): Promise<FullResource> {
  await readResource(context, { where: { oid }, label: String(oid), byKey: false });
  return (await loadFull({ oid }))!;
}

const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/**
 * The scalar fields a copy takes from its source: every one its caller writes but the alias link (a
 * copy says itself what it is an alias of, if anything).
 */
const COPIED_FIELDS = fieldsWhere((field) => field.writer === 'caller').filter((name) => name !== 'aliasOf');

/** A copy's content: its scalar fields, and the multi-valued fields that are content. */
type Content = Partial<
  Omit<ResourceState, 'authors' | 'contributors' | 'readerGroups' | 'authorGroups' | 'aliasOf'>
>;

/**
 * The content of a source (a local resource's, or a peer's), as fields to save: no identity, no
 * ownership, no sharing. Fields the source lacks are left out.
 */
function contentOf(source: Partial<StoredState>): Content {
  const content: Record<string, unknown> = {
    ...Object.fromEntries(COPIED_FIELDS.map((name) => [name, source[name as keyof StoredState]])),
    // A stored resource without children has none (null); a copy leaves the field out.
    enfants: source.enfants ?? undefined,
    niveaux: source.niveaux,
    categories: source.categories,
    typePedagogiques: source.typePedagogiques,
    typeDocumentaires: source.typeDocumentaires,
    relations: source.relations,
    // Whoever wrote the source stays credited.
    auteursParents: [...new Set([...list(source.authors), ...list(source.auteursParents)])],
  };
  return Object.fromEntries(Object.entries(content).filter(([, value]) => value !== undefined)) as Content;
}

/** The rid an alias of `source` points to: the source's own source when it is itself an alias. */
const targetOf = (source: FullResource, baseId: string) => source.aliasOf ?? ridOf(baseId, source.oid);

/** The caller's alias of the resource `aliasOf` (whose content is `content`), made once and reused. */
async function aliasFor(context: Context, aliasOf: string, content: Content): Promise<SaveResult> {
  const person = requireCreator(context);
  const { baseId } = context.config;
  const existing = await db.resource.findFirst({
    where: { aliasOf, authors: { some: { personOid: person.oid } } },
    select: { oid: true },
  });
  if (existing) return { oid: existing.oid, rid: ridOf(baseId, existing.oid), warnings: [], created: false };
  return saveResource(context, { ...content, aliasOf, authors: [person.pid] }, false);
}

const localAlias = (context: Context, source: FullResource) =>
  aliasFor(
    context,
    targetOf(source, context.config.baseId),
    contentOf(storedState(source, context.config.baseId)),
  );

/** `createAlias`: an alias of a resource of this repository or of a peer, authored by the caller. */
export async function createAlias(context: Context, baseId: string, oid: number): Promise<SaveResult> {
  if (baseId === context.config.baseId) return localAlias(context, await readableSource(context, oid));
  const peer = context.config.peers.find((candidate) => candidate.baseId === baseId);
  if (!peer) throw new InvalidInputError(`Sésathèque ${baseId} inconnue sur ${context.config.baseUrl}`);
  requireCreator(context);
  const source = await fetchPeerResource(context, peer, oid);
  const aliasOf = typeof source.aliasOf === 'string' ? source.aliasOf : `${baseId}/${oid}`;
  return aliasFor(context, aliasOf, contentOf(source));
}

/** `clone`: a copy (editable types: title + " (copie)", the caller as author) or the caller's alias. */
export async function cloneResource(context: Context, oid: number): Promise<SaveResult> {
  const source = await readableSource(context, oid);
  if (!EDITABLE_TYPES.has(source.type)) return localAlias(context, source);
  const person = requireCreator(context);
  const { baseId } = context.config;
  const content = contentOf(storedState(source, baseId));
  return saveResource(
    context,
    {
      ...content,
      titre: `${source.titre} (copie)`,
      authors: [person.pid],
      relations: [
        ...(content.relations ?? []),
        { predicate: RELATION_COPY_OF, rid: targetOf(source, baseId) },
      ],
    },
    false,
  );
}

/** `forkAlias`: the alias becomes a real copy of its source, keeping its oid and its authors. */
export function forkAlias(context: Context, oid: number): Promise<SaveResult> {
  return onFreshState(() => forkOnce(context, oid));
}

async function forkOnce(context: Context, oid: number): Promise<SaveResult> {
  const alias = await loadFull({ oid });
  if (!alias) {
    // Let the read rules decide between "not found" and "denied".
    await readResource(context, { where: { oid }, label: String(oid), byKey: false });
  }
  if (!alias!.aliasOf) throw new InvalidInputError(`La ressource ${oid} n’est pas un alias`);
  const { baseId } = context.config;
  if (!alias!.aliasOf.startsWith(`${baseId}/`)) {
    throw new InvalidInputError(
      `La source ${alias!.aliasOf} est dans une autre sésathèque : pas encore pris en charge`,
    );
  }
  const sourceOid = localOid(baseId, alias!.aliasOf);
  if (sourceOid === undefined) throw new ResourceNotFoundError(alias!.aliasOf);
  const source = await readableSource(context, sourceOid);
  const content = contentOf(storedState(source, baseId));
  return saveOver(
    context,
    alias!,
    {
      ...content,
      aliasOf: null,
      relations: [...(content.relations ?? []), { predicate: RELATION_COPY_OF, rid: alias!.aliasOf }],
    },
    false,
    { forkingAlias: true },
  );
}
