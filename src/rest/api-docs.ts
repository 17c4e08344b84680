/**
 * The API documentation the service serves: the OpenAPI document generated from the route table
 * (`GET /api/openapi.json`) and Swagger UI over it (`GET /api/docs`), from the installed
 * swagger-ui-dist package: nothing is loaded from another site. `/openapi.json` and `/docs` lead
 * there.
 *
 * The page has a policy of its own, each source needed by Swagger UI as the browser test runs it
 * (test/browser/docs.test.ts, which fails on any violation): scripts and the stylesheet from this
 * service only (no inline script: the initialiser is a file), the document fetched from here, and
 * the stylesheet's SVG icons as `data:` images (without `data:` they are refused). Nothing else:
 * no inline style, font, frame or form target was needed.
 */
import { createHash } from 'node:crypto';
import { createReadStream, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { type Express, type Request, type Response, Router } from 'express';
import type { DocumentNode, GraphQLSchema } from 'graphql';
import type { Config } from '../config.ts';
import { under } from '../http/layers.ts';
import { htmlPageHeaders } from '../http/security-headers.ts';
import { streamBody } from '../http/stream-body.ts';
import { buildOpenApiDocument } from './openapi.ts';
import { routeDomains } from './routes/index.ts';

const DOCS = '/api/docs';
const DOCUMENT = '/api/openapi.json';
/** Short addresses, redirected to the two above. */
const SHORT_DOCUMENT = '/openapi.json';
const SHORT_DOCS = '/docs';
/** Every path the documentation answers is one of these or lies under one. */
const API_DOCS_PATHS = [DOCUMENT, DOCS, SHORT_DOCUMENT, SHORT_DOCS];

export const DOCS_PAGE_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'self'",
].join('; ');

/** Files of swagger-ui-dist the page uses; nothing else of the package is served. */
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

/** The package's folder, found without loading its index (which loads the whole bundle into Node: docs/performance.md). */
const swaggerUiDir = () => dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

const INITIALISER = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: '${DOCUMENT}',
    dom_id: '#swagger-ui',
    deepLinking: true,
    docExpansion: 'list',
    tryItOutEnabled: false,
    validatorUrl: null,
  });
});
`;

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Resource Repository — REST API</title>
  <link rel="stylesheet" href="${DOCS}/swagger-ui.css">
  <link rel="icon" type="image/png" href="${DOCS}/favicon-32x32.png">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="${DOCS}/swagger-ui-bundle.js"></script>
  <script src="${DOCS}/init.js"></script>
</body>
</html>
`;

interface Cached {
  body: string | Buffer;
  type: string;
  etag: string;
}

const cached = (body: string | Buffer, type: string): Cached => ({
  body,
  type,
  etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`,
});

/** Sends a body that only changes with a deploy: kept by the browser, revalidated with its ETag. */
function sendCached(req: Request, res: Response, { body, type, etag }: Cached, cacheControl: string) {
  res.setHeader('Content-Type', type);
  res.setHeader('Cache-Control', cacheControl);
  res.setHeader('ETag', etag);
  if (req.fresh) {
    res.status(304).end();
    return;
  }
  res.send(body);
}

interface FileAsset {
  path: string;
  type: string;
  size: number;
  etag: string;
}

/** A file sent from disk as it is read: only its ETag and size stay in memory. */
async function fileAsset(path: string, type: string): Promise<FileAsset> {
  const hash = createHash('sha256');
  let size = 0;
  await pipeline(createReadStream(path), async (chunks: AsyncIterable<Buffer>) => {
    for await (const chunk of chunks) {
      hash.update(chunk);
      size += chunk.length;
    }
  });
  return { path, type, size, etag: `"${hash.digest('base64url').slice(0, 27)}"` };
}

async function sendFile(req: Request, res: Response, asset: FileAsset, cacheControl: string) {
  const { path, type, size, etag } = asset;
  res.setHeader('Content-Type', type);
  res.setHeader('Cache-Control', cacheControl);
  res.setHeader('ETag', etag);
  if (req.fresh) {
    res.status(304).end();
    return;
  }
  res.setHeader('Content-Length', size);
  await streamBody(createReadStream(path), res);
}

const packageVersion = (): string => {
  // src/rest/ or dist/rest/: the package file is two levels up.
  const file = join(dirname(fileURLToPath(import.meta.url)), '../../package.json');
  return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
};

export function apiDocsRouter(buildDocument: (version: string) => Record<string, unknown>): Router {
  const router = Router();
  let document: Cached | undefined;
  const assets = new Map<string, Promise<FileAsset>>();

  router.get(DOCUMENT, (req, res) => {
    document ??= cached(JSON.stringify(buildDocument(packageVersion())), 'application/json; charset=utf-8');
    sendCached(req, res, document, 'no-cache');
  });
  const page = cached(PAGE, 'text/html; charset=utf-8');
  router.get(DOCS, (req, res) => {
    htmlPageHeaders(res, DOCS_PAGE_POLICY);
    sendCached(req, res, page, 'no-cache');
  });
  const initialiser = cached(INITIALISER, 'text/javascript; charset=utf-8');
  router.get(`${DOCS}/init.js`, (req, res) => sendCached(req, res, initialiser, 'no-cache'));
  router.get(`${DOCS}/:asset`, async (req, res, next) => {
    const name = req.params.asset;
    const type = Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined;
    if (!type) {
      next();
      return;
    }
    let asset = assets.get(name);
    if (!asset) {
      asset = fileAsset(join(swaggerUiDir(), name), type);
      assets.set(name, asset);
      asset.catch(() => assets.delete(name));
    }
    // The package's files change only with its version: a day in the cache, then revalidated.
    await sendFile(req, res, await asset, 'public, max-age=86400');
  });
  router.get(SHORT_DOCUMENT, (_req, res) => res.redirect(302, DOCUMENT));
  router.get(SHORT_DOCS, (_req, res) => res.redirect(302, DOCS));
  return router;
}

/** What the document is made of besides the route table and the configuration. */
export interface ApiDocsSources {
  /** The named operations the routes run. */
  operations: ReadonlyMap<string, DocumentNode>;
  /** The schema as the gateway serves it, read when the document is first asked for. */
  schema: () => GraphQLSchema;
  /** `/oai`'s path item (src/oai/openapi.ts). */
  oaiPathItem: Record<string, unknown>;
}

/** The API documentation: static, the same for every caller (no session, no CORS, no body). */
export function mountApiDocs(app: Express, config: Config, sources: ApiDocsSources): void {
  app.use(
    under(
      API_DOCS_PATHS,
      apiDocsRouter((version) =>
        buildOpenApiDocument({
          domains: routeDomains,
          operations: sources.operations,
          schema: sources.schema(),
          baseUrl: config.baseUrl,
          sessionCookie: config.session.cookieName,
          version,
          configured: {
            repositories: [config.baseId, ...config.peers.map((peer) => peer.baseId)],
            peers: config.peers.map((peer) => peer.baseId),
          },
          oai: { pathItem: sources.oaiPathItem },
        }),
      ),
    ),
  );
}
