/**
 * The Ref of a local resource as sent to peer repositories (compatibility notes §4). Unlike the
 * GraphQL `Ref`, it carries no rights string: rights belong to a viewer, and a peer is none.
 */

import { type RefShape, refFields } from '../resources/ref.ts';
import type { FullResource } from '../resources/resources.repository.ts';

/** The GraphQL `Ref` without the viewer's rights; `cle`, `enfants`, `parametres` only where they apply. */
export type PeerRef = Omit<RefShape, 'droits' | 'cle' | 'enfants' | 'parametres'> &
  Partial<Pick<RefShape, 'enfants' | 'parametres'>> & { cle?: string };

export function peerRefOf(resource: FullResource, baseId: string): PeerRef {
  const categories = resource.categories.map((c) => c.categoryId);
  const { cle, enfants, parametres, ...ref } = refFields(
    { ...resource, facts: resource },
    categories,
    baseId,
  );
  // The peer JSON leaves out what does not apply rather than sending null.
  return {
    ...ref,
    ...(cle ? { cle } : {}),
    ...(resource.type === 'arbre' ? { enfants } : {}),
    ...(resource.type === 'sequenceModele' ? { parametres } : {}),
  };
}
