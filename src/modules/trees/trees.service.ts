/**
 * Trees in jstree format (compatibility notes §7): nodes `{text, icon, a_attr, children}`; a child
 * tree that is not inline (an item pointing to another tree) is loaded lazily from the URL in
 * `data.url`, on the repository that holds it.
 */
import type { Context } from '../../context.ts';
import { InvalidInputError } from '../../errors.ts';
import { ridOf } from '../resources/resources.repository.ts';
import { identifyAny, readResource } from '../resources/resources.service.ts';
import { childrenOf, type TreeChild } from './tree-walk.ts';

export interface JstreeNode {
  text: string;
  icon: string;
  a_attr: Record<string, string>;
  children?: JstreeNode[] | true;
  data?: { url: string };
}

/** The base URL of the repository a rid belongs to (this one when it is unknown). */
function homeOf(context: Context, rid: string): string {
  const baseId = rid.split('/')[0];
  return context.config.peers.find((peer) => peer.baseId === baseId)?.baseUrl ?? context.config.baseUrl;
}

function node(
  context: Context,
  titre: string,
  type: string,
  rid: string | null,
  enfants: unknown,
): JstreeNode {
  const home = rid ? homeOf(context, rid) : context.config.baseUrl;
  const result: JstreeNode = {
    text: titre,
    icon: `${type}JstNode`,
    a_attr: {
      'data-type': type,
      ...(rid ? { 'data-ref': rid, href: `${home}api/public/${rid.split('/')[1]}` } : {}),
    },
  };
  if (Array.isArray(enfants)) {
    result.children = childrenOf(enfants).map((child) => childNode(context, child));
  } else if (type === 'arbre' && rid) {
    result.children = true;
    result.data = { url: `${home}api/jstree?ref=${encodeURIComponent(rid)}&children=1` };
  }
  return result;
}

function childNode(context: Context, child: TreeChild): JstreeNode {
  const aliasOf = typeof child.aliasOf === 'string' ? child.aliasOf : null;
  return node(context, String(child.titre ?? ''), String(child.type ?? ''), aliasOf, child.enfants);
}

/** The tree `ref` (an oid, a rid or `origine/idOrigine`) as jstree nodes, or only its children. */
export async function jstree(context: Context, ref: string, childrenOnly: boolean): Promise<JstreeNode[]> {
  if (!ref.trim()) throw new InvalidInputError('ref manquant');
  const tree = await readResource(context, identifyAny(context, ref.trim()));
  if (tree.type !== 'arbre') throw new InvalidInputError(`La ressource ${ref} n’est pas un arbre`);
  const root = node(
    context,
    tree.titre,
    tree.type,
    ridOf(context.config.baseId, tree.oid),
    tree.enfants ?? [],
  );
  return childrenOnly ? (root.children as JstreeNode[]) : [root];
}
