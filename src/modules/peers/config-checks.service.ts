/**
 * Configuration checks between this repository, labs and peer repositories (compatibility notes
 * §7): each side sends the repositories (and labs) it knows, and every declaration is compared
 * with ours: one baseUrl must have one baseId, and the reverse. A mismatch is an error; a remote
 * we do not know is only a warning.
 */
import type { Context } from '../../context.ts';
import { InvalidInputError, NotFoundError } from '../../errors.ts';

interface Remote {
  baseId: string;
  baseUrl: string;
}

export interface ConfigCheck {
  success: boolean;
  message: string | null;
  /** checkLab: the baseId this repository knows the calling lab by. */
  baseId: string | null;
  errors: string[];
  warnings: string[];
}

const withSlash = (url: string) => (url.endsWith('/') ? url : `${url}/`);

/** This repository and its peers. */
function repositories(context: Context): Remote[] {
  const { baseId, baseUrl, peers } = context.config;
  return [{ baseId, baseUrl }, ...peers];
}

/** Compares the remotes declared under `field` with those known here. */
function compare(declared: unknown, field: string, known: Remote[], errors: string[], warnings: string[]) {
  if (declared === undefined || declared === null) return;
  if (!Array.isArray(declared)) {
    errors.push(`${field} doit être une liste de {baseId, baseUrl}`);
    return;
  }
  declared.forEach((entry, index) => {
    const { baseId, baseUrl } = (entry ?? {}) as Record<string, unknown>;
    if (typeof baseId !== 'string' || !baseId || typeof baseUrl !== 'string' || !baseUrl) {
      errors.push(`${field}[${index}] : baseId et baseUrl sont obligatoires`);
      return;
    }
    const url = withSlash(baseUrl);
    const sameUrl = known.find((remote) => remote.baseUrl === url);
    const sameId = known.find((remote) => remote.baseId === baseId);
    if (sameUrl && sameUrl.baseId !== baseId) {
      errors.push(`${url} a la baseId ${sameUrl.baseId} ici, pas ${baseId}`);
    }
    if (sameId && sameId.baseUrl !== url) {
      errors.push(`${baseId} a l’url ${sameId.baseUrl} ici, pas ${url}`);
    }
    if (!sameUrl && !sameId) warnings.push(`${baseId} (${url}) est inconnue ici`);
  });
}

const bodyOf = (body: unknown) =>
  (typeof body === 'object' && body !== null && !Array.isArray(body) ? body : {}) as Record<string, unknown>;

function outcome(errors: string[], warnings: string[], message: string, baseId: string | null = null) {
  const success = errors.length === 0;
  return { success, message: success ? message : null, baseId: success ? baseId : null, errors, warnings };
}

/** `checkLab` (historical `checkSesalab`): the caller is a configured lab, and agrees with us. */
export function checkLab(context: Context, input: unknown): ConfigCheck {
  const { baseUrl, sesatheques } = bodyOf(input);
  const errors: string[] = [];
  const warnings: string[] = [];
  const lab =
    typeof baseUrl === 'string' && baseUrl
      ? context.config.labs.find((candidate) => candidate.baseUrl === withSlash(baseUrl))
      : undefined;
  if (typeof baseUrl !== 'string' || !baseUrl) errors.push('baseUrl manquante');
  else if (!lab) errors.push(`${baseUrl} n’est pas une sesalab déclarée sur ${context.config.baseUrl}`);
  if (sesatheques === undefined) errors.push('sesatheques manquant');
  compare(sesatheques, 'sesatheques', repositories(context), errors, warnings);
  return outcome(errors, warnings, 'Configuration sesalab OK', lab?.baseId ?? null);
}

/** `checkRepo` (historical `checkSesatheque`): a peer's view of repositories and labs agrees with ours. */
export function checkRepo(context: Context, input: unknown): ConfigCheck {
  const { sesatheques, sesalabs } = bodyOf(input);
  const errors: string[] = [];
  const warnings: string[] = [];
  if (sesatheques === undefined) errors.push('sesatheques manquant');
  compare(sesatheques, 'sesatheques', repositories(context), errors, warnings);
  compare(sesalabs, 'sesalabs', [...context.config.labs], errors, warnings);
  return outcome(errors, warnings, 'Configuration sésathèque OK');
}

export interface KnownBase {
  baseId: string;
  type: 'sesalab' | 'sesatheque';
}

/** The baseId of a lab or repository base URL. */
export function baseIdOf(context: Context, baseUrl: string): KnownBase {
  if (!baseUrl.trim()) throw new InvalidInputError('baseUrl manquante');
  const url = withSlash(baseUrl.trim());
  const lab = context.config.labs.find((candidate) => candidate.baseUrl === url);
  if (lab) return { baseId: lab.baseId, type: 'sesalab' };
  const repository = repositories(context).find((candidate) => candidate.baseUrl === url);
  if (repository) return { baseId: repository.baseId, type: 'sesatheque' };
  throw new NotFoundError(`Aucune sésathèque ni sesalab d’url ${url} connue sur ${context.config.baseUrl}`);
}

/** The base URL of a repository (this one or a peer) by baseId. */
export function baseUrlOf(context: Context, baseId: string): string {
  const repository = repositories(context).find((candidate) => candidate.baseId === baseId);
  if (!repository) throw new NotFoundError(`Sésathèque ${baseId} inconnue sur ${context.config.baseUrl}`);
  return repository.baseUrl;
}
