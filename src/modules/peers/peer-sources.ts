/**
 * Resources of peer repositories, read through their public route (`<peer baseUrl>api/public/<oid>`)
 * with the peer timeout. The public form only: our users see of a peer what anyone may see, never
 * what the peer's token would open.
 */
import type { Config } from '../../config.ts';
import type { Context } from '../../context.ts';
import { UpstreamError } from '../../errors.ts';
import { withSchemaNames } from '../../legacy/names.ts';
import { inputProblem } from '../../security/input-limits.ts';
import { ResourceNotFoundError } from '../resources/resources.errors.ts';
import type { StoredState } from '../resources/resources.repository.ts';

type Peer = Config['peers'][number];

/** The peer's resource (its public form). */
export async function fetchPeerResource(
  context: Context,
  peer: Peer,
  oid: number,
): Promise<Partial<StoredState>> {
  const response = await context.services.http.request(`${peer.baseUrl}api/public/${oid}`, {
    timeoutMs: context.config.http.peerTimeoutMs,
  });
  if (response.status === 404) throw new ResourceNotFoundError(`${peer.baseId}/${oid}`);
  const body = response.json as ({ success?: unknown } & Record<string, unknown>) | undefined;
  if (response.status !== 200 || typeof body !== 'object' || body === null || body.success !== true) {
    throw new UpstreamError(
      'UPSTREAM_UNAVAILABLE',
      `La sésathèque ${peer.baseId} a répondu ${response.status} pour la ressource ${oid}`,
    );
  }
  // What a peer sends is stored as it is: it must be what we would accept from a client.
  const problem = inputProblem(body, context.config.input);
  if (problem) {
    throw new UpstreamError(
      'UPSTREAM_UNAVAILABLE',
      `Réponse invalide de la sésathèque ${peer.baseId} : ${problem}`,
    );
  }
  const { success: _success, ...resource } = body;
  // People and groups under their own names, relations as `{predicate, rid}`.
  return withSchemaNames(resource) as Partial<StoredState>;
}
