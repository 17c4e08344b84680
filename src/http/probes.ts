/**
 * The addresses asked before any other: `/`, what answers here and where (a newcomer's first
 * request, instead of Express's "Cannot GET /"), `/healthz` (the process serves) and `/readyz` (the
 * database answers), the probes of a load balancer or an orchestrator.
 */
import type { Express } from 'express';
import type { Config } from '../config.ts';
import type { DatabaseAvailability } from '../db/availability.ts';
import { ping } from '../db/client.ts';

/** Paths asked every few seconds (the probes, the metrics scrape): their requests are not logged. */
const POLLED_PATHS = new Set(['/healthz', '/readyz', '/metrics']);
export const isPolled = (url: string) => POLLED_PATHS.has(url);

export function mountProbes(app: Express, config: Config, database: DatabaseAvailability): void {
  app.get('/', (_req, res) => {
    res.json({
      service: 'Resource Repository Service',
      baseId: config.baseId,
      baseUrl: config.baseUrl,
      links: {
        graphql: '/graphql',
        apiDocs: '/api/docs',
        openApi: '/api/openapi.json',
        health: '/healthz',
        ready: '/readyz',
      },
    });
  });
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (req, res) => {
    try {
      await ping();
      res.json({ status: 'ok' });
    } catch (error) {
      // An outage is logged once by the availability monitor, not on every probe of a balancer.
      if (!database.report(error)) req.log.error({ err: error }, 'readiness check failed');
      res.status(503).json({ status: 'unavailable' });
    }
  });
}
