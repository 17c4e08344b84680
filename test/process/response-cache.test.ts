/**
 * The response cache across instances: two service processes on one database. A change written
 * through one is seen by anonymous public reads on the other within a second (PostgreSQL:
 * LISTEN/NOTIFY; SQLite: the database's data version), and while an instance cannot hear the
 * others (its listening connection killed) it serves nothing from memory.
 */
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FEED_APPLICATION_NAME } from '../../src/db/content-changes.ts';
import { provider } from '../setup/test-databases.ts';
import { type InstancePair, startInstancePair } from '../support/instance-pair.ts';
import type { ServerProcess } from '../support/server-process.ts';

const TOKEN = 'cache-api-token-0123456789';
let pair: InstancePair;
let url: string;
let reader: ServerProcess;
let readerBase: string;

beforeAll(async () => {
  pair = await startInstancePair('cache', TOKEN, {
    baseId: 'cache',
    baseUrl: 'http://cache.test/',
    listeMax: 100,
    sessionSecret: 'cache-session-secret-0123456789',
  });
  ({ url, reader, readerBase } = pair);
});

afterAll(() => pair?.stop());

const save = (fields: Record<string, unknown>) => pair.save({ categories: [7], ...fields });

const readTitle = async (oid: number) => {
  const response = await fetch(`${readerBase}/api/public/${oid}`);
  return response.status === 200 ? ((await response.json()) as { titre: string }).titre : response.status;
};

/** Milliseconds until the reader answers `expected`, polling every 10 ms for at most 5 s. */
async function msUntil(oid: number, expected: string | number): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < 5000) {
    if ((await readTitle(oid)) === expected) return Date.now() - started;
    await new Promise((done) => setTimeout(done, 10));
  }
  return Number.POSITIVE_INFINITY;
}

describe(`response cache across instances (${provider})`, () => {
  it('a change through one instance is seen by the other within a second', async () => {
    const oid = await save({ titre: 'Version 1' });
    // Read on the reader until it answers from memory (twice the same answer).
    expect(await readTitle(oid)).toBe('Version 1');
    expect(await readTitle(oid)).toBe('Version 1');

    const delays: number[] = [];
    for (const [version, change] of [
      ['Version 2', { titre: 'Version 2' }],
      ['Version 3', { titre: 'Version 3' }],
      [404, { titre: 'Version 3', restriction: 3 }],
    ] as const) {
      await save({ oid, ...change });
      delays.push(await msUntil(oid, version));
      // And it stays so: nothing older comes back from memory.
      expect(await readTitle(oid)).toBe(version);
    }
    console.log(`${provider}: a change on one instance seen on the other after ${delays.join(', ')} ms`);
    for (const delay of delays) expect(delay).toBeLessThan(1000);
  });

  it.runIf(provider === 'postgresql')(
    'while its listening connection is down, an instance serves nothing from memory',
    async () => {
      const oid = await save({ titre: 'Avant la coupure' });
      expect(await readTitle(oid)).toBe('Avant la coupure');
      expect(await readTitle(oid)).toBe('Avant la coupure');
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      try {
        // Ends the listening connection of both instances (by name: it also sends notifications,
        // so its last statement may be a pg_notify rather than its LISTEN).
        const { rows } = await admin.query(
          `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
           WHERE datname = current_database() AND application_name = $1`,
          [FEED_APPLICATION_NAME],
        );
        expect(rows).toHaveLength(2);
      } finally {
        await admin.end();
      }
      await reader.waitForLog((line) => String(line.msg).startsWith('content change feed lost'), 5000);
      await save({ oid, titre: 'Pendant la coupure' });
      // Not heard (nobody listens), yet not served from memory either.
      expect(await readTitle(oid)).toBe('Pendant la coupure');
      await reader.waitForLog((line) => line.msg === 'content change feed restored', 5000);
      await save({ oid, titre: 'Après la coupure' });
      expect(await msUntil(oid, 'Après la coupure')).toBeLessThan(1000);
    },
  );

  it.runIf(provider === 'sqlite')(
    'a change written by another process straight into the file is seen too',
    async () => {
      const oid = await save({ titre: 'Avant' });
      expect(await readTitle(oid)).toBe('Avant');
      expect(await readTitle(oid)).toBe('Avant');
      const database = new Database(url.replace(/^file:/, ''));
      try {
        database.prepare('UPDATE "Resource" SET titre = ? WHERE oid = ?').run('Changé à la main', oid);
      } finally {
        database.close();
      }
      expect(await msUntil(oid, 'Changé à la main')).toBeLessThan(1000);
    },
  );
});
