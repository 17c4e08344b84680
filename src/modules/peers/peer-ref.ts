/**
 * The Ref of a local resource as sent to peer repositories (compatibility notes §4). Unlike the
 * GraphQL `Ref`, it carries no rights string: rights belong to a viewer, and a peer is none.
 */

import type { RefShape } from '../resources/ref.ts';
import { isPublicAndPublished } from '../resources/resources.policy.ts';
import { type FullResource, ridOf } from '../resources/resources.repository.ts';

/** The GraphQL `Ref` without the viewer's rights; `cle`, `enfants`, `parametres` only where they apply. */
export type PeerRef = Omit<RefShape, 'droits' | 'cle' | 'enfants' | 'parametres'> &
  Partial<Pick<RefShape, 'enfants' | 'parametres'>> & { cle?: string };

export function peerRefOf(resource: FullResource, baseId: string): PeerRef {
  const isPublic = isPublicAndPublished(resource);
  return {
    aliasOf: resource.aliasOf ?? ridOf(baseId, resource.oid),
    titre: resource.titre,
    resume: resource.resume,
    description: resource.description,
    commentaires: resource.commentaires,
    type: resource.type,
    categories: resource.categories.map((c) => c.categoryId),
    public: isPublic,
    ...(!isPublic && resource.cle ? { cle: resource.cle } : {}),
    ...(resource.type === 'arbre' ? { enfants: resource.enfants ?? [] } : {}),
    ...(resource.type === 'sequenceModele' ? { parametres: resource.parametres } : {}),
  };
}
