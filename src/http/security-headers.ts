/**
 * Security headers (helmet) on every answer. The service answers JSON almost everywhere: those
 * answers may run nothing, load nothing and be framed by nobody (`default-src 'none'`,
 * `frame-ancestors 'none'`), and are never sniffed as anything else (`nosniff`). The one HTML page,
 * GraphiQL, gets its own policy (src/gateway/graphiql.ts): its own inline scripts only, framed by
 * this service only.
 */
import type { RequestHandler, Response } from 'express';
import helmet from 'helmet';

export function securityHeaders(): RequestHandler {
  return helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'none'"],
        frameAncestors: ["'none'"],
        baseUri: ["'none'"],
        formAction: ["'none'"],
      },
    },
    frameguard: { action: 'deny' },
    // Labs read answers with CORS, which this header does not affect; it stops no-cors reads
    // (`<script src=…>`) of a logged-in user's answers from other sites.
    crossOriginResourcePolicy: { policy: 'same-origin' },
    referrerPolicy: { policy: 'no-referrer' },
  });
}

/** `/public/` answers are the same for everyone and meant to be read from anywhere. */
export function allowCrossOriginReads(res: Response): void {
  res.setHeader('Cross-Origin-Resource-Policy', 'cross-origin');
}

/** Headers of an HTML page this service itself frames (GraphiQL), with its own policy. */
export function htmlPageHeaders(res: Response, contentSecurityPolicy: string): void {
  res.setHeader('Content-Security-Policy', contentSecurityPolicy);
  res.setHeader('X-Frame-Options', 'SAMEORIGIN');
}
