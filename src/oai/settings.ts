/** What the protocol layer needs of the configuration, with the defaults resolved. */
import type { Config } from '../config.ts';
import { derivedRepositoryIdentifier } from './identifier.ts';

export interface OaiSettings {
  /** The protocol's base URL (`<baseUrl>oai`): Identify's baseURL and every `request` element. */
  baseUrl: string;
  repositoryIdentifier: string;
  repositoryName: string;
  /** At least one (Identify requires it). */
  adminEmails: readonly string[];
  /** Records (or headers) per page of ListRecords and ListIdentifiers. */
  pageSize: number;
  /**
   * The content encodings Identify announces (§3.1.3), besides identity: those the HTTP layer
   * applies when a harvester accepts them. None by default.
   */
  compression?: readonly string[];
  /** How long a resumption token stays valid. */
  tokenLifetimeSeconds: number;
  /** The service secret; resumption tokens are signed with a key derived from it for them alone. */
  secret: string;
  /** The clock, for responseDate and token expiry (tests move it). */
  now?: () => Date;
}

/**
 * The settings of `config.oai`, with the defaults the configuration documents: the repository
 * identifier from the host of `baseUrl`, a name from `baseId`, and, when no adminEmail is
 * configured, `admin@<repositoryIdentifier>` (`rrs config check` reports that in production).
 */
export function oaiSettings(config: Config, secret: string): OaiSettings {
  const repositoryIdentifier = config.oai.repositoryIdentifier ?? derivedRepositoryIdentifier(config.baseUrl);
  return {
    baseUrl: `${config.baseUrl}oai`,
    repositoryIdentifier,
    repositoryName: config.oai.repositoryName ?? `Resource Repository Service (${config.baseId})`,
    adminEmails: config.oai.adminEmail.length > 0 ? config.oai.adminEmail : [`admin@${repositoryIdentifier}`],
    pageSize: config.oai.pageSize,
    // What src/http/compression.ts (before every route in src/app.ts) encodes an answer with.
    compression: ['gzip', 'deflate'],
    tokenLifetimeSeconds: config.oai.tokenLifetimeSeconds,
    secret,
  };
}
