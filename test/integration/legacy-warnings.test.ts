/**
 * Input the legacy contract ignores (compatibility notes: answered as before, with a default) is
 * answered with a `Warning: 299 - "<text>"` header per ignored input, naming the parameter, the
 * value ignored and the default used; the OpenAPI document declares that header on those routes.
 */
import type { Response } from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { logInWithRoles, tokenHeaders } from '../support/actors.ts';
import { startApp, type TestApp } from '../support/app.ts';
import { type FakeLab, startFakeLab } from '../support/fake-lab.ts';
import { groupName } from '../support/groups.ts';

let app: TestApp;
let lab: FakeLab;

beforeAll(async () => {
  lab = await startFakeLab('labWarnings');
  app = await startApp({ labs: [lab.config()] });
});

afterAll(async () => {
  await app?.close();
  await lab?.close();
});

/** The texts of the response's `Warning` values (one per ignored input), after checking their form. */
function warnings(response: Response): string[] {
  const header = response.headers.warning as string | undefined;
  if (!header) return [];
  const values = header.split(/,\s*(?=299 )/);
  for (const value of values) expect(value).toMatch(/^299 - "(?:[^"\\]|\\.)*"$/);
  return values.map((value) => value.slice('299 - "'.length, -1));
}

async function savedResource(fields: Record<string, unknown> = {}) {
  const response = await app
    .client()
    .post('/api/ressource')
    .set(tokenHeaders)
    .send({ titre: 'Averti', type: 'url', publie: true, restriction: 0, ...fields });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body.oid as number;
}

/** The `Warning` header documented on the success answer of an operation. */
async function documentedWarning(path: string, method: string) {
  const document = (await app.client().get('/api/openapi.json')).body;
  return document.paths[path]?.[method]?.responses?.['200']?.headers?.Warning;
}

describe('ignored input is answered with a Warning', () => {
  it('GET /api/liste: nb, order and format not understood, one warning each', async () => {
    const response = await app.client().get('/api/liste?nb=abc&order=sideways&format=zzz');
    expect(response.status).toBe(200);
    expect(response.body.queryOptions).toMatchObject({ nb: 25, order: 'asc' });
    const texts = warnings(response);
    expect(texts).toHaveLength(3);
    expect(texts.find((text) => text.startsWith('nb'))).toMatch(
      /^nb: 'abc' ignored; 25 \(the default\) used$/,
    );
    expect(texts.find((text) => text.startsWith('order'))).toMatch(/'sideways' ignored.*'asc'/);
    expect(texts.find((text) => text.startsWith('format'))).toMatch(/'zzz' ignored.*'ref'/);
    expect(await documentedWarning('/api/liste', 'get')).toBeDefined();
  });

  it('GET /api/liste: values the service replaces (nb=0, start=-3)', async () => {
    const response = await app.client().get('/api/liste?nb=0&start=-3');
    expect(response.status).toBe(200);
    const texts = warnings(response);
    expect(texts.find((text) => text.startsWith('nb'))).toMatch(/'0' ignored/);
    expect(texts.find((text) => text.startsWith('start'))).toMatch(/'-3' ignored.*0/);
  });

  it('GET /api/liste: plain parameters beside json are ignored', async () => {
    const response = await app.client().get(`/api/liste?json=${encodeURIComponent('{"nb":3}')}&nb=7`);
    expect(response.status).toBe(200);
    expect(response.body.queryOptions.nb).toBe(3);
    expect(warnings(response)).toEqual([expect.stringMatching(/^nb: '7' ignored.*json/)]);
  });

  it('GET /api/jstree: children not understood', async () => {
    const tree = await savedResource({ type: 'arbre', enfants: [] });
    const response = await app.client().get(`/api/jstree?ref=${tree}&children=AAA`);
    expect(response.status).toBe(200);
    expect(warnings(response)).toEqual([expect.stringMatching(/^children: 'AAA' ignored.*whole tree/)]);
    expect(await documentedWarning('/api/jstree', 'get')).toBeDefined();
  });

  it('GET /api/groupe/byNom/:nom: format not understood', async () => {
    const { browser } = await logInWithRoles(app, lab, ['formateur']);
    const nom = groupName('Averti');
    expect((await browser.post('/api/groupe').send({ nom })).status).toBe(200);
    const response = await app.client().get(`/api/groupe/byNom/${encodeURIComponent(nom)}?format=zzz`);
    expect(response.status).toBe(200);
    expect(warnings(response)).toEqual([expect.stringMatching(/^format: 'zzz' ignored/)]);
    expect(await documentedWarning('/api/groupe/byNom/{nom}', 'get')).toBeDefined();
  });

  it('GET /api/ressource/:oid: format and droits not understood', async () => {
    const oid = await savedResource();
    const response = await app.client().get(`/api/ressource/${oid}?format=zzz&droits=yes`).set(tokenHeaders);
    expect(response.status).toBe(200);
    expect(response.body.oid).toBe(oid);
    const texts = warnings(response);
    expect(texts).toHaveLength(2);
    expect(texts.find((text) => text.startsWith('format'))).toMatch(/'zzz' ignored/);
    expect(texts.find((text) => text.startsWith('droits'))).toMatch(/'yes' ignored/);
  });

  it('POST /api/notifyError: a JSON array is not a report', async () => {
    const response = await app.client().post('/api/notifyError').send([1, 2]);
    expect(response.status).toBe(200);
    expect(warnings(response)).toEqual([expect.stringMatching(/^body: a JSON array ignored/)]);
    expect(await documentedWarning('/api/notifyError', 'post')).toBeDefined();
  });

  it('understood input has no warning', async () => {
    const response = await app.client().get('/api/liste?nb=5&order=desc&format=light');
    expect(response.status).toBe(200);
    expect(response.headers.warning).toBeUndefined();
  });
});
