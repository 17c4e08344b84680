/**
 * Login through a lab (`connexion`): the lab vouches for a token, we upsert the person it names and
 * start a session. Only configured labs are ever contacted.
 */
import { z } from 'zod';
import type { Viewer } from '../../auth/viewer.ts';
import type { Context } from '../../context.ts';
import { InvalidInputError, LabLoginRejectedError, LabNotAllowedError, UpstreamError } from '../../errors.ts';
import { textFlaw } from '../../lib/text.ts';
import { upsertFromLab } from '../persons/persons.service.ts';
import { recordLogin } from './last-login.ts';

/** Text a lab sends about its user: stored as is, so it must fit any database (`textFlaw`). */
const labText = z
  .string()
  .max(1000)
  .refine((text) => textFlaw(text) === undefined);

const labAnswer = z.union([
  z.object({
    ok: z.literal(true),
    utilisateur: z.object({
      oid: z.union([labText.min(1), z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER)]),
      nom: labText,
      prenom: labText,
      mail: labText.nullish(),
      type: z.union([z.number(), z.string()]).nullish(),
    }),
  }),
  z.object({ error: z.string().min(1) }),
]);

export function findLab(context: Context, origine: string) {
  const baseUrl = origine.endsWith('/') ? origine : `${origine}/`;
  return context.config.labs.find((lab) => lab.baseUrl === baseUrl);
}

export async function loginWithLab(
  context: Context,
  origine: string | null | undefined,
  token: string | null | undefined,
): Promise<Viewer> {
  if (!origine || !token) throw new InvalidInputError('token ou origine manquant');
  // The subject of a failed login is the credential presented: the lab and its token.
  const attempt = { kind: 'login', address: context.client.address, subject: `${origine} ${token}` } as const;
  await context.services.abuse.assertAllowed(attempt);
  const lab = findLab(context, origine);
  if (!lab) {
    await context.services.abuse.recordFailure(attempt);
    throw new LabNotAllowedError(origine);
  }

  const response = await context.services.http.request(`${lab.baseUrl}api/utilisateur/check-token`, {
    form: { token },
    timeoutMs: context.config.http.labTimeoutMs,
  });
  const answer = labAnswer.safeParse(response.json);
  if (!answer.success) {
    context.log.warn({ lab: lab.baseId, status: response.status }, 'unusable answer from lab check-token');
    throw new UpstreamError('UPSTREAM_UNAVAILABLE', `Réponse invalide de ${lab.name ?? lab.baseId}`);
  }
  if ('error' in answer.data) {
    await context.services.abuse.recordFailure(attempt);
    throw new LabLoginRejectedError(answer.data.error);
  }

  const user = answer.data.utilisateur;
  const person = await upsertFromLab({
    pid: `${lab.baseId}/${user.oid}`,
    nom: user.nom,
    prenom: user.prenom,
    email: user.mail ?? null,
    role: Number(user.type) === 1 ? 'formateur' : 'eleve',
  });
  await recordLogin(person.oid);
  await context.session.establish(person.oid, lab.baseId);
  context.log.info({ pid: person.pid, lab: lab.baseId }, 'lab login');
  return switchViewer(context);
}

export async function logout(context: Context): Promise<Viewer> {
  await context.session.destroy();
  return switchViewer(context);
}

/** After a login or logout, the rest of the request acts as the new caller. */
async function switchViewer(context: Context): Promise<Viewer> {
  context.viewer = await context.identify();
  return context.viewer;
}
