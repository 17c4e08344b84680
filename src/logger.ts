/** The root structured logger (pino). Request-scoped children carry the request id. */
import { pino } from 'pino';

export type Logger = pino.Logger;

export function createLogger(level: string): Logger {
  return pino({
    level,
    base: { service: 'resource-repository' },
    redact: {
      paths: ['req.headers.cookie', 'req.headers["x-apitoken"]', 'res.headers["set-cookie"]'],
      censor: '***',
    },
  });
}
