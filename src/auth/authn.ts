/**
 * Authentication strategies, tried once per request: an `X-ApiToken` header matching a configured
 * token (all rights, no person), then the session person, else anonymous. Client-supplied identity
 * (posted pids, roles or permissions) is never trusted.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Config } from '../config.ts';
import { db } from '../db/client.ts';
import { permissionsOf } from './permissions.ts';
import type { SessionHandle } from './session.ts';
import { anonymousViewer, type Viewer } from './viewer.ts';

const digest = (value: string) => createHash('sha256').update(value).digest();

/** Constant-time membership test (hashing first makes lengths equal). */
export function isValidApiToken(presented: string | undefined, tokens: readonly string[]): boolean {
  if (!presented) return false;
  let decoded: string;
  try {
    decoded = decodeURIComponent(presented);
  } catch {
    return false;
  }
  const candidate = digest(decoded);
  let valid = false;
  for (const token of tokens) valid = timingSafeEqual(candidate, digest(token)) || valid;
  return valid;
}

export async function resolveViewer(
  apiTokenHeader: string | undefined,
  session: SessionHandle,
  config: Config,
): Promise<Viewer> {
  const tokenCaller = isValidApiToken(apiTokenHeader, config.apiTokens);
  const personOid = session.personOid();
  const person =
    personOid === undefined
      ? null
      : await db.person.findUnique({
          where: { oid: personOid },
          select: { oid: true, pid: true, nom: true, prenom: true, roles: { select: { role: true } } },
        });
  if (!person) {
    return tokenCaller ? { ...anonymousViewer, kind: 'token', allRights: true } : anonymousViewer;
  }
  const roles = person.roles.map((r) => r.role);
  const permissions = permissionsOf(roles, config.roles);
  return {
    kind: 'person',
    person: { oid: person.oid, pid: person.pid, nom: person.nom, prenom: person.prenom, roles },
    allRights: tokenCaller || permissions.has('allRights'),
    permissions,
    labBaseId: session.labBaseId(),
  };
}
