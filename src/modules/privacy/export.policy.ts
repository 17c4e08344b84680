/** Whose personal data a caller may export. */
import { hasPermission, type Viewer } from '../../auth/viewer.ts';
import { deniedError, ForbiddenError, InvalidInputError } from '../../errors.ts';

/**
 * The pid to export for `viewer`: their own without `pid`; another person's only with
 * `managePersonalData` (a data protection officer's task). The right is checked before the pid is
 * looked up, so that a refused caller cannot learn which pids exist.
 */
export function exportablePid(viewer: Viewer, pid: string | null | undefined): string {
  if (pid === null || pid === undefined) {
    if (viewer.person) return viewer.person.pid;
    if (viewer.kind === 'anonymous') throw deniedError(viewer);
    // An API-token caller is nobody: it has no data of its own, and must name whom it exports.
    throw new ForbiddenError('Un appel par jeton n’a pas de données personnelles : précisez le pid');
  }
  const wanted = pid.trim();
  if (wanted === '') throw new InvalidInputError('pid vide').forOperators('pid: empty');
  if (viewer.person?.pid === wanted || hasPermission(viewer, 'managePersonalData')) return wanted;
  throw deniedError(viewer);
}
