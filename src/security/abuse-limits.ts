/**
 * Limits on failed authentications, with rate-limiter-flexible. Three kinds of attempt can be
 * repeated to guess or to hammer something: lab logins (each one costs a call to the lab), requests
 * with an `X-ApiToken`, and pid/name checks (`personne/checkPid`). For each kind, failures are
 * counted per client address and per subject (the lab credential, the presented token, the checked
 * pid; stored as digests, never in clear). Once either count reaches its limit within the window,
 * further attempts are answered 429 with `Retry-After` until the window ends. Successes are never
 * counted, and a valid API token is never refused.
 *
 * The address limit is generous (a whole school often shares one address); the subject limit is
 * strict. Counters live in the service database through Prisma (so every instance sharing it shares
 * them), or in Redis when `rateLimits.redisUrl` is configured; if the store fails, an in-memory
 * counter takes over for the time being rather than failing the request.
 */
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import type { Redis } from 'ioredis';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
// Each class from its own file (src/security/rate-limiter-flexible.d.ts says why).
import RateLimiterMemory from 'rate-limiter-flexible/lib/RateLimiterMemory.js';
import RateLimiterPrisma from 'rate-limiter-flexible/lib/RateLimiterPrisma.js';
import RateLimiterRedis from 'rate-limiter-flexible/lib/RateLimiterRedis.js';
import RateLimiterRes from 'rate-limiter-flexible/lib/RateLimiterRes.js';
import type { Config } from '../config.ts';
import { db } from '../db/client.ts';
import { RateLimitedError } from '../errors.ts';
import type { Logger } from '../logging/logger.ts';

export type AttemptKind = 'login' | 'apiToken' | 'pidCheck';

export interface Attempt {
  kind: AttemptKind;
  /** The client address (Express `req.ip`, which honours `trust proxy`). */
  address: string;
  /** What the attempt is about: a lab credential, a token, a pid. */
  subject: string;
}

export interface AbuseLimits {
  /** Throws a RateLimitedError when the address or the subject has already failed too often. */
  assertAllowed(attempt: Attempt): Promise<void>;
  /**
   * Counts one failure. Returns the RateLimitedError to answer when this failure went past a limit
   * (the caller decides whether this attempt already gets it, or only the next ones).
   */
  recordFailure(attempt: Attempt): Promise<RateLimitedError | undefined>;
  close(): Promise<void>;
}

const digest = (value: string) => createHash('sha256').update(value).digest('base64url').slice(0, 32);
const keysOf = ({ kind, address, subject }: Attempt) => ({
  address: `${kind}:address:${address}`,
  subject: `${kind}:subject:${digest(subject)}`,
});

const noLimits: AbuseLimits = {
  assertAllowed: async () => {},
  recordFailure: async () => undefined,
  close: async () => {},
};

const redactedUrl = (url: string) => url.replace(/\/\/[^@/]*@/, '//***@');

/** How long a start waits for Redis before counting in memory until it answers. */
const REDIS_READY_TIMEOUT_MS = 3000;

async function connectRedis(url: string, logger: Logger): Promise<Redis> {
  // Loaded only when configured: the client weighs on a process at rest (docs/performance.md).
  const { Redis } = await import('ioredis');
  // Without the offline queue a Redis outage fails fast, and the in-memory insurance takes over.
  const redis = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
  // The client reconnects by itself; calls made meanwhile are answered by the insurance limiter.
  redis.on('error', () => {});
  let timer: NodeJS.Timeout | undefined;
  const ready = await Promise.race([
    once(redis, 'ready').then(() => true),
    new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), REDIS_READY_TIMEOUT_MS);
    }),
  ]).finally(() => clearTimeout(timer));
  if (!ready)
    logger.warn({ redis: redactedUrl(url) }, 'rate-limit store not ready: counting in memory meanwhile');
  return redis;
}

export async function createAbuseLimits(config: Config, logger: Logger): Promise<AbuseLimits> {
  const settings = config.rateLimits;
  if (!settings.enabled) return noLimits;
  const redis = settings.redisUrl ? await connectRedis(settings.redisUrl, logger) : undefined;

  const limiter = (points: number, keyPrefix: string): RateLimiterAbstract => {
    const options = {
      points,
      duration: settings.windowSeconds,
      keyPrefix,
      insuranceLimiter: new RateLimiterMemory({ points, duration: settings.windowSeconds, keyPrefix }),
    };
    return redis
      ? new RateLimiterRedis({ ...options, storeClient: redis })
      : new RateLimiterPrisma({ ...options, storeClient: db, tableName: 'rateLimit' });
  };
  const limiters = {
    address: {
      limiter: limiter(settings.failuresPerAddress, 'failures-per-address'),
      points: settings.failuresPerAddress,
    },
    subject: {
      limiter: limiter(settings.failuresPerSubject, 'failures-per-subject'),
      points: settings.failuresPerSubject,
    },
  };

  return {
    async assertAllowed(attempt) {
      const keys = keysOf(attempt);
      const [address, subject] = await Promise.all([
        limiters.address.limiter.get(keys.address),
        limiters.subject.limiter.get(keys.subject),
      ]);
      const blocked = [
        address && address.consumedPoints >= limiters.address.points ? address : null,
        subject && subject.consumedPoints >= limiters.subject.points ? subject : null,
      ].filter((res): res is RateLimiterRes => res !== null);
      if (blocked.length > 0)
        throw new RateLimitedError(Math.max(...blocked.map((res) => res.msBeforeNext)) / 1000);
    },
    async recordFailure(attempt) {
      const keys = keysOf(attempt);
      const results = await Promise.allSettled([
        limiters.address.limiter.consume(keys.address),
        limiters.subject.limiter.consume(keys.subject),
      ]);
      const over = results.flatMap((result) =>
        result.status === 'rejected' && result.reason instanceof RateLimiterRes ? [result.reason] : [],
      );
      const failed = results.find(
        (result) => result.status === 'rejected' && !(result.reason instanceof RateLimiterRes),
      );
      if (failed?.status === 'rejected') throw failed.reason;
      return over.length > 0
        ? new RateLimitedError(Math.max(...over.map((res) => res.msBeforeNext)) / 1000)
        : undefined;
    },
    async close() {
      await redis?.quit().catch(() => redis.disconnect());
    },
  };
}
