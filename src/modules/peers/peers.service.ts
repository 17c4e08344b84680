/**
 * The protocol between peer repositories (compatibility notes §7): a peer registers to be told
 * when some of our resources change (`registerListener`), and tells us when one of its resources
 * changed (`externalUpdate`), which we copy into every local tree that contains it.
 */
import { z } from 'zod';
import type { Context } from '../../context.ts';
import { db } from '../../db/client.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import { InvalidInputError } from '../../errors.ts';
import { localOid, ridOf } from '../resources/resources.repository.ts';
import { saveResource } from '../resources/resources.service.ts';
import { RID_PATTERN } from '../resources/vocabulary.ts';
import { descendants, replaceChildren } from '../trees/tree-walk.ts';

function parseOrThrow<T>(schema: z.ZodType<T>, input: unknown): T {
  const result = schema.safeParse(input);
  if (!result.success) {
    throw new InvalidInputError(
      result.error.issues.map((issue) =>
        issue.path.length > 0 ? `${issue.path.join('.')} : ${issue.message}` : issue.message,
      ),
    );
  }
  return result.data;
}

/** A listening request as GraphQL types it (PeerListenerInput). */
export interface ListenerInput {
  action: 'add' | 'remove';
  baseId: string;
  rids: readonly string[];
}

export interface ListenerResult {
  warnings: string[];
}

/** `registerListener`: peer `baseId` starts (add) or stops (remove) listening to local resources. */
export async function registerListener(
  context: Context,
  { action, baseId, rids }: ListenerInput,
): Promise<ListenerResult> {
  if (!baseId) throw new InvalidInputError('baseId : obligatoire');
  const own = context.config.baseId;
  if (!context.config.peers.some((peer) => peer.baseId === baseId)) {
    throw new InvalidInputError(`Sésathèque ${baseId} inconnue sur ${context.config.baseUrl}`);
  }
  const warnings: string[] = [];
  const oids = new Map<number, string>();
  for (const rid of new Set(rids)) {
    const oid = localOid(own, rid);
    if (oid !== undefined) oids.set(oid, rid);
    else warnings.push(`${rid} n’est pas une ressource de la sésathèque ${own}, ignoré`);
  }
  const existing = await db.resource.findMany({
    where: { oid: { in: [...oids.keys()] } },
    select: { oid: true },
  });
  const found = new Set(existing.map((row) => ridOf(own, row.oid)));
  for (const rid of oids.values())
    if (!found.has(rid)) warnings.push(`Ressource ${rid} inexistante, ignorée`);
  if (action === 'remove') {
    await db.peerListener.deleteMany({ where: { baseId, rid: { in: [...found] } } });
    return { warnings };
  }
  await db.$transaction(async (tx) => {
    const already = await tx.peerListener.findMany({
      where: { baseId, rid: { in: [...found] } },
      select: { rid: true },
    });
    const known = new Set(already.map((row) => row.rid));
    await tx.peerListener.createMany({
      data: [...found].filter((rid) => !known.has(rid)).map((rid) => ({ rid, baseId })),
    });
  });
  return { warnings };
}

/** A peer's change as GraphQL types it (ExternalUpdateInput): the Ref is the peer's JSON. */
export interface ExternalUpdateInput {
  ref?: unknown;
  eventId?: string | null;
}

const externalUpdateRules = z.object({
  ref: z.looseObject(
    {
      aliasOf: z
        .string({ error: 'obligatoire' })
        .regex(RID_PATTERN, 'doit être un rid de la forme baseId/oid'),
      titre: z.string({ error: 'obligatoire' }).min(1, 'obligatoire'),
      type: z.string({ error: 'obligatoire' }).min(1, 'obligatoire'),
    },
    { error: 'obligatoire (un Ref)' },
  ),
  // Kept in the inbox to recognise a redelivery: bounded like any stored key.
  eventId: z.string().min(1, 'ne peut pas être vide').max(200, 'au plus 200 caractères').nullish(),
});

export interface ExternalUpdateResult {
  /** rids of the local trees that were changed. */
  updatedTrees: string[];
  /** The event id was seen before: nothing was done. */
  duplicate: boolean;
}

/** Rights are the viewer's, never a peer's: they are not copied into trees. */
const VIEWER_FIELDS = ['droits', '_droits', '$droits'];

/**
 * `externalUpdate`: every local tree containing `ref.aliasOf` gets that child replaced by `ref`.
 * Replacing is idempotent, so a redelivery is harmless; the event id still spares the work and
 * keeps an older redelivered Ref from overwriting a newer one.
 */
export async function externalUpdate(
  context: Context,
  input: ExternalUpdateInput,
): Promise<ExternalUpdateResult> {
  const { ref, eventId } = parseOrThrow(externalUpdateRules, input);
  const sender = ref.aliasOf.split('/')[0]!;
  if (eventId && (await db.inboxEvent.findUnique({ where: { eventId } }))) {
    context.log.info({ eventId, rid: ref.aliasOf }, 'duplicate peer notification ignored');
    return { updatedTrees: [], duplicate: true };
  }
  const replacement = Object.fromEntries(Object.entries(ref).filter(([key]) => !VIEWER_FIELDS.includes(key)));
  // Trees are few next to other resources; their children are JSON, searched here.
  const trees = await db.resource.findMany({
    where: { type: 'arbre' },
    select: { oid: true, enfants: true },
  });
  const containing = trees.filter((tree) =>
    [...descendants(tree.enfants)].some((child) => child.aliasOf === ref.aliasOf),
  );
  const updatedTrees: string[] = [];
  for (const tree of containing) {
    const enfants = replaceChildren(tree.enfants, ref.aliasOf, replacement);
    const saved = await saveResource(context, { oid: tree.oid, enfants }, true);
    updatedTrees.push(saved.rid);
  }
  if (eventId) {
    try {
      await db.inboxEvent.create({ data: { eventId, peerBaseId: sender } });
    } catch (error) {
      // The same event, delivered twice at once: both applied the same idempotent change.
      if (!isUniqueViolation(error)) throw error;
    }
  }
  return { updatedTrees, duplicate: false };
}
