/**
 * What retention needs from requests: every login that starts a session (lab, development login)
 * records the person's last login, which a refused login does not touch; and client addresses
 * reach the log as `logging.clientAddress` says (the refused remote development login is where
 * the service logs one).
 */
import { Writable } from 'node:stream';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, createApp } from '../../src/app.ts';
import type { ConfigInput } from '../../src/config.ts';
import { db } from '../../src/db/client.ts';
import { createLogger } from '../../src/logging/logger.ts';
import { addPerson, logIn } from '../support/actors.ts';
import { startApp, type TestApp, testConfig } from '../support/app.ts';
import { type FakeLab, labUser, startFakeLab } from '../support/fake-lab.ts';

let lab: FakeLab;
let app: TestApp;

beforeAll(async () => {
  lab = await startFakeLab('labLastLogin');
  app = await startApp({ labs: [lab.config()], devLogin: true });
});

afterAll(async () => {
  await app.close();
  await lab.close();
});

const lastLoginOf = async (pid: string) =>
  (await db.person.findUniqueOrThrow({ where: { pid }, select: { lastLoginAt: true } })).lastLoginAt;

describe('last login', () => {
  it('is recorded by a lab login, and left alone by a refused one', async () => {
    const user = labUser({ type: 0 });
    const pid = `${lab.baseId}/${user.oid}`;
    await addPerson(app, { origine: lab.baseId, idOrigine: String(user.oid), nom: 'N', prenom: 'P' });
    expect(await lastLoginOf(pid)).toBeNull();

    const refused = await app
      .client()
      .post('/api/connexion')
      .send({ origine: lab.baseUrl, token: lab.refusingToken() });
    expect(refused.body.success).toBe(false);
    expect(await lastLoginOf(pid)).toBeNull();

    const before = Date.now();
    await logIn(app, lab, user);
    const recorded = await lastLoginOf(pid);
    expect(recorded?.getTime()).toBeGreaterThanOrEqual(before - 1000);
    expect(recorded?.getTime()).toBeLessThanOrEqual(Date.now());
  });

  it('is recorded by the development login (REST and GraphQL)', async () => {
    const pid = `dev/last${Date.now().toString(36)}`;
    const rest = await app.browser().post('/api/dev/connexion').send({ pid });
    expect(rest.body).toMatchObject({ success: true, pid });
    const first = await lastLoginOf(pid);
    expect(first).toBeInstanceOf(Date);

    await new Promise((resolve) => setTimeout(resolve, 5));
    const graphql = await app
      .client()
      .post('/graphql')
      .send({ query: `mutation { devLogin(pid: "${pid}") { __typename } }` });
    expect(graphql.body.data.devLogin.__typename).toBe('Viewer');
    expect((await lastLoginOf(pid))!.getTime()).toBeGreaterThan(first!.getTime());
  });
});

describe('client addresses in logs', () => {
  /** An app trusting its proxy, logging into `lines`, with `logging.clientAddress` as given. */
  async function loggedApp(clientAddress?: 'full' | 'truncated' | 'none') {
    const lines: Record<string, unknown>[] = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
        done();
      },
    });
    const overrides: Partial<ConfigInput> = {
      devLogin: true,
      http: { trustProxy: true },
      ...(clientAddress ? { logging: { clientAddress } } : {}),
    };
    const instance: App = await createApp(testConfig(overrides), { logger: createLogger('info', sink) });
    return { instance, lines };
  }

  /** The address the refused remote development login logs (absent: none), for a forwarded client. */
  async function loggedAddress(setting: 'full' | 'truncated' | 'none' | undefined, forwarded: string) {
    const { instance, lines } = await loggedApp(setting);
    try {
      const response = await request(instance.app)
        .post('/api/dev/connexion')
        .set('X-Forwarded-For', forwarded)
        .send({ pid: 'dev/remote' });
      expect(response.status).toBe(403);
      const refusal = lines.find((line) => line.msg === 'development login refused to a remote caller');
      expect(refusal).toBeDefined();
      if (setting !== 'full') expect(JSON.stringify(lines)).not.toContain(forwarded);
      return refusal!.address;
    } finally {
      await instance.close();
    }
  }

  it('are truncated by default: IPv4 /24, IPv6 /48', async () => {
    expect(await loggedAddress(undefined, '203.0.113.77')).toBe('203.0.113.0');
    expect(await loggedAddress('truncated', '2001:db8:abcd:12::9')).toBe('2001:db8:abcd::/48');
  });

  it('are dropped with none, and kept whole with full', async () => {
    expect(await loggedAddress('none', '203.0.113.77')).toBeUndefined();
    expect(await loggedAddress('full', '203.0.113.77')).toBe('203.0.113.77');
  });
});
