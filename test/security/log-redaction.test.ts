/**
 * Logs never hold what grants access: lab login tokens (also in query strings and referers), API
 * tokens, session cookies, read keys, and secret-looking fields of reported errors.
 */
import { Writable } from 'node:stream';
import request from 'supertest';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createApp } from '../../src/app.ts';
import { createLogger } from '../../src/logging/logger.ts';
import { API_TOKEN, testConfig } from '../support/app.ts';
import { type FakeLab, labUser, startFakeLab } from '../support/fake-lab.ts';

let lab: FakeLab;
const lines: string[] = [];
let instance: Awaited<ReturnType<typeof createApp>>;

beforeAll(async () => {
  lab = await startFakeLab('labL');
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  instance = await createApp(testConfig({ labs: [lab.config()] }), { logger: createLogger('debug', sink) });
});

afterAll(async () => {
  await instance.close();
  await lab.close();
});

it('writes no credential, whatever carries it', async () => {
  const client = () => request(instance.app);
  const agent = request.agent(instance.app);
  const loginToken = lab.tokenFor(labUser());
  const login = await agent.get('/api/connexion').query({ origine: lab.baseUrl, token: loginToken });
  expect(login.body).toEqual({ success: true });
  const cookie = String(login.headers['set-cookie']).split(';')[0]!.split('=')[1]!;
  const refusedToken = lab.refusingToken();
  await client().get('/api/connexion').query({ origine: lab.baseUrl, token: refusedToken });
  await client()
    .post('/api/connexion')
    .send({ origine: lab.baseUrl, token: `${refusedToken}-posted` });
  await agent.get('/api/personne/current').set('Referer', `http://repo.test/page?token=REFERER-SECRET&x=1`);
  await client().get('/api/personne/me').set('X-ApiToken', API_TOKEN);
  await client().get('/api/personne/me').set('X-ApiToken', 'WRONG-API-TOKEN-0123456789');
  await client().get('/api/personne/me').set('Authorization', 'Bearer AUTHORIZATION-SECRET');

  const created = await client()
    .post('/api/ressource')
    .set('X-ApiToken', API_TOKEN)
    .send({ titre: 'Privée', type: 'url', categories: [7], publie: true, restriction: 3 });
  const { oid } = created.body;
  const { cle } = (await client().get(`/api/ressource/${oid}`).set('X-ApiToken', API_TOKEN)).body;
  expect(cle).toEqual(expect.any(String));
  await client().get(`/api/ressource/cle/${cle}`).set('Cookie', `connect.sid=${cookie}`);
  await client()
    .get('/api/public/getRid')
    .query({ id: `cle/${cle}` });
  await client()
    .post('/api/notifyError')
    .send({ message: 'boom', token: 'REPORTED-TOKEN', context: { password: 'REPORTED-PASSWORD' } });

  const log = lines.join('\n');
  for (const secret of [
    loginToken,
    refusedToken,
    'REFERER-SECRET',
    API_TOKEN,
    'WRONG-API-TOKEN',
    'AUTHORIZATION-SECRET',
    cookie,
    decodeURIComponent(cookie),
    cle,
    'REPORTED-TOKEN',
    'REPORTED-PASSWORD',
  ]) {
    expect(log, `${secret} in ${lines.find((line) => line.includes(secret))}`).not.toContain(secret);
  }
  // Of a query string, the request line keeps the parameter names only.
  const loginLine = lines
    .map((line) => JSON.parse(line))
    .find((line) => line.path?.startsWith('/api/connexion?'));
  expect(loginLine.path).toBe('/api/connexion?origine&token');
  expect(log).toMatch(/cle\/\*\*\*|cle%2F\*\*\*/);
});
