/**
 * Development login (`devLogin: true` only): logs in any pid, creating the person when needed and
 * granting the roles asked for, and starts a session exactly as a lab login does. It lets a
 * newcomer try groups and rights without writing a lab. Refused in production by the configuration
 * (src/config.ts assertFitForEnvironment); switched off, it says so and how to turn it on.
 *
 * Whoever it answers can make themselves administrator, so it answers callers on this machine only
 * unless `devLoginAllowRemote`. The roles it grants are stored as its own (source `devLogin`) and
 * count only while it is on (src/permissions.ts roleSourceGrants): turning it off takes them back.
 */
import type { Viewer } from '../../auth/viewer.ts';
import type { Context } from '../../context.ts';
import { db } from '../../db/client.ts';
import { DevLoginUnavailableError, InvalidInputError } from '../../errors.ts';
import { loggedClientAddress } from '../../logging/client-address.ts';
import { addPerson, isPid } from '../persons/persons.service.ts';
import { recordLogin } from './last-login.ts';

export interface DevLoginInput {
  pid?: string | null;
  nom?: string | null;
  prenom?: string | null;
  email?: string | null;
  /** Roles granted by the development login (replacing its earlier grants; others' stay). */
  roles?: string[] | null;
}

export async function devLogin(context: Context, input: DevLoginInput): Promise<Viewer> {
  if (!context.config.devLogin) throw new DevLoginUnavailableError('off');
  if (!context.client.fromLoopback && !context.config.devLoginAllowRemote) {
    context.log.warn(
      loggedClientAddress(context.client.address, context.config.logging.clientAddress),
      'development login refused to a remote caller',
    );
    throw new DevLoginUnavailableError('remote');
  }
  const pid = input.pid?.trim() ?? '';
  if (!isPid(pid)) throw new InvalidInputError('pid : de la forme origine/id, par exemple dev/alice');
  const separator = pid.indexOf('/');
  const existing = await db.person.findUnique({ where: { pid }, select: { nom: true, prenom: true } });
  // Names default to what is known, else to the pid's parts, so that `{pid}` alone is enough.
  const person = await addPerson(
    {
      origine: pid.slice(0, separator),
      idOrigine: pid.slice(separator + 1),
      nom: input.nom ?? (existing?.nom || pid.slice(separator + 1)),
      prenom: input.prenom ?? (existing?.prenom || pid.slice(0, separator)),
      ...(input.email != null ? { email: input.email } : {}),
      ...(input.roles != null ? { roles: input.roles } : {}),
    },
    context.config,
    'devLogin',
  );
  await recordLogin(person.oid);
  await context.session.establish(person.oid, null);
  context.log.warn({ pid: person.pid }, 'development login');
  context.viewer = await context.identify();
  return context.viewer;
}
