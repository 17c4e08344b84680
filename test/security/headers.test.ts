/**
 * Security headers: nothing the service answers is sniffed, run or framed elsewhere; the GraphiQL
 * page runs only its own scripts and is framed by this service only.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../support/app.ts';

let app: TestApp;

beforeAll(async () => {
  app = await startApp();
});

afterAll(async () => {
  await app.close();
});

describe('JSON answers', () => {
  it.each([
    ['GET', '/api/personne/current'],
    ['GET', '/api/nothing/here'],
    ['POST', '/graphql'],
    ['GET', '/healthz'],
    ['GET', '/api/liste'],
  ])('%s %s: nosniff, nothing may run, framed by nobody', async (method, path) => {
    const call =
      method === 'GET'
        ? app.client().get(path)
        : app.client().post(path).send({ query: '{ viewer { kind } }' });
    const response = await call;
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(response.headers['content-security-policy']).toMatch(/default-src 'none'/);
    expect(response.headers['content-security-policy']).toMatch(/frame-ancestors 'none'/);
    expect(response.headers['x-frame-options']).toBe('DENY');
    expect(response.headers['x-powered-by']).toBeUndefined();
    expect(response.headers['cross-origin-resource-policy']).toBe('same-origin');
  });

  it('/public/ answers may be read from any site', async () => {
    const response = await app.client().get('/api/public/1');
    expect(response.headers['cross-origin-resource-policy']).toBe('cross-origin');
    expect(response.headers['x-content-type-options']).toBe('nosniff');
  });
});

describe('the GraphiQL page', () => {
  it('allows its own inline scripts only, by digest, and framing by this service only', async () => {
    const response = await app.client().get('/graphql').set('Accept', 'text/html');
    expect(response.status).toBe(200);
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(response.headers['x-frame-options']).toBe('SAMEORIGIN');
    const policy = response.headers['content-security-policy'] as string;
    const directives = Object.fromEntries(
      policy.split(';').map((directive) => {
        const [name, ...values] = directive.trim().split(/\s+/);
        return [name, values];
      }),
    );
    expect(directives['frame-ancestors']).toEqual(["'self'"]);
    expect(directives['object-src']).toEqual(["'none'"]);
    const scripts = [...response.text.matchAll(/<script>([\s\S]*?)<\/script>/g)].map(
      (match) => `'sha256-${createHash('sha256').update(match[1]!).digest('base64')}'`,
    );
    expect(scripts.length).toBeGreaterThan(0);
    expect(directives['script-src']).toEqual(["'self'", ...scripts]);
    expect(policy).not.toMatch(/unsafe-eval/);
    expect(directives['script-src']).not.toContain("'unsafe-inline'");
    // No script from anywhere else.
    expect(response.text).not.toMatch(/<script[^>]+src=/);
  });

  it('is the same page on every visit (rendered once)', async () => {
    const first = await app.client().get('/graphql').set('Accept', 'text/html');
    const second = await app.client().get('/graphql').set('Accept', 'text/html');
    expect(second.text).toBe(first.text);
    expect(second.headers['content-security-policy']).toBe(first.headers['content-security-policy']);
  });
});
