/**
 * The peer protocol (registerListener, externalUpdate) through REST and GraphQL, and the outbox:
 * notifications written with the change, delivered by the worker to fake peers on loopback.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { db } from '../../src/db/client.ts';
import { deliverDueMessages, retryDelayMs } from '../../src/modules/peers/outbox-worker.ts';
import { logIn, tokenHeaders } from '../support/actors.ts';
import { startApp, type TestApp } from '../support/app.ts';
import { type FakeLab, startFakeLab } from '../support/fake-lab.ts';
import { type FakePeer, startFakePeer } from '../support/fake-peer.ts';
import { errorCode, graphql } from '../support/graphql.ts';
import { createResource } from '../support/resources.ts';

const PEER_TOKEN = 'token-given-by-voisine-0123';
let lab: FakeLab;
let voisine: FakePeer;
let muette: FakePeer;
/** A peer that wants another token than the one configured here (it was renewed over there). */
let exigeante: FakePeer;
let app: TestApp;

beforeAll(async () => {
  lab = await startFakeLab('labPeers');
  voisine = await startFakePeer('voisine');
  muette = await startFakePeer('muette');
  exigeante = await startFakePeer('exigeante', { token: 'token-renewed-by-exigeante' });
  app = await startApp({
    labs: [lab.config()],
    peers: [
      { baseId: voisine.baseId, baseUrl: voisine.baseUrl, apiToken: PEER_TOKEN },
      { baseId: muette.baseId, baseUrl: muette.baseUrl },
      { baseId: exigeante.baseId, baseUrl: exigeante.baseUrl, apiToken: 'token-outdated-here' },
    ],
    http: { peerTimeoutMs: 300 },
    outbox: { maxAttempts: 3, retryBaseMs: 1, retryMaxMs: 2 },
  });
});

afterAll(async () => {
  await app.close();
  await Promise.all([lab.close(), voisine.close(), muette.close(), exigeante.close()]);
});

const register = (body: unknown, headers: Record<string, string> = tokenHeaders) =>
  app
    .client()
    .post('/api/ressource/registerListener')
    .set(headers)
    .send(body as object);
const externalUpdate = (body: unknown, headers: Record<string, string> = tokenHeaders) =>
  app
    .client()
    .post('/api/ressource/externalUpdate')
    .set(headers)
    .send(body as object);
const messagesFor = (peerBaseId: string, kind: string) =>
  db.outboxMessage.findMany({ where: { peerBaseId, kind }, orderBy: { createdAt: 'asc' } });
const unique = () => `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 7)}`;

/** Rounds until nothing due is left (messages scheduled later stay). */
async function drainOutbox() {
  while ((await deliverDueMessages(app.services)) > 0) {}
}

/** A local resource `voisine` listens to. */
async function listenedResource() {
  const oid = await createResource(app, { titre: 'Écoutée', type: 'j3p' });
  expect((await register({ action: 'add', baseId: 'voisine', rids: [`repo/${oid}`] })).body).toEqual({
    success: true,
  });
  return oid;
}

const REGISTER = `mutation($input: PeerListenerInput!) { registerPeerListener(input: $input) {
  __typename ... on PeerListenerResult { warnings } ... on Error { code message } } }`;
const EXTERNAL_UPDATE = `mutation($input: ExternalUpdateInput!) { applyExternalUpdate(input: $input) {
  __typename ... on ExternalUpdateResult { updatedTrees duplicate } ... on Error { code message } } }`;

describe('POST /api/ressource/registerListener', () => {
  it('registers and unregisters a peer, warning about rids that are not local or unknown', async () => {
    const oid = await createResource(app, { titre: 'À écouter', type: 'url' });
    const response = await register({
      action: 'add',
      baseId: 'voisine',
      rids: [`repo/${oid}`, `repo/${oid}`, 'ailleurs/3', 'repo/999999'],
    });
    expect(response.body).toEqual({
      success: true,
      warnings: [
        'ailleurs/3 n’est pas une ressource de la sésathèque repo, ignoré',
        'Ressource repo/999999 inexistante, ignorée',
      ],
    });
    expect(
      await db.peerListener.findMany({ where: { rid: `repo/${oid}` }, select: { baseId: true } }),
    ).toEqual([{ baseId: 'voisine' }]);
    // Registering again is harmless.
    expect((await register({ action: 'add', baseId: 'voisine', rids: [`repo/${oid}`] })).body).toEqual({
      success: true,
    });
    expect(await db.peerListener.count({ where: { rid: `repo/${oid}` } })).toBe(1);
    const removed = await graphql(
      app.client(),
      REGISTER,
      { input: { action: 'remove', baseId: 'voisine', rids: [`repo/${oid}`] } },
      tokenHeaders,
    );
    expect(removed.data?.registerPeerListener).toEqual({ __typename: 'PeerListenerResult', warnings: [] });
    expect(await db.peerListener.count({ where: { rid: `repo/${oid}` } })).toBe(0);
  });

  it('refuses a malformed body or a peer not in the configuration (400), through REST and GraphQL', async () => {
    const malformed = await register({ action: 'bof', rids: 'repo/1' });
    expect(malformed.status).toBe(400);
    expect(malformed.body).toEqual({
      success: false,
      error:
        'action : doit valoir « add » ou « remove » ; baseId : obligatoire ; rids : doit être une liste de rids',
    });
    const unknown = await register({ action: 'add', baseId: 'inconnue', rids: [] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toBe('Sésathèque inconnue inconnue sur http://repo.test/');
    const graph = await graphql(
      app.client(),
      REGISTER,
      { input: { action: 'add', baseId: '', rids: [] } },
      tokenHeaders,
    );
    expect(errorCode(graph, 'registerPeerListener')).toBe('INVALID_INPUT');
  });

  it('holds GraphQL clients to the rules REST clients meet: the service checks them', async () => {
    for (const [input, message] of [
      [{ action: 'add', baseId: '', rids: [] }, 'baseId : obligatoire'],
      [
        { action: 'remove', baseId: 'inconnue', rids: ['repo/1'] },
        'Sésathèque inconnue inconnue sur http://repo.test/',
      ],
    ] as const) {
      const rest = await register(input);
      expect([rest.status, rest.body]).toEqual([400, { success: false, error: message }]);
      const graph = await graphql(app.client(), REGISTER, { input }, tokenHeaders);
      expect(graph.data?.registerPeerListener).toEqual({
        __typename: 'InvalidInputError',
        code: 'INVALID_INPUT',
        message,
      });
    }
    // The service checks the caller first: a valid body that breaks a rule is not answered to anyone.
    expect((await register({ action: 'add', baseId: '', rids: [] }, {})).status).toBe(401);
  });

  it('refuses in REST what the typed input cannot hold, with the legacy messages, every problem at once', async () => {
    // GraphQL would take a lone rid for a list of one; legacy peers always sent a list of texts.
    for (const rids of ['repo/1', ['repo/1', 2], null]) {
      expect((await register({ action: 'add', baseId: 'voisine', rids })).body).toEqual({
        success: false,
        error: 'rids : doit être une liste de rids',
      });
    }
    const wrong = await register({ action: ['add'], baseId: 7, rids: [], ignored: true }, {});
    expect([wrong.status, wrong.body]).toEqual([
      400,
      { success: false, error: 'action : doit valoir « add » ou « remove » ; baseId : obligatoire' },
    ]);
    // Properties the input does not have are left out, not refused.
    expect((await register({ action: 'add', baseId: 'voisine', rids: [], autre: 1 })).body).toEqual({
      success: true,
    });
  });

  it('is for all-rights callers only: 401 anonymous, 403 for a person', async () => {
    const body = { action: 'add', baseId: 'voisine', rids: [] };
    expect((await register(body, {})).status).toBe(401);
    const person = await logIn(app, lab);
    const asPerson = await person.post('/api/ressource/registerListener').send(body);
    expect(asPerson.status).toBe(403);
    expect(asPerson.body).toEqual({ success: false, error: 'Droits insuffisants' });
    expect(errorCode(await graphql(app.client(), REGISTER, { input: body }), 'registerPeerListener')).toBe(
      'UNAUTHENTICATED',
    );
    expect(errorCode(await graphql(person, REGISTER, { input: body }), 'registerPeerListener')).toBe(
      'FORBIDDEN',
    );
  });
});

describe('POST /api/ressource/externalUpdate', () => {
  async function treesHolding(rid: string) {
    const nested = await createResource(app, {
      titre: 'Arbre imbriqué',
      type: 'arbre',
      enfants: [
        { titre: 'Dossier', type: 'arbre', enfants: [{ titre: 'Ancien', type: 'j3p', aliasOf: rid }] },
      ],
    });
    const flat = await createResource(app, {
      titre: 'Arbre plat',
      type: 'arbre',
      enfants: [
        { titre: 'Ancien', type: 'j3p', aliasOf: rid },
        { titre: 'Autre', type: 'url', aliasOf: 'voisine/autre' },
      ],
    });
    return { nested, flat };
  }
  const enfantsOf = async (oid: number) =>
    (await db.resource.findUniqueOrThrow({ where: { oid }, select: { enfants: true } })).enfants as unknown;

  it('replaces the child in every local tree containing it, without the sender’s rights', async () => {
    const rid = `voisine/${unique()}`;
    const { nested, flat } = await treesHolding(rid);
    const ref = { aliasOf: rid, titre: 'Nouveau', type: 'j3p', resume: 'r', public: true, _droits: 'RWD' };
    const response = await externalUpdate({ ref, eventId: `event-${unique()}` });
    expect(response.body).toEqual({ success: true });
    const replaced = { aliasOf: rid, titre: 'Nouveau', type: 'j3p', resume: 'r', public: true };
    expect(await enfantsOf(nested)).toEqual([{ titre: 'Dossier', type: 'arbre', enfants: [replaced] }]);
    expect(await enfantsOf(flat)).toEqual([
      replaced,
      { titre: 'Autre', type: 'url', aliasOf: 'voisine/autre' },
    ]);
  });

  it('ignores an event id it has seen: a redelivered older Ref never overwrites', async () => {
    const rid = `voisine/${unique()}`;
    const { flat } = await treesHolding(rid);
    const eventId = `event-${unique()}`;
    const first = await graphql(
      app.client(),
      EXTERNAL_UPDATE,
      { input: { ref: { aliasOf: rid, titre: 'Première', type: 'j3p' }, eventId } },
      tokenHeaders,
    );
    expect(first.data?.applyExternalUpdate).toEqual({
      __typename: 'ExternalUpdateResult',
      updatedTrees: expect.arrayContaining([`repo/${flat}`]),
      duplicate: false,
    });
    const again = await graphql(
      app.client(),
      EXTERNAL_UPDATE,
      { input: { ref: { aliasOf: rid, titre: 'Rejouée', type: 'j3p' }, eventId } },
      tokenHeaders,
    );
    expect(again.data?.applyExternalUpdate).toEqual({
      __typename: 'ExternalUpdateResult',
      updatedTrees: [],
      duplicate: true,
    });
    expect(((await enfantsOf(flat)) as { titre: string }[])[0]!.titre).toBe('Première');
    expect(
      (await externalUpdate({ ref: { aliasOf: rid, titre: 'REST', type: 'j3p' }, eventId })).body,
    ).toEqual({
      success: true,
    });
    expect(((await enfantsOf(flat)) as { titre: string }[])[0]!.titre).toBe('Première');
  });

  it('refuses a body without a valid Ref (400, every problem listed) and changes nothing', async () => {
    const rid = `voisine/${unique()}`;
    const { flat } = await treesHolding(rid);
    const before = await enfantsOf(flat);
    const response = await externalUpdate({ ref: { aliasOf: 'pas un rid', type: '' } });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      success: false,
      error:
        'ref.aliasOf : doit être un rid de la forme baseId/oid ; ref.titre : obligatoire ; ref.type : obligatoire',
    });
    expect((await externalUpdate({})).body.error).toBe('ref : obligatoire (un Ref)');
    const graph = await graphql(app.client(), EXTERNAL_UPDATE, { input: { ref: 3 } }, tokenHeaders);
    expect(errorCode(graph, 'applyExternalUpdate')).toBe('INVALID_INPUT');
    expect(await enfantsOf(flat)).toEqual(before);
  });

  it('holds GraphQL clients to the rules REST clients meet: the service checks the Ref and the event id', async () => {
    const ref = { aliasOf: 'voisine/1', titre: 't', type: 'j3p' };
    for (const [input, message] of [
      [
        { ref: { aliasOf: 'pas un rid', type: '' } },
        'ref.aliasOf : doit être un rid de la forme baseId/oid ; ref.titre : obligatoire ; ref.type : obligatoire',
      ],
      [{ ref: 'voisine/1' }, 'ref : obligatoire (un Ref)'],
      [{ ref: [ref] }, 'ref : obligatoire (un Ref)'],
      [{ ref, eventId: '' }, 'eventId : ne peut pas être vide'],
      [{ ref, eventId: 'e'.repeat(201) }, 'eventId : au plus 200 caractères'],
    ] as const) {
      const rest = await externalUpdate(input);
      expect([rest.status, rest.body]).toEqual([400, { success: false, error: message }]);
      const graph = await graphql(app.client(), EXTERNAL_UPDATE, { input }, tokenHeaders);
      expect(graph.data?.applyExternalUpdate).toEqual({
        __typename: 'InvalidInputError',
        code: 'INVALID_INPUT',
        message,
      });
    }
    expect((await externalUpdate({ ref: 'voisine/1' }, {})).status).toBe(401);
    // No event id is none, in either transport.
    expect((await externalUpdate({ ref, eventId: null })).body).toEqual({ success: true });
  });

  it('refuses in REST what the typed input cannot hold, with the legacy messages', async () => {
    const ref = { aliasOf: 'voisine/1', titre: 't', type: 'j3p' };
    expect((await externalUpdate({ ref: null, eventId: 5 })).body).toEqual({
      success: false,
      error: 'ref : obligatoire (un Ref) ; eventId : doit être un texte',
    });
    expect((await externalUpdate({ ref, eventId: ['e'] }, {})).status).toBe(400);
  });

  it('is for all-rights callers only: 401 anonymous, 403 for a person', async () => {
    const body = { ref: { aliasOf: 'voisine/1', titre: 't', type: 'j3p' } };
    expect((await externalUpdate(body, {})).status).toBe(401);
    const person = await logIn(app, lab);
    expect((await person.post('/api/ressource/externalUpdate').send(body)).status).toBe(403);
    expect(
      errorCode(await graphql(app.client(), EXTERNAL_UPDATE, { input: body }), 'applyExternalUpdate'),
    ).toBe('UNAUTHENTICATED');
    expect(errorCode(await graphql(person, EXTERNAL_UPDATE, { input: body }), 'applyExternalUpdate')).toBe(
      'FORBIDDEN',
    );
  });
});

describe('outgoing notifications (outbox)', () => {
  it('writes one externalUpdate per listening peer with the change, and none for a failed write', async () => {
    const oid = await listenedResource();
    const before = (await messagesFor('voisine', 'externalUpdate')).length;
    const updated = await app
      .client()
      .post('/api/ressource?merge=1')
      .set(tokenHeaders)
      .send({ oid, titre: 'Changée' });
    expect(updated.body).toEqual({ success: true, oid });
    const after = await messagesFor('voisine', 'externalUpdate');
    expect(after).toHaveLength(before + 1);
    expect(after.at(-1)).toMatchObject({
      status: 'pending',
      attempts: 0,
      payload: { ref: { aliasOf: `repo/${oid}`, titre: 'Changée', type: 'j3p', public: true } },
    });
    const refused = await app
      .client()
      .post('/api/ressource')
      .set(tokenHeaders)
      .send({ oid, titre: 'x', type: '' });
    expect(refused.status).toBe(400);
    // A write failing inside its transaction (another resource holds the origin pair) neither.
    const taken = unique();
    await createResource(app, { origine: 'editeur', idOrigine: taken });
    const conflict = await app
      .client()
      .post('/api/ressource?merge=1')
      .set(tokenHeaders)
      .send({ oid, origine: 'editeur', idOrigine: taken });
    expect(conflict.status).toBe(409);
    expect(await messagesFor('voisine', 'externalUpdate')).toHaveLength(before + 1);
  });

  it('delivers to the peer with its token and an event id, once', async () => {
    const oid = await listenedResource();
    await app.client().post('/api/ressource?merge=1').set(tokenHeaders).send({ oid, titre: 'À livrer' });
    voisine.behave('accept');
    await drainOutbox();
    const delivered = voisine.received.filter((request) => request.body?.ref?.aliasOf === `repo/${oid}`);
    expect(delivered).toHaveLength(1);
    const [request] = delivered;
    expect(request).toMatchObject({ method: 'POST', path: '/api/ressource/externalUpdate' });
    expect(request!.headers['x-apitoken']).toBe(PEER_TOKEN);
    expect(request!.body).toEqual({
      ref: expect.objectContaining({ aliasOf: `repo/${oid}`, titre: 'À livrer' }),
      eventId: expect.any(String),
    });
    const stored = await db.outboxMessage.findUniqueOrThrow({ where: { id: request!.body.eventId } });
    expect(stored).toMatchObject({ status: 'delivered', attempts: 1, leaseOwner: null });
    expect(stored.deliveredAt).toBeInstanceOf(Date);
  });

  it('retries a failing peer with back-off, then marks the message failed after maxAttempts', async () => {
    const oid = await listenedResource();
    voisine.behave('fail');
    try {
      await app.client().post('/api/ressource?merge=1').set(tokenHeaders).send({ oid, titre: 'En panne' });
      const [message] = (await messagesFor('voisine', 'externalUpdate')).filter(
        (m) => (m.payload as { ref: { aliasOf: string } }).ref.aliasOf === `repo/${oid}`,
      );
      await deliverDueMessages(app.services);
      const retried = await db.outboxMessage.findUniqueOrThrow({ where: { id: message!.id } });
      expect(retried).toMatchObject({
        status: 'pending',
        attempts: 1,
        lastError: expect.stringContaining('HTTP 500'),
      });
      expect(retried.nextAttemptAt.getTime()).toBeGreaterThan(message!.nextAttemptAt.getTime());
      for (let round = 0; round < 50; round++) {
        await new Promise((done) => setTimeout(done, 5));
        await drainOutbox();
        const current = await db.outboxMessage.findUniqueOrThrow({ where: { id: message!.id } });
        if (current.status !== 'pending') break;
      }
      expect(await db.outboxMessage.findUniqueOrThrow({ where: { id: message!.id } })).toMatchObject({
        status: 'failed',
        attempts: 3,
        leaseOwner: null,
      });
    } finally {
      voisine.behave('accept');
    }
  });

  /**
   * Delivers the notification of a change of `oid` to `peerBaseId` round after round: after the
   * first attempt it is pending with `error` and due later; it ends failed after maxAttempts (3),
   * never delivered on the way.
   */
  async function expectRetriedThenFailed(peerBaseId: string, oid: number, error: RegExp) {
    const [message] = (await messagesFor(peerBaseId, 'externalUpdate')).filter(
      (m) => (m.payload as { ref: { aliasOf: string } }).ref.aliasOf === `repo/${oid}`,
    );
    expect(message).toMatchObject({ status: 'pending', attempts: 0 });
    await deliverDueMessages(app.services);
    const retried = await db.outboxMessage.findUniqueOrThrow({ where: { id: message!.id } });
    expect(retried).toMatchObject({ status: 'pending', attempts: 1, deliveredAt: null, leaseOwner: null });
    expect(retried.lastError).toMatch(error);
    expect(retried.nextAttemptAt.getTime()).toBeGreaterThan(message!.nextAttemptAt.getTime());
    const seen = new Set<string>();
    for (let round = 0; round < 50; round++) {
      await new Promise((done) => setTimeout(done, 5));
      await drainOutbox();
      const current = await db.outboxMessage.findUniqueOrThrow({ where: { id: message!.id } });
      seen.add(current.status);
      if (current.status !== 'pending') break;
    }
    expect(seen).not.toContain('delivered');
    const last = await db.outboxMessage.findUniqueOrThrow({ where: { id: message!.id } });
    expect(last).toMatchObject({ status: 'failed', attempts: 3, deliveredAt: null, leaseOwner: null });
    expect(last.lastError).toMatch(error);
  }

  it('a peer refusing our token (401) keeps the notification pending with the error, then failed, never delivered', async () => {
    const oid = await createResource(app, { titre: 'Jeton périmé', type: 'j3p' });
    await register({ action: 'add', baseId: 'exigeante', rids: [`repo/${oid}`] });
    await app.client().post('/api/ressource?merge=1').set(tokenHeaders).send({ oid, titre: 'Refusée' });
    await expectRetriedThenFailed('exigeante', oid, /^HTTP 401 : .*Jeton invalide/);
    const posts = exigeante.received.filter((r) => r.body?.ref?.aliasOf === `repo/${oid}`);
    expect(posts).toHaveLength(3);
    expect(posts.every((r) => r.headers['x-apitoken'] === 'token-outdated-here')).toBe(true);
  });

  it('a peer answering 200 with {success: false} has not taken the notification: retried, then failed', async () => {
    const oid = await listenedResource();
    voisine.behave({ status: 200, body: { success: false, error: 'Ressource refusée' } });
    try {
      await app.client().post('/api/ressource?merge=1').set(tokenHeaders).send({ oid, titre: 'Déclinée' });
      await expectRetriedThenFailed('voisine', oid, /^HTTP 200 : .*Ressource refusée/);
    } finally {
      voisine.behave('accept');
    }
  });

  it('a peer that never answers costs one timeout per attempt and holds up no other delivery', async () => {
    const oid = await createResource(app, { titre: 'Deux écouteurs', type: 'j3p' });
    for (const baseId of ['voisine', 'muette']) {
      await register({ action: 'add', baseId, rids: [`repo/${oid}`] });
    }
    muette.behave('silent');
    await app.client().post('/api/ressource?merge=1').set(tokenHeaders).send({ oid, titre: 'Silence' });
    const started = Date.now();
    await deliverDueMessages(app.services);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(voisine.received.some((r) => r.body?.ref?.aliasOf === `repo/${oid}`)).toBe(true);
    const [silent] = (await messagesFor('muette', 'externalUpdate')).filter(
      (m) => (m.payload as { ref: { aliasOf: string } }).ref.aliasOf === `repo/${oid}`,
    );
    expect(silent).toMatchObject({
      status: 'pending',
      attempts: 1,
      lastError: expect.stringContaining('300 ms'),
    });
  });

  it('never lets two delivery rounds claim the same message, and takes over an expired lease', async () => {
    const oid = await listenedResource();
    await app.client().post('/api/ressource?merge=1').set(tokenHeaders).send({ oid, titre: 'Concurrence' });
    const ofResource = (request: { body?: { ref?: { aliasOf?: string } } }) =>
      request.body?.ref?.aliasOf === `repo/${oid}`;
    const [message] = (await messagesFor('voisine', 'externalUpdate')).filter((m) =>
      ofResource({ body: m.payload as never }),
    );
    // Another instance holds the lease: not ours to deliver.
    await db.outboxMessage.update({
      where: { id: message!.id },
      data: { leaseOwner: 'other-instance', leaseExpiresAt: new Date(Date.now() + 60_000) },
    });
    await drainOutbox();
    expect(voisine.received.filter(ofResource)).toHaveLength(0);
    // Its lease expired (it crashed): the message is taken over, by exactly one of two racing rounds.
    await db.outboxMessage.update({
      where: { id: message!.id },
      data: { leaseExpiresAt: new Date(Date.now() - 1) },
    });
    await Promise.all([deliverDueMessages(app.services), deliverDueMessages(app.services)]);
    expect(voisine.received.filter(ofResource)).toHaveLength(1);
  });

  it('delivers each of many messages exactly once when rounds race (instances sharing a database)', async () => {
    const oid = await listenedResource();
    for (let version = 1; version <= 12; version++) {
      await app
        .client()
        .post('/api/ressource?merge=1')
        .set(tokenHeaders)
        .send({ oid, titre: `Version ${version}` });
    }
    const ids = (await messagesFor('voisine', 'externalUpdate'))
      .filter((m) => (m.payload as { ref: { aliasOf: string } }).ref.aliasOf === `repo/${oid}`)
      .map((m) => m.id);
    expect(ids).toHaveLength(12);
    await Promise.all([1, 2, 3, 4].map(() => deliverDueMessages(app.services)));
    await drainOutbox();
    const received = voisine.received
      .map((request) => request.body?.eventId)
      .filter((id) => ids.includes(id));
    expect(new Set(received)).toEqual(new Set(ids));
    // Each post is one attempt of the round that holds the lease: a message two racing rounds both
    // posted would show more posts than attempts. (A post that timed out on a loaded machine and was
    // retried is two attempts, and one or two posts: the one that timed out may never have reached
    // the receiver's handler.)
    const attempts = new Map(
      (await db.outboxMessage.findMany({ where: { id: { in: ids } } })).map((m) => [m.id, m.attempts]),
    );
    for (const id of ids) {
      const posts = received.filter((r) => r === id).length;
      expect(posts, id).toBeGreaterThanOrEqual(1);
      expect(posts, id).toBeLessThanOrEqual(attempts.get(id)!);
      expect((await db.outboxMessage.findUnique({ where: { id } }))?.status).toBe('delivered');
    }
  });

  it('registers this repository with a peer when a tree gains children of that peer, once per child', async () => {
    const first = `voisine/${unique()}`;
    const second = `voisine/${unique()}`;
    const child = (aliasOf: string) => ({ titre: aliasOf, type: 'j3p', aliasOf });
    const registrations = async () =>
      (await messagesFor('voisine', 'registerListener'))
        .map((m) => m.payload as { rids: string[] })
        .filter((payload) => payload.rids.some((rid) => [first, second].includes(rid)));
    const tree = await createResource(app, { titre: 'Arbre mixte', type: 'arbre', enfants: [child(first)] });
    expect(await registrations()).toEqual([{ action: 'add', baseId: 'repo', rids: [first] }]);
    await app
      .client()
      .post('/api/ressource?merge=1')
      .set(tokenHeaders)
      .send({ oid: tree, enfants: [child(first), child(second)] });
    expect(await registrations()).toEqual([
      { action: 'add', baseId: 'repo', rids: [first] },
      { action: 'add', baseId: 'repo', rids: [second] },
    ]);
  });
});

describe('retry schedule', () => {
  const settings = { retryBaseMs: 1000, retryMaxMs: 60_000 } as Parameters<typeof retryDelayMs>[1];

  it('doubles from the base up to the cap, with jitter between half and all of it', () => {
    expect([1, 2, 3, 4].map((failures) => retryDelayMs(failures, settings, () => 1))).toEqual([
      1000, 2000, 4000, 8000,
    ]);
    expect(retryDelayMs(3, settings, () => 0)).toBe(2000);
    expect(retryDelayMs(20, settings, () => 1)).toBe(60_000);
  });
});
