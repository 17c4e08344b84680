/** Who may see what of a person. */
import type { Viewer } from '../../auth/viewer.ts';

/** E-mail, roles and group lists are shown to the person themself and to all-rights callers. */
export function canSeePrivateFields(viewer: Viewer, personOid: number): boolean {
  return viewer.allRights || viewer.person?.oid === personOid;
}
