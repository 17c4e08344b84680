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
