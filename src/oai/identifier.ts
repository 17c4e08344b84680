/**
 * Item identifiers of the `oai` scheme (the oai-identifier guidelines, OAI-PMH 2.0 implementation
 * guidelines): `oai:<repositoryIdentifier>:<oid>`, the repository identifier a domain name whose
 * every label starts with a letter, and at least two labels (REPOSITORY_IDENTIFIER, in src/config.ts
 * which checks a configured one).
 */
import { REPOSITORY_IDENTIFIER } from '../config.ts';

export { REPOSITORY_IDENTIFIER };

/** Where no identifier can be derived from `baseUrl`: a name that says it is none (RFC 2606 `.invalid`). */
export const FALLBACK_REPOSITORY_IDENTIFIER = 'repository.invalid';

/**
 * The default repository identifier: the host of `baseUrl` when it fits the grammar (not
 * `localhost`, not an IP address), else FALLBACK_REPOSITORY_IDENTIFIER.
 */
export function derivedRepositoryIdentifier(baseUrl: string): string {
  const host = new URL(baseUrl).hostname;
  return REPOSITORY_IDENTIFIER.test(host) ? host : FALLBACK_REPOSITORY_IDENTIFIER;
}

export const formatIdentifier = (repositoryIdentifier: string, oid: number) =>
  `oai:${repositoryIdentifier}:${oid}`;

/**
 * The oid an identifier names, or null when it names nothing here: another scheme or repository,
 * or a local part other than an oid as this repository writes it (no sign, no leading zero), since
 * an identifier is compared as a whole string and `oai:x:007` is not `oai:x:7`.
 */
export function parseIdentifier(repositoryIdentifier: string, identifier: string): number | null {
  const prefix = `oai:${repositoryIdentifier}:`;
  if (!identifier.startsWith(prefix)) return null;
  const local = identifier.slice(prefix.length);
  if (!/^[1-9][0-9]{0,15}$/.test(local)) return null;
  const oid = Number(local);
  return Number.isSafeInteger(oid) ? oid : null;
}
