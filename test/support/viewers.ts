/**
 * Viewers and rights facts built in memory, for unit tests of the policy functions: the shapes
 * `resolveViewer` returns (src/auth/authn.ts), without a request.
 */

import { anonymousViewer, type Viewer } from '../../src/auth/viewer.ts';
import type { RightsSubject } from '../../src/modules/resources/resources.policy.ts';
import type { Permission } from '../../src/permissions.ts';
import type { RightsFacts } from '../../src/read-model/documents.ts';

export const anonymous: Viewer = anonymousViewer;

/** An `X-ApiToken` caller: all rights, no person. */
export const tokenCaller: Viewer = { ...anonymousViewer, kind: 'token', allRights: true };

/** A session person holding `permissions` (all rights when `allRights` is among them). */
export function personViewer(oid: number, permissions: Permission[] = [], groupOids: number[] = []): Viewer {
  return {
    kind: 'person',
    person: {
      oid,
      pid: `lab/${oid}`,
      nom: `Nom${oid}`,
      prenom: 'P',
      roles: [],
      groupOids: new Set(groupOids),
    },
    allRights: permissions.includes('allRights'),
    permissions: new Set(permissions),
    labBaseId: 'lab',
  };
}

export function subjectOf(viewer: Viewer, extra: Partial<Omit<RightsSubject, 'viewer'>> = {}): RightsSubject {
  return { viewer, groupOids: viewer.person?.groupOids ?? new Set(), ...extra };
}

/** Facts of a published public resource of type `url` by nobody in particular, with `changes`. */
export function factsOf(changes: Partial<RightsFacts> = {}): RightsFacts {
  return {
    publie: true,
    restriction: 0,
    type: 'url',
    aliasOf: null,
    authorOids: [],
    contributorOids: [],
    readerGroupOids: [],
    authorGroupOids: [],
    ...changes,
  };
}
