/**
 * API tokens issued at run time (`rrs token issue`), valid wherever a configured `apiTokens` entry
 * is. A token is 32 random bytes, shown once; the database keeps only its SHA-256 digest (a fast
 * digest is enough: nobody can guess 256 random bits, so there is no dictionary to slow down).
 *
 * Checking a presented token costs at most one look-up of its digest in a unique index, and only
 * for requests that present a token the configuration does not hold. There is deliberately no
 * cache: a revocation or an expiry then holds on the very next request on every instance sharing
 * the database, with no invalidation message to lose.
 */
import { hash, randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Config } from '../config.ts';
import { db } from '../db/client.ts';
import { isUniqueViolation } from '../db/errors.ts';
import { ConflictError, InvalidInputError, NotFoundError } from '../errors.ts';
import { isValidApiToken } from './authn.ts';

/** Recognisable in logs and secret scanners; the random part carries the strength. */
const TOKEN_PREFIX = 'rrs_';
const MAX_NAME_LENGTH = 100;
const MAX_EXPIRY_DAYS = 3650;

export type ApiTokenStatus = 'active' | 'expired' | 'revoked';

export interface ApiTokenSummary {
  id: number;
  name: string;
  status: ApiTokenStatus;
  createdAt: Date;
  expiresAt: Date | null;
  revokedAt: Date | null;
}

const digestOf = (token: string) => hash('sha256', token, 'hex');

function summary(row: Omit<ApiTokenSummary, 'status'>, now = new Date()): ApiTokenSummary {
  const status: ApiTokenStatus = row.revokedAt
    ? 'revoked'
    : row.expiresAt && row.expiresAt <= now
      ? 'expired'
      : 'active';
  return {
    id: row.id,
    name: row.name,
    status,
    createdAt: row.createdAt,
    expiresAt: row.expiresAt,
    revokedAt: row.revokedAt,
  };
}

const publicColumns = { id: true, name: true, createdAt: true, expiresAt: true, revokedAt: true } as const;

/** Creates a token; the only time its secret is seen is in the answer. */
export async function issueApiToken(input: {
  name: string;
  expiresInDays?: number;
}): Promise<ApiTokenSummary & { token: string }> {
  const name = input.name.trim();
  const problems: string[] = [];
  if (!name) problems.push('name: required');
  if (name.length > MAX_NAME_LENGTH) problems.push(`name: at most ${MAX_NAME_LENGTH} characters`);
  if (/^\d+$/.test(name)) problems.push('name: must not be a number (numbers designate token ids)');
  const days = input.expiresInDays;
  if (days !== undefined && !(Number.isInteger(days) && days > 0 && days <= MAX_EXPIRY_DAYS)) {
    problems.push(`expires: a whole number of days between 1 and ${MAX_EXPIRY_DAYS}`);
  }
  if (problems.length > 0) throw new InvalidInputError(problems);
  const token = `${TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
  const expiresAt = days === undefined ? null : new Date(Date.now() + days * 86_400_000);
  try {
    const row = await db.apiToken.create({
      data: { name, digest: digestOf(token), expiresAt },
      select: publicColumns,
    });
    return { ...summary(row), token };
  } catch (error) {
    if (isUniqueViolation(error)) throw new ConflictError(`A token named "${name}" exists already`);
    throw error;
  }
}

export async function listApiTokens(): Promise<ApiTokenSummary[]> {
  const rows = await db.apiToken.findMany({ select: publicColumns, orderBy: { id: 'asc' } });
  const now = new Date();
  return rows.map((row) => summary(row, now));
}

/** Revokes by id or by name; revoking twice keeps the first date. */
export async function revokeApiToken(idOrName: string): Promise<ApiTokenSummary> {
  const where = /^\d+$/.test(idOrName) ? { id: Number(idOrName) } : { name: idOrName.trim() };
  if ('id' in where && !Number.isSafeInteger(where.id)) throw new NotFoundError(`No token ${idOrName}`);
  const row = await db.apiToken.findUnique({ where, select: publicColumns });
  if (!row) throw new NotFoundError(`No token ${idOrName}`);
  if (row.revokedAt) return summary(row);
  await db.apiToken.updateMany({ where: { id: row.id, revokedAt: null }, data: { revokedAt: new Date() } });
  return summary(await db.apiToken.findUniqueOrThrow({ where: { id: row.id }, select: publicColumns }));
}

/** Whether `presented` is an issued token, neither revoked nor expired: one unique-index look-up. */
export async function isIssuedApiToken(presented: string): Promise<boolean> {
  if (!presented.startsWith(TOKEN_PREFIX)) return false;
  const row = await db.apiToken.findUnique({
    where: { digest: digestOf(presented) },
    select: { expiresAt: true, revokedAt: true },
  });
  return row !== null && row.revokedAt === null && (row.expiresAt === null || row.expiresAt > new Date());
}

export async function countActiveApiTokens(): Promise<number> {
  return db.apiToken.count({
    where: { revokedAt: null, OR: [{ expiresAt: null }, { expiresAt: { gt: new Date() } }] },
  });
}

/** The `X-ApiToken` header of a request, if any. */
export function presentedToken(req: IncomingMessage): string | undefined {
  const header = req.headers['x-apitoken'];
  return Array.isArray(header) ? header[0] : header;
}

const verdicts = new WeakMap<IncomingMessage, Promise<boolean>>();

/**
 * Whether the request carries a valid API token: a configured one (constant-time, no database),
 * else an issued one. Remembered per request, so the GraphQL request policy and the context
 * factory share one look-up.
 */
export function authenticateApiToken(req: IncomingMessage, config: Config): Promise<boolean> {
  let verdict = verdicts.get(req);
  if (!verdict) {
    const presented = presentedToken(req);
    verdict = isValidApiToken(presented, config.apiTokens)
      ? Promise.resolve(true)
      : presented
        ? isIssuedApiToken(decoded(presented))
        : Promise.resolve(false);
    verdicts.set(req, verdict);
  }
  return verdict;
}

/** As isValidApiToken reads the header: percent-decoded, and nothing when it cannot be. */
function decoded(presented: string): string {
  try {
    return decodeURIComponent(presented);
  } catch {
    return '';
  }
}
