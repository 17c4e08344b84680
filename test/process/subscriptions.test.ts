/**
 * Subscriptions across instances: two service processes on one database. A change written through
 * one is delivered to a subscriber of the other within a second (PostgreSQL: LISTEN/NOTIFY; SQLite:
 * the database's data version), and SIGTERM ends open event streams at once instead of waiting for
 * the grace period.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { provider } from '../setup/test-databases.ts';
import { subscribe } from '../support/event-stream.ts';
import { type InstancePair, startInstancePair } from '../support/instance-pair.ts';
import type { ServerProcess } from '../support/server-process.ts';

const TOKEN = 'subs-api-token-0123456789';
const GRACE_MS = 6000;
let pair: InstancePair;
let reader: ServerProcess;
let readerBase: string;

beforeAll(async () => {
  pair = await startInstancePair('subscriptions', TOKEN, {
    baseId: 'subs',
    baseUrl: 'http://subs.test/',
    listeMax: 100,
    sessionSecret: 'subs-session-secret-0123456789',
    lifecycle: { shutdownGraceMs: GRACE_MS },
    subscriptions: { debounceMs: 20 },
  });
  ({ reader, readerBase } = pair);
});

afterAll(() => pair?.stop());

const save = (fields: Record<string, unknown>) => pair.save(fields);

const RESOURCE = `subscription Follow($oid: Int!) {
  resourceChanged(oid: $oid) { kind resource { titre } }
}`;

// In this order: the last test stops the reader.
describe(`subscriptions across instances (${provider})`, { shuffle: false }, () => {
  it('a change written through one instance reaches a subscriber of the other within a second', async () => {
    const oid = await save({ titre: 'Version 1' });
    const stream = await subscribe(readerBase, RESOURCE, { variables: { oid } });
    try {
      expect((await stream.next()).data.data.resourceChanged.resource.titre).toBe('Version 1');
      const delays: number[] = [];
      for (const [titre, restriction, expected] of [
        ['Version 2', 0, { kind: 'UPDATED', resource: { titre: 'Version 2' } }],
        ['Version 3', 3, { kind: 'REMOVED', resource: null }],
      ] as const) {
        await save({ oid, titre, restriction });
        // From the commit's answer on the writer to the event on the reader.
        const started = Date.now();
        expect((await stream.next(1000)).data.data.resourceChanged).toEqual(expected);
        delays.push(Date.now() - started);
      }
      console.log(
        `${provider}: a write on one instance delivered by the other after ${delays.join(', ')} ms`,
      );
    } finally {
      stream.close();
    }
  });

  it('SIGTERM completes open streams instead of holding the shutdown', async () => {
    const oid = await save({ titre: 'Jusqu’à l’arrêt' });
    const stream = await subscribe(readerBase, RESOURCE, { variables: { oid } });
    expect((await stream.next()).data.data.resourceChanged.kind).toBe('CURRENT');
    const started = Date.now();
    expect(await reader.stop()).toBe(0);
    const took = Date.now() - started;
    await stream.ended;
    expect(stream.received.at(-1)?.event).toBe('complete');
    expect(took).toBeLessThan(GRACE_MS / 2);
    const stopped = reader.logLines().find((line) => line.msg === 'stopped');
    expect(stopped).toMatchObject({ cut: 0 });
  });
});
