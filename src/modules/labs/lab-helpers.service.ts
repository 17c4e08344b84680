/**
 * Helpers for lab pages: `deferPost` forwards a post a page could not send itself (cross-domain, at
 * unload), to a configured lab only; `notifyError` records what a client reports.
 */
import type { Context } from '../../context.ts';
import { ForbiddenError, InvalidInputError, UpstreamError } from '../../errors.ts';
import { isUnderBaseUrl } from '../../lib/http-client.ts';

/** Where a client's own error reports go when deferred. */
const NOTIFY_ERROR_PATH = '/api/notifyError';

export interface ClientError {
  /** The resource concerned, when the report is not an object naming it already. */
  rid?: string | null;
  report?: unknown;
}

/** Logs a client's report: on the data-error stream when it names a resource (`rid`). */
export function notifyError(context: Context, { rid, report: input }: ClientError): boolean {
  const reported =
    typeof input === 'object' && input !== null && !Array.isArray(input) ? input : { value: input };
  const report = typeof rid === 'string' ? { ...reported, rid } : reported;
  if ('rid' in report) context.log.error({ stream: 'data-error', report }, 'data error reported by a client');
  else context.log.error({ stream: 'client-error', report }, 'error reported by a client');
  return true;
}

export interface DeferredPost {
  deferUrl?: string | null;
  /** Posted as JSON to `deferUrl`: an object. */
  payload?: unknown;
}

/** Posts `payload` to `deferUrl`, which must lie under a configured lab's baseUrl. */
export async function deferPost(context: Context, { deferUrl, payload }: DeferredPost): Promise<boolean> {
  const rest = payload ?? {};
  const problems: string[] = [];
  // The lab receives the payload as the body of a post: an object, as the page's own post was.
  if (typeof rest !== 'object' || Array.isArray(rest))
    problems.push('Le corps de la requête doit être un objet');
  if (!deferUrl) problems.push('deferUrl manquant');
  if (!deferUrl || problems.length > 0) throw new InvalidInputError(problems);
  if (deferUrl === NOTIFY_ERROR_PATH) return notifyError(context, { report: rest });
  let target: URL | null = null;
  try {
    target = new URL(deferUrl);
  } catch {
    // Refused below, like any URL outside the labs.
  }
  // Checked before any network call: this route must never become an open relay.
  if (!target || !context.config.labs.some((lab) => isUnderBaseUrl(target, lab.baseUrl))) {
    throw new ForbiddenError(`deferUrl ${deferUrl} : destination non autorisée`);
  }
  const response = await context.services.http.request(target.href, {
    json: rest,
    timeoutMs: context.config.http.deferPostTimeoutMs,
  });
  if (response.status >= 400) {
    throw new UpstreamError('UPSTREAM_UNAVAILABLE', `${target.origin} a répondu ${response.status}`);
  }
  return true;
}
