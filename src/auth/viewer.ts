/**
 * Who is calling. Resolved once per request by `resolveViewer` and read by every permission check;
 * nothing downstream reads headers or the session itself.
 */
import type { Permission } from '../permissions.ts';

export interface ViewerPerson {
  oid: number;
  pid: string;
  nom: string;
  prenom: string;
  roles: string[];
  /** The groups the person belongs to or manages: they open group-restricted resources. */
  groupOids: ReadonlySet<number>;
}

export interface Viewer {
  /** `token`: an `X-ApiToken` caller without a session person. */
  kind: 'anonymous' | 'person' | 'token';
  person: ViewerPerson | null;
  /** Read, update and delete anything: a valid API token, or a role granting `allRights`. */
  allRights: boolean;
  permissions: ReadonlySet<Permission>;
  /** baseId of the lab the session person logged in through, if any. */
  labBaseId: string | null;
}

export const anonymousViewer: Viewer = Object.freeze({
  kind: 'anonymous',
  person: null,
  allRights: false,
  permissions: new Set<Permission>(),
  labBaseId: null,
});

/**
 * An operator acting outside any request (the command-line tool, the service's own jobs): all
 * rights, and no person.
 */
export const operatorViewer: Viewer = Object.freeze({ ...anonymousViewer, kind: 'token', allRights: true });

/** Generic permission check: all rights imply every permission. */
export function hasPermission(viewer: Viewer, permission: Permission): boolean {
  return viewer.allRights || viewer.permissions.has(permission);
}
