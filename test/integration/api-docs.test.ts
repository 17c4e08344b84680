/**
 * API documentation served by the service: the OpenAPI 3.1 document generated from the route
 * table, the Swagger UI page under its own CSP, and the GraphiQL page sent compressed and
 * revalidated (a second visit does not download the page again).
 */
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { legacyRoutes } from '../../src/rest/routes/index.ts';
import { tokenHeaders } from '../support/actors.ts';
import { startApp, type TestApp } from '../support/app.ts';

let app: TestApp;
let server: Server;
let base: string;

beforeAll(async () => {
  app = await startApp();
  server = createServer(app.app);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((done) => server.close(done));
  await app.close();
});

interface WireResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** Bytes as they crossed the wire (still compressed). */
  wireBytes: number;
}

/** A GET that keeps the body as sent: supertest would decompress it before we could count. */
function wireGet(path: string, headers: Record<string, string> = {}): Promise<WireResponse> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(`${base}${path}`, { headers }, (response) => {
      let wireBytes = 0;
      response.on('data', (chunk: Buffer) => {
        wireBytes += chunk.length;
      });
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, wireBytes }),
      );
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end();
  });
}

/** The documented path of an Express path: parameter names may differ (one name per template). */
const documentedPath = (document: { paths: Record<string, unknown> }, expressPath: string) => {
  const template = expressPath.replace(/:\w+/g, '{}');
  return Object.keys(document.paths).find((path) => path.replace(/\{\w+\}/g, '{}') === template);
};

describe('the OpenAPI document', () => {
  it('is served at /api/openapi.json and is a valid OpenAPI 3.1 document', async () => {
    const response = await app.client().get('/api/openapi.json');
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/application\/json/);
    expect(response.body.openapi).toMatch(/^3\.1\./);
    const validator = new Validator();
    const result = await validator.validate(response.body);
    expect(result.errors, JSON.stringify(result.errors, null, 2)).toBeUndefined();
    expect(result.valid).toBe(true);
  });

  it('documents every path and method of the route table, with its path parameters', async () => {
    const { body: document } = await app.client().get('/api/openapi.json');
    for (const route of legacyRoutes) {
      if (route.method === 'options') continue;
      for (const path of route.paths) {
        const key = documentedPath(document, path);
        const operation = key && document.paths[key]?.[route.method];
        expect(operation, `${route.method} ${path}`).toBeDefined();
        const names = [...key!.matchAll(/\{(\w+)\}/g)].map((match) => match[1]);
        const documented = (operation.parameters ?? [])
          .filter((parameter: { in: string }) => parameter.in === 'path')
          .map((parameter: { name: string }) => parameter.name);
        expect(documented).toEqual(names);
        expect(operation.summary, `${route.method} ${path}`).toBeTruthy();
        // Only a row that can never succeed (a /public/ route needing credentials) documents none.
        if (!/^Always refused/m.test(operation.description))
          expect(Object.keys(operation.responses)).toContain(String(route.status ?? 200));
      }
    }
  });

  it('is linked from the short addresses /openapi.json and /docs', async () => {
    expect((await app.client().get('/openapi.json')).headers.location).toBe('/api/openapi.json');
    expect((await app.client().get('/docs')).headers.location).toBe('/api/docs');
  });
});

describe('the Swagger UI page', () => {
  it('is served from the service, scripts from this origin only', async () => {
    const response = await app.client().get('/api/docs');
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/text\/html/);
    expect(response.text).toContain('swagger-ui');
    const policy = response.headers['content-security-policy'] as string;
    expect(policy).toMatch(/script-src 'self'(;|$)/);
    expect(policy).toMatch(/frame-ancestors 'self'/);
    expect(policy).not.toMatch(/unsafe-eval|script-src[^;]*unsafe-inline/);
    // Every script and stylesheet the page names is served here.
    const assets = [...response.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]!);
    expect(assets.length).toBeGreaterThanOrEqual(3);
    for (const asset of assets) {
      expect(asset).not.toMatch(/^(https?:)?\/\//);
      const served = await app.client().get(new URL(asset, `${base}/api/docs`).pathname);
      expect(served.status, asset).toBe(200);
    }
  });
});

describe('compression and caching', () => {
  it('sends the GraphiQL page compressed, then answers a second visit with 304', async () => {
    const plain = await wireGet('/graphql', { Accept: 'text/html' });
    // As a browser asks: brotli is chosen although listed after gzip (smaller).
    const first = await wireGet('/graphql', { Accept: 'text/html', 'Accept-Encoding': 'gzip, deflate, br' });
    expect(first.status).toBe(200);
    expect(first.headers['content-encoding']).toBe('br');
    expect(first.wireBytes).toBeLessThan(plain.wireBytes / 3);
    expect(first.headers['cache-control']).toMatch(/no-cache/);
    const etag = first.headers.etag as string;
    expect(etag).toBeTruthy();
    const second = await wireGet('/graphql', {
      Accept: 'text/html',
      'Accept-Encoding': 'gzip, deflate, br',
      'If-None-Match': etag,
    });
    expect(second.status).toBe(304);
    expect(second.wireBytes).toBe(0);
    console.log(
      `GraphiQL page on the wire: ${plain.wireBytes} bytes plain, ${first.wireBytes} compressed (${first.headers['content-encoding']}), ${second.wireBytes} on a second visit`,
    );
  });

  it('compresses large JSON answers, not small ones', async () => {
    const large = await wireGet('/api/openapi.json', { 'Accept-Encoding': 'gzip' });
    expect(large.headers['content-encoding']).toBe('gzip');
    const small = await wireGet('/api/personne/current', { 'Accept-Encoding': 'gzip' });
    expect(small.status).toBe(200);
    expect(small.headers['content-encoding']).toBeUndefined();
  });

  it('keeps ETags and 304 of /public/ answers when the client accepts compression', async () => {
    const saved = await app
      .client()
      .post('/api/ressource')
      .set(tokenHeaders)
      .send({
        origine: 'docs',
        idOrigine: 'etag',
        titre: 'Publique',
        type: 'url',
        categories: [7],
        publie: true,
        restriction: 0,
      });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    const path = `/api/public/${saved.body.oid}`;
    const first = await wireGet(path, { 'Accept-Encoding': 'gzip' });
    expect(first.status).toBe(200);
    const etag = first.headers.etag as string;
    expect(etag).toBeTruthy();
    const again = await wireGet(path, { 'Accept-Encoding': 'gzip', 'If-None-Match': etag });
    expect(again.status).toBe(304);
    expect(again.wireBytes).toBe(0);
  });

  it('leaves event streams uncompressed', async () => {
    const response = await app
      .client()
      .post('/graphql')
      .set('Accept', 'text/event-stream')
      .set('Accept-Encoding', 'gzip, br')
      // Well above the compression threshold.
      .send({ query: '{ viewer { kind } __schema { types { name description } } }' });
    expect(response.headers['content-type']).toMatch(/^text\/event-stream/);
    // Yoga marks its streams `Content-Encoding: none`: no gzip nor brotli in between.
    expect(response.headers['content-encoding'] ?? 'none').toBe('none');
    expect(response.text).toContain('event: next');
    expect(response.text).toContain('anonymous');
    expect(response.text.length).toBeGreaterThan(4096);
  });

  it('leaves the Swagger UI assets cacheable and compressed', async () => {
    const response = await wireGet('/api/docs/swagger-ui-bundle.js', { 'Accept-Encoding': 'gzip' });
    expect(response.status).toBe(200);
    expect(response.headers['content-encoding']).toBe('gzip');
    expect(response.headers['cache-control']).toMatch(/max-age=\d+/);
  });
});

/** A GET whose client goes away at the first bytes of the body, as a closed browser tab does. */
function abandonedGet(path: string, headers: Record<string, string> = {}): Promise<void> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(`${base}${path}`, { headers }, (response) => {
      response.once('data', () => {
        request.destroy();
        resolve();
      });
      response.on('end', () =>
        reject(new Error(`${path}: the whole body came before the client could leave`)),
      );
    });
    request.on('error', () => undefined);
    request.end();
  });
}

describe('a client that leaves in the middle of a file', () => {
  it('costs nothing: no unhandled error, and the next visitor gets the whole file', async () => {
    const unhandled: unknown[] = [];
    const record = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', record);
    try {
      for (const [path, headers] of [
        ['/api/docs/swagger-ui-bundle.js', {}],
        ['/api/docs/swagger-ui-bundle.js', { 'Accept-Encoding': 'gzip' }],
        ['/graphql', { Accept: 'text/html' }],
        ['/graphql', { Accept: 'text/html', 'Accept-Encoding': 'br' }],
      ] as const) {
        await abandonedGet(path, headers);
      }
      // The service notices the closed sockets on its next turns.
      await new Promise((done) => setTimeout(done, 300));
      expect(unhandled).toEqual([]);
      const whole = await wireGet('/api/docs/swagger-ui-bundle.js');
      expect(whole.status).toBe(200);
      expect(whole.wireBytes).toBe(Number(whole.headers['content-length']));
    } finally {
      process.off('unhandledRejection', record);
    }
  });
});
