/**
 * Who may do what with a group (API document, "States and transitions"). Services call these
 * after loading the state they depend on; nothing else decides.
 */
import { hasPermission, type Viewer } from '../../auth/viewer.ts';

export interface GroupAccessState {
  ouvert: boolean;
  public: boolean;
  isManager: boolean;
  isMember: boolean;
}

/** Creating needs a person (who becomes the manager) holding `createGroupe`. */
export function canCreateGroup(viewer: Viewer): boolean {
  return viewer.person !== null && hasPermission(viewer, 'createGroupe');
}

/** Updating and deleting: the group's managers, and all-rights callers (administrators, tokens). */
export function canManageGroup(viewer: Viewer, state: Pick<GroupAccessState, 'isManager'>): boolean {
  return state.isManager || viewer.allRights;
}

/** Joining: the group is open, or the caller already belongs to it or manages it. */
export function canJoinGroup(state: GroupAccessState): boolean {
  return state.ouvert || state.isMember || state.isManager;
}

/** Following: the group is public, or the caller manages it. */
export function canFollowGroup(state: GroupAccessState): boolean {
  return state.public || state.isManager;
}
