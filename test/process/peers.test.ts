/**
 * Two real instances of the service (`src/server.ts` processes) on loopback, peers of each other,
 * each on its own database, plus a fake lab and a peer that never answers. Retries are fast here
 * (base 500 ms, cap 2 s, 10 attempts, 500 ms timeout) so that outages fit in a test.
 */
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, dropTestDatabase } from '../setup/test-databases.ts';
import { type FakeLab, labUser, startFakeLab } from '../support/fake-lab.ts';
import { type FakePeer, startFakePeer } from '../support/fake-peer.ts';
import { reservePort } from '../support/ports.ts';
import { configFile, killServers, type ServerProcess, startServer } from '../support/server-process.ts';

const TOKEN_A = 'api-token-of-instance-a-0123';
const TOKEN_B = 'api-token-of-instance-b-0123';
const FAST_OUTBOX = {
  pollIntervalMs: 100,
  leaseMs: 5000,
  maxAttempts: 10,
  retryBaseMs: 500,
  retryMaxMs: 2000,
};

interface Instance {
  baseId: string;
  baseUrl: string;
  port: number;
  env: Record<string, string>;
  process: ServerProcess;
}

let lab: FakeLab;
let silent: FakePeer;
let a: Instance;
let b: Instance;
const databases: string[] = [];

async function start(instance: Instance): Promise<void> {
  instance.process = startServer(instance.env);
  await instance.process.serving;
}

beforeAll(async () => {
  lab = await startFakeLab('labP');
  silent = await startFakePeer('muette');
  silent.behave('silent');
  // Each configuration names the other instance before either starts.
  const [portA, portB] = [await reservePort(), await reservePort()];
  const urlOf = (port: number) => `http://127.0.0.1:${port}/`;
  const instance = async (
    baseId: string,
    port: number,
    token: string,
    peers: object[],
  ): Promise<Instance> => {
    // PostgreSQL folds unquoted database names to lower case.
    const database = await createTestDatabase(baseId.toLowerCase());
    databases.push(database);
    const config = {
      baseId,
      baseUrl: urlOf(port),
      listeMax: 1000,
      apiTokens: [token],
      sessionSecret: `${baseId}-session-secret-0123456789`,
      labs: [lab.config()],
      peers,
      http: { peerTimeoutMs: 500 },
      outbox: FAST_OUTBOX,
    };
    const env = { CONFIG_FILE: configFile(config), DATABASE_URL: database, PORT: String(port) };
    return { baseId, baseUrl: urlOf(port), port, env, process: undefined as unknown as ServerProcess };
  };
  a = await instance('repoA', portA, TOKEN_A, [
    { baseId: 'repoB', baseUrl: urlOf(portB), apiToken: TOKEN_B },
  ]);
  b = await instance('repoB', portB, TOKEN_B, [
    { baseId: 'repoA', baseUrl: urlOf(portA), apiToken: TOKEN_A },
    { baseId: 'muette', baseUrl: silent.baseUrl },
  ]);
  await Promise.all([start(a), start(b)]);
});

afterAll(async () => {
  await killServers();
  await Promise.all([lab.close(), silent.close()]);
  for (const url of databases) await dropTestDatabase(url);
});

/** supertest joins paths to the origin: no trailing slash. */
const client = (instance: Instance) => request(instance.baseUrl.slice(0, -1));
const unique = () => `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;

async function createIn(instance: Instance, token: string, fields: Record<string, unknown>): Promise<number> {
  const response = await client(instance).post('/api/ressource').set('X-ApiToken', token).send(fields);
  expect(response.body, JSON.stringify(response.body)).toMatchObject({ success: true });
  return response.body.oid;
}

const retitle = (oid: number, titre: string) =>
  client(b).post('/api/ressource?merge=1').set('X-ApiToken', TOKEN_B).send({ oid, titre }).expect(200);

/** A resource in B and a tree in A holding it, made by a teacher logged in A through the lab. */
async function treeInAHoldingResourceOfB() {
  const oid = await createIn(b, TOKEN_B, { titre: `Exercice ${unique()}`, type: 'j3p', publie: true });
  const teacher = request.agent(a.baseUrl.slice(0, -1));
  const user = labUser({ type: 1 });
  await teacher
    .post('/api/connexion')
    .send({ origine: lab.baseUrl, token: lab.tokenFor(user) })
    .expect(200);
  const created = await teacher.post('/api/ressource').send({
    titre: 'Arbre',
    type: 'arbre',
    enfants: [{ titre: 'Exercice', type: 'j3p', aliasOf: `repoB/${oid}` }],
  });
  expect(created.body).toMatchObject({ success: true });
  const rid = `repoB/${oid}`;
  // A told B it listens to the resource (a message of A's outbox, delivered by A's worker).
  await a.process.waitForLog(
    (line) =>
      line.msg === 'peer notification delivered' &&
      line.kind === 'registerListener' &&
      line.rids?.includes(rid),
  );
  return { oid, rid, tree: created.body.oid as number };
}

/** The title of the first child of A's tree, once it is `expected` (or the last seen on timeout). */
async function titleInA(tree: number, expected: string, timeoutMs = 30_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  let titre = '';
  while (Date.now() < deadline) {
    const response = await client(a).get(`/api/ressource/${tree}`).set('X-ApiToken', TOKEN_A);
    titre = response.body.enfants?.[0]?.titre;
    if (titre === expected) break;
    await new Promise((done) => setTimeout(done, 100));
  }
  return titre;
}

const deliveredTo = (peer: string, rid: string) => (line: Record<string, unknown>) =>
  line.msg === 'peer notification delivered' && line.peer === peer && (line.rids as string[])?.includes(rid);
const retriedTo = (peer: string, rid: string) => (line: Record<string, unknown>) =>
  line.msg === 'peer notification will be retried' &&
  line.peer === peer &&
  (line.rids as string[])?.includes(rid);

describe('two instances as peers of each other', () => {
  it('a tree in A holding a resource of B registers A on B; updating the resource in B updates the tree in A', async () => {
    const { oid, rid, tree } = await treeInAHoldingResourceOfB();
    await b.process.waitForLog(
      (line) =>
        line.msg === 'request completed' &&
        line.path === '/api/ressource/registerListener' &&
        line.status === 200,
    );
    await retitle(oid, 'Exercice corrigé');
    expect(await titleInA(tree, 'Exercice corrigé')).toBe('Exercice corrigé');
    const jstree = await client(a).get(`/api/jstree?ref=${tree}&children=1`).set('X-ApiToken', TOKEN_A);
    expect(jstree.body).toEqual([
      expect.objectContaining({
        text: 'Exercice corrigé',
        a_attr: expect.objectContaining({ 'data-ref': rid }),
      }),
    ]);
  }, 60_000);

  it('B delivers after A was down and comes back', async () => {
    const { oid, rid, tree } = await treeInAHoldingResourceOfB();
    expect(await a.process.stop()).toBe(0);
    await retitle(oid, 'Pendant la panne');
    // B tried, failed, and will try again.
    await b.process.waitForLog(retriedTo('repoA', rid));
    await start(a);
    expect(await titleInA(tree, 'Pendant la panne')).toBe('Pendant la panne');
    await b.process.waitForLog(deliveredTo('repoA', rid));
  }, 90_000);

  it('a stopped-and-restarted B still delivers what it had queued', async () => {
    const { oid, rid, tree } = await treeInAHoldingResourceOfB();
    expect(await a.process.stop()).toBe(0);
    await retitle(oid, 'Avant le redémarrage');
    await b.process.waitForLog(retriedTo('repoA', rid));
    const stoppedB = b.process;
    expect(await stoppedB.stop()).toBe(0);
    expect(stoppedB.logLines().some(deliveredTo('repoA', rid))).toBe(false);
    // Only the outbox in B's database remembers the notification now.
    await Promise.all([start(a), start(b)]);
    expect(await titleInA(tree, 'Avant le redémarrage')).toBe('Avant le redémarrage');
    await b.process.waitForLog(deliveredTo('repoA', rid));
  }, 90_000);

  it('the receiver ignores a notification delivered again with the same event id', async () => {
    const { oid, rid, tree } = await treeInAHoldingResourceOfB();
    await retitle(oid, 'Livrée une fois');
    expect(await titleInA(tree, 'Livrée une fois')).toBe('Livrée une fois');
    const { eventId } = await b.process.waitForLog(deliveredTo('repoA', rid));
    // B redelivers (e.g. its lease expired mid-delivery), with an older state of the resource.
    const again = await client(a)
      .post('/api/ressource/externalUpdate')
      .set('X-ApiToken', TOKEN_A)
      .send({ ref: { aliasOf: rid, titre: 'Ancienne version', type: 'j3p' }, eventId });
    expect(again.body).toEqual({ success: true });
    expect(await titleInA(tree, 'Ancienne version', 500)).toBe('Livrée une fois');
    await a.process.waitForLog(
      (line) => line.msg === 'duplicate peer notification ignored' && line.eventId === eventId,
    );
  }, 60_000);

  it('a peer that never answers ends as a failed delivery, without holding up the others', async () => {
    const { oid, rid, tree } = await treeInAHoldingResourceOfB();
    await client(b)
      .post('/api/ressource/registerListener')
      .set('X-ApiToken', TOKEN_B)
      .send({ action: 'add', baseId: 'muette', rids: [rid] })
      .expect(200);
    await retitle(oid, 'Malgré la muette');
    expect(await titleInA(tree, 'Malgré la muette')).toBe('Malgré la muette');
    const failed = await b.process.waitForLog(
      (line) =>
        line.msg === 'peer notification failed for good' &&
        line.peer === 'muette' &&
        line.rids?.includes(rid),
      45_000,
    );
    expect(failed).toMatchObject({
      attempts: FAST_OUTBOX.maxAttempts,
      error: expect.stringContaining('500 ms'),
    });
    expect(silent.received.filter((r) => r.body?.ref?.aliasOf === rid)).toHaveLength(FAST_OUTBOX.maxAttempts);
  }, 90_000);

  it('a teacher in A makes an alias of a public resource of B, fetched from B', async () => {
    const oid = await createIn(b, TOKEN_B, { titre: 'Publique chez B', type: 'mathgraph', publie: true });
    const teacher = request.agent(a.baseUrl.slice(0, -1));
    await teacher
      .post('/api/connexion')
      .send({ origine: lab.baseUrl, token: lab.tokenFor(labUser()) })
      .expect(200);
    const alias = await teacher.get(`/api/createAlias/repoB/${oid}`);
    expect(alias.body).toEqual({
      success: true,
      clone: expect.objectContaining({
        aliasOf: `repoB/${oid}`,
        titre: 'Publique chez B',
        type: 'mathgraph',
      }),
    });
    await b.process.waitForLog(
      (line) => line.msg === 'request completed' && line.path === `/api/public/${oid}` && line.status === 200,
    );
  }, 60_000);

  it('notifyError logs a report naming a resource on the data-error stream, others on the client-error one', async () => {
    const marker = unique();
    await client(a).post('/api/notifyError').send({ rid: 'repoA/1', marker }).expect(200);
    await client(a).post('/api/notifyError').send({ marker }).expect(200);
    const reports = await Promise.all(
      ['data-error', 'client-error'].map((stream) =>
        a.process.waitForLog((line) => line.stream === stream && line.report?.marker === marker),
      ),
    );
    expect(reports.map((line) => line.level)).toEqual([50, 50]);
  });
});
