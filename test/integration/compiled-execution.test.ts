/**
 * Compiled execution (graphql-jit, src/graphql/yoga.ts) answers exactly what the interpreter would:
 * a document holding several operations runs the one named by each request, and answers the
 * response cache keeps are whole.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tokenHeaders } from '../support/actors.ts';
import { startApp, type TestApp } from '../support/app.ts';

let app: TestApp;

beforeAll(async () => {
  app = await startApp();
});

afterAll(async () => {
  await app.close();
});

describe('compiled execution', () => {
  it('runs the operation each request names, in a document of several operations', async () => {
    const document = `
      query Kind { viewer { kind } }
      query Values($pattern: String!) { autocomplete(pattern: $pattern) { ... on QueryAutocompleteSuccess { data { index } } } }
    `;
    const run = (operationName: string, variables = {}) =>
      app.client().post('/graphql').send({ query: document, operationName, variables });
    for (let round = 0; round < 2; round++) {
      const kind = await run('Kind');
      expect(kind.body.data, JSON.stringify(kind.body)).toEqual({ viewer: { kind: 'anonymous' } });
      const values = await run('Values', { pattern: 'fr' });
      expect(values.body.errors).toBeUndefined();
      expect(values.body.data).toHaveProperty('autocomplete');
      expect(values.body.data).not.toHaveProperty('viewer');
    }
  });

  it('serves whole public answers, fresh and kept, after writes', async () => {
    for (const titre of ['Premier', 'Second']) {
      const created = await app
        .client()
        .post('/api/ressource')
        .set(tokenHeaders)
        .send({ titre, type: 'url', publie: true, relations: [[1, 'ailleurs/3']] });
      expect(created.body.success).toBe(true);
      for (let read = 0; read < 2; read++) {
        const answer = await app.client().get(`/api/public/${created.body.oid}`);
        expect(answer.body).toMatchObject({ success: true, titre, relations: [[1, 'ailleurs/3']] });
      }
    }
  });
});
