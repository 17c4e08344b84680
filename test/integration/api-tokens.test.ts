/**
 * Issued API tokens (`rrs token issue`): usable wherever a configured token is (REST and GraphQL),
 * stored as digests only, refused at once once revoked or expired, on every instance sharing the
 * database, and at most one look-up per request.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueApiToken, listApiTokens, revokeApiToken } from '../../src/auth/api-tokens.ts';
import { db, onStatement } from '../../src/db/client.ts';
import { startApp, type TestApp } from '../support/app.ts';
import { graphql } from '../support/graphql.ts';

let app: TestApp;
/** A second instance on the same database, as behind a load balancer. */
let other: TestApp;

beforeAll(async () => {
  // No configured token: only issued ones can work.
  app = await startApp({ apiTokens: [] });
  other = await startApp({ apiTokens: [] });
});

afterAll(async () => {
  await app.close();
  await other.close();
});

const unique = () => `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 7)}`;
const VIEWER = '{ viewer { kind allRights } }';

const addPerson = (instance: TestApp, token: string) =>
  instance
    .client()
    .post('/api/personne/add')
    .set('X-ApiToken', token)
    .send({ origine: 'tok', idOrigine: unique(), nom: 'Jeton', prenom: 'Test' });

describe('issued API tokens', () => {
  it('give all rights through REST and GraphQL, on every instance', async () => {
    const issued = await issueApiToken({ name: `ci-${unique()}` });
    expect(issued.token).toMatch(/^rrs_[\w-]{43}$/);
    for (const instance of [app, other]) {
      expect((await addPerson(instance, issued.token)).body).toMatchObject({ success: true });
      const answer = await graphql(instance.client(), VIEWER, {}, { 'X-ApiToken': issued.token });
      expect(answer.data?.viewer).toEqual({ kind: 'token', allRights: true });
    }
  });

  it('are stored as digests: the secret is in no column and in no listing', async () => {
    const issued = await issueApiToken({ name: `secret-${unique()}` });
    const row = await db.apiToken.findUniqueOrThrow({ where: { id: issued.id } });
    expect(JSON.stringify(row)).not.toContain(issued.token.slice(4));
    const listed = (await listApiTokens()).find((token) => token.id === issued.id);
    expect(listed).toEqual({
      id: issued.id,
      name: issued.name,
      status: 'active',
      createdAt: expect.any(Date),
      expiresAt: null,
      revokedAt: null,
    });
    expect(JSON.stringify(await listApiTokens())).not.toContain(issued.token.slice(4));
  });

  it('are refused at once on every instance once revoked, by id or by name', async () => {
    for (const by of ['id', 'name'] as const) {
      const issued = await issueApiToken({ name: `revoked-${unique()}` });
      expect((await addPerson(other, issued.token)).status).toBe(200);
      const revoked = await revokeApiToken(by === 'id' ? String(issued.id) : issued.name);
      expect(revoked).toMatchObject({ id: issued.id, status: 'revoked', revokedAt: expect.any(Date) });
      for (const instance of [app, other]) {
        expect((await addPerson(instance, issued.token)).status).toBe(401);
        const answer = await graphql(instance.client(), VIEWER, {}, { 'X-ApiToken': issued.token });
        expect(answer.data?.viewer).toEqual({ kind: 'anonymous', allRights: false });
      }
    }
  });

  it('are refused once expired', async () => {
    const issued = await issueApiToken({ name: `expiring-${unique()}`, expiresInDays: 1 });
    expect(issued.expiresAt!.getTime()).toBeGreaterThan(Date.now() + 86_000_000);
    expect((await addPerson(app, issued.token)).status).toBe(200);
    await db.apiToken.update({ where: { id: issued.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expect((await addPerson(app, issued.token)).status).toBe(401);
    expect((await listApiTokens()).find((token) => token.id === issued.id)?.status).toBe('expired');
  });

  it('cost one look-up of the token per request, on /graphql as on REST', async () => {
    const issued = await issueApiToken({ name: `cost-${unique()}` });
    for (const send of [
      () => graphql(app.client(), VIEWER, {}, { 'X-ApiToken': issued.token }),
      () => app.client().get('/api/personne/me').set('X-ApiToken', issued.token),
    ]) {
      const statements: string[] = [];
      const stop = onStatement((sql) => statements.push(sql));
      try {
        await send();
      } finally {
        stop();
      }
      // Quoted "ApiToken" on PostgreSQL, `ApiToken` on SQLite.
      expect(statements.filter((sql) => /FROM [^ ]*ApiToken\W/.test(sql))).toHaveLength(1);
    }
  });

  it('refuse bad names, duplicate names and unknown tokens with clear errors', async () => {
    const name = `dup-${unique()}`;
    await issueApiToken({ name });
    await expect(issueApiToken({ name })).rejects.toMatchObject({ code: 'CONFLICT' });
    await expect(issueApiToken({ name: '  ' })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(issueApiToken({ name: '42' })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(issueApiToken({ name: `x-${unique()}`, expiresInDays: 0 })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
    await expect(revokeApiToken('no-such-token')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(revokeApiToken('99999999999999999999')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});

describe('a token not recognised', () => {
  const WARNING = '299 - "X-ApiToken not recognised: answered as an anonymous caller"';
  const graphqlAs = (token: string | undefined, query = VIEWER) => {
    const call = app.client().post('/graphql');
    return (token === undefined ? call : call.set('X-ApiToken', token)).send({ query });
  };

  /** A wrong token, a revoked one, placeholders left in a client's configuration, one that cannot be decoded. */
  async function unrecognisedTokens() {
    const revoked = await issueApiToken({ name: `gone-${unique()}` });
    await revokeApiToken(String(revoked.id));
    return [`rrs_${unique()}`, revoked.token, '<your token here>', 'changeme', '%E0%A4%A'];
  }

  it('is served as anonymous, as ever, with a Warning saying so, through REST and GraphQL', async () => {
    for (const token of await unrecognisedTokens()) {
      const me = await app.client().get('/api/personne/me').set('X-ApiToken', token);
      expect(me.status, token).toBe(200);
      expect(me.body.kind, token).toBe('anonymous');
      expect(me.headers.warning, token).toBe(WARNING);
      // Refused for want of rights: the warning tells the client why it was taken for nobody.
      const add = await addPerson(app, token);
      expect(add.status, token).toBe(401);
      expect(add.headers.warning, token).toBe(WARNING);
      const answer = await graphqlAs(token);
      expect(answer.status, token).toBe(200);
      expect(answer.body.data.viewer, token).toEqual({ kind: 'anonymous', allRights: false });
      expect(answer.headers.warning, token).toBe(WARNING);
    }
  });

  it('gives no warning to a valid token, to a request without one, or where no token is read', async () => {
    const issued = await issueApiToken({ name: `fine-${unique()}` });
    const valid = await app.client().get('/api/personne/me').set('X-ApiToken', issued.token);
    expect(valid.body.kind).toBe('token');
    expect(valid.headers).not.toHaveProperty('warning');
    expect((await graphqlAs(issued.token)).headers).not.toHaveProperty('warning');
    expect((await app.client().get('/api/personne/me')).headers).not.toHaveProperty('warning');
    // An empty header is no token (nor counted as a wrong one).
    expect((await app.client().get('/api/personne/me').set('X-ApiToken', '')).headers).not.toHaveProperty(
      'warning',
    );
    expect((await graphqlAs(undefined)).headers).not.toHaveProperty('warning');
    // /api/public/ routes answer every caller as anonymous without examining a token: nothing to say.
    const publicRead = await app.client().get('/api/public/999999999').set('X-ApiToken', `rrs_${unique()}`);
    expect(publicRead.status).toBe(404);
    expect(publicRead.headers).not.toHaveProperty('warning');
  });

  it('is answered 429 once it failed too often, without the warning of an answer it did not get', async () => {
    const token = `rrs_${unique()}`;
    for (let i = 0; i < 10; i++) {
      expect((await app.client().get('/api/personne/me').set('X-ApiToken', token)).headers.warning).toBe(
        WARNING,
      );
    }
    for (const limited of [
      await app.client().get('/api/personne/me').set('X-ApiToken', token),
      await graphqlAs(token),
    ]) {
      expect(limited.status).toBe(429);
      expect(limited.headers).not.toHaveProperty('warning');
    }
  });
});
