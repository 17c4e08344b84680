/**
 * Operating peer notifications through GraphQL: administrators and token callers list pending and
 * failed notifications and retry them; anonymous callers and plain persons cannot. A retried
 * notification is delivered by the outbox worker.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { db } from '../../src/db/client.ts';
import { deliverDueMessages } from '../../src/modules/peers/outbox-worker.ts';
import { type Browser, logIn, logInWithRoles, tokenHeaders } from '../support/actors.ts';
import { startApp, type TestApp } from '../support/app.ts';
import { type FakeLab, startFakeLab } from '../support/fake-lab.ts';
import { type FakePeer, startFakePeer } from '../support/fake-peer.ts';
import { errorCode, graphql } from '../support/graphql.ts';

let lab: FakeLab;
let peer: FakePeer;
let app: TestApp;
let admin: Browser;
let teacher: Browser;
let editor: Browser;

beforeAll(async () => {
  lab = await startFakeLab('labNotif');
  peer = await startFakePeer('voisineNotif');
  app = await startApp({
    labs: [lab.config()],
    peers: [{ baseId: peer.baseId, baseUrl: peer.baseUrl }],
    outbox: { maxAttempts: 2, retryBaseMs: 1, retryMaxMs: 2 },
  });
  admin = (await logInWithRoles(app, lab, ['admin'])).browser;
  editor = (await logInWithRoles(app, lab, ['editeur'])).browser;
  teacher = await logIn(app, lab);
});

afterAll(async () => {
  await app.close();
  await Promise.all([lab.close(), peer.close()]);
});

/** A message in the state the worker leaves it in. */
async function message(status: 'pending' | 'failed' | 'delivered', fields: { attempts?: number } = {}) {
  const id = randomUUID();
  await db.outboxMessage.create({
    data: {
      id,
      kind: 'registerListener',
      peerBaseId: peer.baseId,
      payload: { action: 'add', baseId: 'repo', rids: [`${peer.baseId}/${id}`] },
      status,
      attempts: fields.attempts ?? (status === 'failed' ? 2 : 1),
      lastError: status === 'delivered' ? null : 'HTTP 500 : panne',
      nextAttemptAt: new Date(Date.now() + 3_600_000),
      deliveredAt: status === 'delivered' ? new Date() : null,
    },
  });
  return id;
}

const LIST = `query($status: PeerNotificationStatus) { peerNotifications(status: $status, limit: 1000) {
  __typename ... on Error { code message }
  ... on QueryPeerNotificationsSuccess { data { id status attempts peerBaseId kind lastError rids } } } }`;
const RETRY = `mutation($id: String!) { retryPeerNotification(id: $id) {
  __typename ... on Error { code message } ... on PeerNotification { id status attempts } } }`;
const RETRY_FAILED = '{ count }';

const asToken = { post: (url: string) => app.client().post(url).set(tokenHeaders) };

describe('peerNotifications', () => {
  it('lists pending and failed notifications to administrators and token callers, not delivered ones', async () => {
    const pending = await message('pending');
    const failed = await message('failed');
    const delivered = await message('delivered');
    for (const caller of [admin, asToken]) {
      const all = await graphql(caller, LIST);
      const ids = all.data?.peerNotifications.data.map((n: { id: string }) => n.id);
      expect(ids).toEqual(expect.arrayContaining([pending, failed]));
      expect(ids).not.toContain(delivered);
      const onlyFailed = await graphql(caller, LIST, { status: 'failed' });
      const listed = onlyFailed.data?.peerNotifications.data;
      expect(listed.every((n: { status: string }) => n.status === 'failed')).toBe(true);
      expect(listed.find((n: { id: string }) => n.id === failed)).toEqual({
        id: failed,
        status: 'failed',
        attempts: 2,
        peerBaseId: peer.baseId,
        kind: 'registerListener',
        lastError: 'HTTP 500 : panne',
        rids: [`${peer.baseId}/${failed}`],
      });
    }
  });

  it('is refused to anonymous callers, plain persons and editors', async () => {
    expect(errorCode(await graphql(app.client(), LIST), 'peerNotifications')).toBe('UNAUTHENTICATED');
    expect(errorCode(await graphql(teacher, LIST), 'peerNotifications')).toBe('FORBIDDEN');
    expect(errorCode(await graphql(editor, LIST), 'peerNotifications')).toBe('FORBIDDEN');
  });
});

describe('retryPeerNotification', () => {
  it('makes a failed notification due again with fresh attempts; the worker delivers it', async () => {
    const failed = await message('failed');
    const answer = await graphql(admin, RETRY, { id: failed });
    expect(answer.data?.retryPeerNotification).toEqual({
      __typename: 'PeerNotification',
      id: failed,
      status: 'pending',
      attempts: 0,
    });
    while ((await deliverDueMessages(app.services)) > 0) {}
    expect(await db.outboxMessage.findUniqueOrThrow({ where: { id: failed } })).toMatchObject({
      status: 'delivered',
      attempts: 1,
    });
    const received = peer.received.filter((request) => request.body?.eventId === failed);
    expect(received).toHaveLength(1);
  });

  it('brings a pending notification forward, and refuses delivered and unknown ones', async () => {
    const pending = await message('pending', { attempts: 1 });
    const answer = await graphql(asToken, RETRY, { id: pending });
    expect(answer.data?.retryPeerNotification).toMatchObject({ status: 'pending', attempts: 1 });
    const stored = await db.outboxMessage.findUniqueOrThrow({ where: { id: pending } });
    expect(stored.nextAttemptAt.getTime()).toBeLessThanOrEqual(Date.now());
    const delivered = await message('delivered');
    expect(errorCode(await graphql(admin, RETRY, { id: delivered }), 'retryPeerNotification')).toBe(
      'CONFLICT',
    );
    expect(errorCode(await graphql(admin, RETRY, { id: randomUUID() }), 'retryPeerNotification')).toBe(
      'NOT_FOUND',
    );
  });

  it('is refused to anonymous callers and plain persons, and changes nothing', async () => {
    const failed = await message('failed');
    expect(errorCode(await graphql(app.client(), RETRY, { id: failed }), 'retryPeerNotification')).toBe(
      'UNAUTHENTICATED',
    );
    expect(errorCode(await graphql(teacher, RETRY, { id: failed }), 'retryPeerNotification')).toBe(
      'FORBIDDEN',
    );
    expect((await db.outboxMessage.findUniqueOrThrow({ where: { id: failed } })).status).toBe('failed');
  });
});

describe('retryFailedPeerNotifications', () => {
  it('retries every failed notification for administrators only', async () => {
    const failed = [await message('failed'), await message('failed')];
    const mutation = `mutation { retryFailedPeerNotifications ${RETRY_FAILED} }`;
    expect(errorCode(await graphql(teacher, mutation), 'retryFailedPeerNotifications')).toBe('FORBIDDEN');
    expect(errorCode(await graphql(app.client(), mutation), 'retryFailedPeerNotifications')).toBe(
      'UNAUTHENTICATED',
    );
    const answer = await graphql(admin, mutation);
    expect(answer.data?.retryFailedPeerNotifications.count).toBeGreaterThanOrEqual(2);
    const rows = await db.outboxMessage.findMany({ where: { id: { in: failed } } });
    expect(rows.map((row) => [row.status, row.attempts])).toEqual([
      ['pending', 0],
      ['pending', 0],
    ]);
    expect(await db.outboxMessage.count({ where: { status: 'failed' } })).toBe(0);
  });
});
