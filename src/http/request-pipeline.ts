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
import { inSequence } from './layers.ts';
import { keepParsedQuery } from './query-string.ts';
import { refuseHostileInput } from './request-hygiene.ts';
import { allowCrossOriginReads } from './security-headers.ts';

const LEGACY = ['/api', '/groupe'];

const isJson = (req: IncomingMessage) =>
  /^application\/(.+\+)?json\b/i.test(req.headers['content-type'] ?? '');

export function mountRequestPipeline(
  app: Express,
  config: Config,
  corsFor: CorsFactory,
  sessions: RequestHandler,
): void {
  const cors = corsFor(undefined, false);
  const limit = config.http.bodyLimit;
  const json = express.json({ limit, type: ['application/json', 'application/*+json'] });
  const hygiene = refuseHostileInput(config.input);
  // One layer per surface (src/http/layers.ts), the middlewares in the order they were mounted.
  app.use(
    LEGACY,
    inSequence([
      keepParsedQuery,
      cors,
      (req, res, next) => {
        if (req.path.startsWith('/public/')) allowCrossOriginReads(res);
        next();
      },
      json,
      express.urlencoded({ limit, extended: true }),
      express.text({ limit, type: 'text/plain' }),
      hygiene,
      sessions,
    ]),
  );
  app.use(
    '/graphql',
    inSequence([
      keepParsedQuery,
      cors,
      json,
      // Every other body Yoga accepts (application/graphql, forms, multipart) is read here, under
      // the same limit, and handed to Yoga as a Buffer.
      express.raw({ limit, type: (req) => !isJson(req) }),
      hygiene,
      sessions,
    ]),
  );
}
