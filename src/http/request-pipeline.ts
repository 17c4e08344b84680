/**
 * What a request to `/api`, `/groupe` (three legacy group routes live outside `/api`) or `/graphql`
 * passes before its surface answers: CORS, the body parsers (one size limit for every content
 * type), the hostile-input check, then the session. The probes, the documentation and `/oai`, the
 * same for every caller, are answered before: none of this runs for them.
 */
import type { IncomingMessage } from 'node:http';
import express, { type Express, type RequestHandler } from 'express';
import type { Config } from '../config.ts';
import type { CorsFactory } from './cors.ts';
import { refuseHostileInput } from './request-hygiene.ts';
import { allowCrossOriginReads } from './security-headers.ts';

const SERVED = ['/api', '/groupe', '/graphql'];
const LEGACY = ['/api', '/groupe'];

const isJson = (req: IncomingMessage) =>
  /^application\/(.+\+)?json\b/i.test(req.headers['content-type'] ?? '');

export function mountRequestPipeline(
  app: Express,
  config: Config,
  corsFor: CorsFactory,
  sessions: RequestHandler,
): void {
  app.use(SERVED, corsFor(undefined, false));
  app.use(LEGACY, (req, res, next) => {
    if (req.path.startsWith('/public/')) allowCrossOriginReads(res);
    next();
  });
  const limit = config.http.bodyLimit;
  app.use(SERVED, express.json({ limit, type: ['application/json', 'application/*+json'] }));
  app.use(LEGACY, express.urlencoded({ limit, extended: true }), express.text({ limit, type: 'text/plain' }));
  // Every other body Yoga accepts (application/graphql, forms, multipart) is read here, under the
  // same limit, and handed to Yoga as a Buffer.
  app.use('/graphql', express.raw({ limit, type: (req) => !isJson(req) }));
  app.use(SERVED, refuseHostileInput(config.input));
  app.use(SERVED, sessions);
}
