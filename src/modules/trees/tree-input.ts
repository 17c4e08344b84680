/**
 * Validation of the children of a tree (`enfants`). A child is a folder (its own `enfants`) or an
 * item pointing to a resource (`aliasOf`, a rid, possibly of a peer repository); both need a title
 * and a type. Every problem names the child by its position and title, so an editor can find it.
 */
import type { z } from 'zod';
import { RID_PATTERN } from '../resources/vocabulary.ts';

type Issues = Pick<z.core.$RefinementCtx, 'addIssue'>;

function label(child: Record<string, unknown>): string {
  return typeof child.titre === 'string' && child.titre.trim() ? ` (« ${child.titre} »)` : '';
}

function checkChild(child: unknown, path: (string | number)[], issues: Issues): void {
  if (typeof child !== 'object' || child === null || Array.isArray(child)) {
    issues.addIssue({ code: 'custom', path, message: 'un enfant doit être un objet' });
    return;
  }
  const node = child as Record<string, unknown>;
  const problem = (message: string) =>
    issues.addIssue({ code: 'custom', path, message: message + label(node) });
  if (typeof node.titre !== 'string' || !node.titre.trim()) problem('titre obligatoire');
  if (typeof node.type !== 'string' || !node.type.trim()) problem('type obligatoire');
  if (node.aliasOf !== undefined && (typeof node.aliasOf !== 'string' || !RID_PATTERN.test(node.aliasOf))) {
    problem('aliasOf doit être un rid de la forme baseId/oid');
  }
  if (node.enfants !== undefined && !Array.isArray(node.enfants)) {
    problem('enfants doit être une liste');
  } else if (Array.isArray(node.enfants)) {
    node.enfants.forEach((grandChild, index) => {
      checkChild(grandChild, [...path, 'enfants', index], issues);
    });
  } else if (node.aliasOf === undefined) {
    problem('il faut aliasOf (une ressource) ou enfants (un dossier)');
  }
}

/** A zod refinement of `enfants`: reports every invalid child, at any depth. */
export function checkTreeChildren(enfants: unknown[] | null, issues: Issues): void {
  enfants?.forEach((child, index) => {
    checkChild(child, [index], issues);
  });
}
