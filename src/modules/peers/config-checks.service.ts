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

/** A repository or lab as the caller declares it: both fields are required by the check. */
export interface DeclaredBase {
  baseId?: string | null;
  baseUrl?: string | null;
}

type DeclaredList = 'repositories' | 'labs';

/** What a lab or a peer repository declares (GraphQL `LabConfigurationInput`, `RepositoryConfigurationInput`). */
export interface ConfigurationInput {
  baseUrl?: string | null;
  repositories?: readonly (DeclaredBase | null | undefined)[] | null;
  labs?: readonly (DeclaredBase | null | undefined)[] | null;
  /** Lists the caller sent that were not lists (legacy REST bodies): each is an error. */
  malformedLists?: readonly DeclaredList[] | null;
}

/** The lists' names in the messages, the protocol's own words (a sésathèque is a repository). */
const LIST_LABELS: Record<DeclaredList, string> = { repositories: 'sesatheques', labs: 'sesalabs' };

/** Compares the remotes declared in `list` with those known here. */
function compare(
  input: ConfigurationInput,
  list: DeclaredList,
  known: Remote[],
  errors: string[],
  warnings: string[],
) {
  const label = LIST_LABELS[list];
  if (input.malformedLists?.includes(list)) {
    errors.push(`${label} doit être une liste de {baseId, baseUrl}`);
    return;
  }
  input[list]?.forEach((entry, index) => {
    const { baseId, baseUrl } = entry ?? {};
    if (!baseId || !baseUrl) {
      errors.push(`${label}[${index}] : baseId et baseUrl sont obligatoires`);
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

/** A required list: absent (neither given nor sent malformed) is an error. */
function requireList(input: ConfigurationInput, list: DeclaredList, errors: string[]) {
  if (input[list] === undefined && !input.malformedLists?.includes(list))
    errors.push(`${LIST_LABELS[list]} manquant`);
}

function outcome(errors: string[], warnings: string[], message: string, baseId: string | null = null) {
  const success = errors.length === 0;
  return { success, message: success ? message : null, baseId: success ? baseId : null, errors, warnings };
}

/** `checkLab` (historical `checkSesalab`): the caller is a configured lab, and agrees with us. */
export function checkLab(context: Context, input: ConfigurationInput): ConfigCheck {
  const { baseUrl } = input;
  const errors: string[] = [];
  const warnings: string[] = [];
  const lab = baseUrl
    ? context.config.labs.find((candidate) => candidate.baseUrl === withSlash(baseUrl))
    : undefined;
  if (!baseUrl) errors.push('baseUrl manquante');
  else if (!lab) errors.push(`${baseUrl} n’est pas une sesalab déclarée sur ${context.config.baseUrl}`);
  requireList(input, 'repositories', errors);
  compare(input, 'repositories', repositories(context), errors, warnings);
  return outcome(errors, warnings, 'Configuration sesalab OK', lab?.baseId ?? null);
}

/** `checkRepo` (historical `checkSesatheque`): a peer's view of repositories and labs agrees with ours. */
export function checkRepo(context: Context, input: ConfigurationInput): ConfigCheck {
  const errors: string[] = [];
  const warnings: string[] = [];
  requireList(input, 'repositories', errors);
  compare(input, 'repositories', repositories(context), errors, warnings);
  compare(input, 'labs', [...context.config.labs], errors, warnings);
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
