/**
 * The Ref: the short form of a resource that lists, trees and peers exchange. Its own module so
 * that peers can speak of it without importing the GraphQL schema (an import circle through the
 * resources service and the outbox).
 */
import { isPublicAndPublished } from './resources.policy.ts';
import { ridOf } from './resources.repository.ts';

export interface RefShape {
  aliasOf: string;
  titre: string;
  resume: string;
  description: string;
  commentaires: string;
  type: string;
  categories: number[];
  public: boolean;
  cle: string | null;
  enfants: unknown;
  parametres: unknown;
  droits: string;
}

/** What a Ref is made from: a resource document or a stored resource. */
export interface RefSource {
  oid: number;
  aliasOf: string | null;
  titre: string;
  resume: string;
  description: string;
  commentaires: string;
  type: string;
  cle: string | null;
  enfants: unknown;
  parametres: unknown;
  facts: { publie: boolean; restriction: number };
}

/**
 * The Ref of a resource, without rights (they belong to a viewer). The one place its rules live:
 * an alias points at its source, a read key only on what is not public, children only for a tree,
 * parameters only for a sequence model; what does not apply is null.
 */
export function refFields(source: RefSource, categories: number[], baseId: string): Omit<RefShape, 'droits'> {
  const isPublic = isPublicAndPublished(source.facts);
  return {
    aliasOf: source.aliasOf ?? ridOf(baseId, source.oid),
    titre: source.titre,
    resume: source.resume,
    description: source.description,
    commentaires: source.commentaires,
    type: source.type,
    categories,
    public: isPublic,
    cle: isPublic ? null : source.cle,
    enfants: source.type === 'arbre' ? (source.enfants ?? []) : null,
    parametres: source.type === 'sequenceModele' ? source.parametres : null,
  };
}
