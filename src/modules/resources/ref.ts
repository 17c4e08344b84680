/**
 * The Ref: the short form of a resource that lists, trees and peers exchange. Its own module so
 * that peers can speak of it without importing the GraphQL schema (an import circle through the
 * resources service and the outbox).
 */
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
