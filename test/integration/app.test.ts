/** Cross-cutting behaviour of the app: errors, limits, request ids and logs, CORS, probes, GraphiQL. */
import { Writable } from 'node:stream';
import { pino } from 'pino';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.ts';
import { db, onStatement } from '../../src/db/client.ts';
import { startApp, type TestApp, testConfig } from '../support/app.ts';
import { type FakeLab, labUser, startFakeLab } from '../support/fake-lab.ts';
import { graphql } from '../support/graphql.ts';

let lab: FakeLab;
let app: TestApp;

beforeAll(async () => {
  lab = await startFakeLab('labC');
  app = await startApp({ labs: [lab.config()], http: { bodyLimit: '2kb' } });
});

afterAll(async () => {
  await app.close();
  await lab.close();
});

describe('unknown routes and bad bodies', () => {
  it.each(['get', 'post', 'delete'] as const)(
    'answers 404 JSON to %s on an unknown /api path',
    async (method) => {
      const response = await app.client()[method]('/api/nothing/here');
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ success: false, error: 'Cette page ou ce fichier n’existe pas' });
    },
  );

  it('answers 404 JSON to a known path with an unknown method', async () => {
    const response = await app.client().delete('/api/personne/current');
    expect(response.status).toBe(404);
    expect(response.body.success).toBe(false);
  });

  it('answers 400 to malformed JSON, on /api and /graphql', async () => {
    const rest = await app
      .client()
      .post('/api/connexion')
      .set('Content-Type', 'application/json')
      .send('{"origine":');
    expect(rest.status).toBe(400);
    expect(rest.body).toEqual({ success: false, error: 'Le corps de la requête n’est pas du JSON valide' });
    const gql = await app.client().post('/graphql').set('Content-Type', 'application/json').send('{"query":');
    expect(gql.status).toBe(400);
  });

  it('answers 413 to a body over the limit, and writes nothing', async () => {
    const count = await db.person.count();
    const response = await app
      .client()
      .post('/api/personne/add')
      .set('X-ApiToken', 'whatever')
      .send({ origine: 'x', idOrigine: '1', nom: 'x'.repeat(5000), prenom: 'p' });
    expect(response.status).toBe(413);
    expect(response.body).toEqual({ success: false, error: 'Le corps de la requête est trop volumineux' });
    const gql = await app
      .client()
      .post('/graphql')
      .send({ query: `{ viewer { kind } } # ${'x'.repeat(5000)}` });
    expect(gql.status).toBe(413);
    expect(await db.person.count()).toBe(count);
  });
});

describe('request ids and logs', () => {
  it('generates an X-Request-Id, keeps a well-formed incoming one, replaces a malformed one', async () => {
    const generated = await app.client().get('/api/personne/current');
    expect(generated.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const kept = await app.client().get('/api/personne/current').set('X-Request-Id', 'lb-123.abc');
    expect(kept.headers['x-request-id']).toBe('lb-123.abc');
    const replaced = await app
      .client()
      .get('/api/personne/current')
      .set('X-Request-Id', 'bad id with spaces & "quotes"');
    expect(replaced.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('puts the request id on every log line of a request, including domain logs', async () => {
    const lines: Record<string, unknown>[] = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
        done();
      },
    });
    const instance = await createApp(testConfig({ labs: [lab.config()] }), {
      logger: pino({ level: 'info' }, sink),
    });
    try {
      const response = await request(instance.app)
        .post('/api/connexion')
        .set('X-Request-Id', 'trace-42')
        .send({ origine: lab.baseUrl, token: lab.tokenFor(labUser()) });
      expect(response.body).toEqual({ success: true });
      const ofRequest = lines.filter((line) => JSON.stringify(line).includes('trace-42'));
      expect(ofRequest.map((line) => line.msg)).toEqual(
        expect.arrayContaining(['lab login', 'request completed']),
      );
      for (const line of ofRequest) expect(line.reqId).toBe('trace-42');
    } finally {
      await instance.close();
    }
  });
});

describe('the root address', () => {
  it('GET / says what the service is and where its interfaces are, each link answering', async () => {
    const response = await app.client().get('/');
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      service: 'Resource Repository Service',
      baseId: expect.any(String),
      links: {
        graphql: '/graphql',
        apiDocs: '/api/docs',
        openApi: '/api/openapi.json',
        health: '/healthz',
        ready: '/readyz',
      },
    });
    for (const link of Object.values(response.body.links as Record<string, string>)) {
      const linked = await app.client().get(link).set('Accept', 'text/html');
      expect(linked.status, link).toBe(200);
    }
  });
});

describe('probes', () => {
  it('GET /healthz answers 200 while the process serves', async () => {
    const response = await app.client().get('/healthz');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ status: 'ok' });
  });

  it('GET /readyz answers 200 when the database answers', async () => {
    const response = await app.client().get('/readyz');
    expect(response.status).toBe(200);
  });
});

describe('CORS', () => {
  const labOrigin = () => new URL(lab.baseUrl).origin;

  it('allows credentials to a configured lab origin only', async () => {
    const fromLab = await app.client().get('/api/personne/current').set('Origin', labOrigin());
    expect(fromLab.headers['access-control-allow-origin']).toBe(labOrigin());
    expect(fromLab.headers['access-control-allow-credentials']).toBe('true');
    const fromElsewhere = await app
      .client()
      .get('/api/personne/current')
      .set('Origin', 'https://evil.example');
    expect(fromElsewhere.headers['access-control-allow-origin']).toBeUndefined();
    expect(fromElsewhere.headers['access-control-allow-credentials']).toBeUndefined();
  });

  it('lets a lab page read the Warning of an unrecognised token, and the request id', async () => {
    const response = await app
      .client()
      .get('/api/personne/current')
      .set('Origin', labOrigin())
      .set('X-ApiToken', 'not-a-token-here');
    expect(response.headers.warning).toMatch(/^299 - "X-ApiToken not recognised/);
    expect(response.headers['access-control-expose-headers']).toBe('X-Request-Id,Warning');
  });

  it('sends Access-Control-Allow-Origin: * on /public/ routes, without credentials', async () => {
    const response = await app.client().get('/api/public/123').set('Origin', 'https://anyone.example');
    expect(response.headers['access-control-allow-origin']).toBe('*');
    expect(response.headers['access-control-allow-credentials']).toBeUndefined();
  });

  it('answers OPTIONS preflights on any /api path', async () => {
    const response = await app
      .client()
      .options('/api/personne/add')
      .set('Origin', labOrigin())
      .set('Access-Control-Request-Method', 'POST');
    expect(response.status).toBe(204);
    expect(response.headers['access-control-allow-origin']).toBe(labOrigin());
    expect(response.headers['access-control-allow-methods']).toBe('GET,POST,DELETE,OPTIONS');
    expect(response.headers['access-control-allow-headers']).toMatch(/X-ApiToken/);
  });
});

describe('GraphQL endpoint', () => {
  it('serves GraphiQL to a browser, without any CDN', async () => {
    const response = await app.client().get('/graphql').set('Accept', 'text/html');
    expect(response.status).toBe(200);
    expect(response.text).toMatch(/GraphiQL/);
    expect(response.text).not.toMatch(/unpkg\.com|jsdelivr/);
  });

  it('refuses too many aliases', async () => {
    const aliases = Array.from({ length: 30 }, (_, i) => `a${i}: viewer { kind }`).join(' ');
    const response = await graphql(app.client(), `{ ${aliases} }`);
    expect(response.data).toBeUndefined();
    expect(response.errors?.[0]?.message).toMatch(/aliases/i);
  });

  it('refuses queries deeper than the limit', async () => {
    const shallow = await startApp({ graphql: { maxDepth: 2 } });
    try {
      const response = await graphql(shallow.client(), '{ viewer { person { pid } } }');
      expect(response.data).toBeUndefined();
      expect(response.errors?.[0]?.message).toMatch(/depth/i);
      const ok = await graphql(shallow.client(), '{ viewer { kind } }');
      expect(ok.data?.viewer).toEqual({ kind: 'anonymous' });
    } finally {
      await shallow.close();
    }
  });

  it('does not suggest field names to probing clients', async () => {
    const response = await graphql(app.client(), '{ viewer { kin } }');
    expect(response.errors?.[0]?.message).not.toMatch(/Did you mean/);
  });
});

describe('sessions', () => {
  it('do not write to the store on every request of a logged-in user', async () => {
    const browser = app.browser();
    const login = await browser
      .post('/api/connexion')
      .send({ origine: lab.baseUrl, token: lab.tokenFor(labUser()) });
    expect(login.body).toEqual({ success: true });
    expect((await browser.get('/api/personne/current')).status).toBe(200);
    const statements: string[] = [];
    const stop = onStatement((sql) => statements.push(sql));
    try {
      for (let i = 0; i < 5; i++) await browser.get('/api/personne/current');
    } finally {
      stop();
    }
    const sessionWrites = statements.filter(
      (sql) => /^(UPDATE|INSERT|DELETE)/i.test(sql.trim()) && sql.includes('Session'),
    );
    expect(sessionWrites).toEqual([]);
    // Per request: the session, the caller and their roles (once, in the context), and the
    // `viewer.person` field of the operation.
    expect(statements.length).toBeLessThanOrEqual(5 * 4);
  });

  it('keep token rights when a token caller logs in within the same request', async () => {
    const response = await graphql(
      app.client(),
      'mutation ($o: String, $t: String) { login(origine: $o, token: $t) { ... on Viewer { kind allRights } } }',
      { o: lab.baseUrl, t: lab.tokenFor(labUser()) },
      { 'X-ApiToken': 'test-api-token-0123456789' },
    );
    expect(response.data?.login).toEqual({ kind: 'person', allRights: true });
  });
});
