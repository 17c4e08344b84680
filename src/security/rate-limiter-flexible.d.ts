/**
 * The four classes of rate-limiter-flexible this service uses, imported from their own files as the
 * package's README documents ("or import directly"): its index loads every store it supports (the
 * cluster master, etcd, DynamoDB, Drizzle…), 3 MB of a resting service's memory for nothing (148 →
 * 145 MB on the 100k bench database). The package ships types for its index only; these name the
 * same classes.
 */
declare module 'rate-limiter-flexible/lib/RateLimiterMemory.js' {
  import { RateLimiterMemory } from 'rate-limiter-flexible';
  export default RateLimiterMemory;
}
declare module 'rate-limiter-flexible/lib/RateLimiterPrisma.js' {
  import { RateLimiterPrisma } from 'rate-limiter-flexible';
  export default RateLimiterPrisma;
}
declare module 'rate-limiter-flexible/lib/RateLimiterRedis.js' {
  import { RateLimiterRedis } from 'rate-limiter-flexible';
  export default RateLimiterRedis;
}
declare module 'rate-limiter-flexible/lib/RateLimiterRes.js' {
  import { RateLimiterRes } from 'rate-limiter-flexible';
  export default RateLimiterRes;
}
