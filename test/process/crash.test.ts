/**
 * kill -9 of a real service process in the middle of a stream of writes: after a restart on the
 * same database every acknowledged write is there, and no resource is half-written (each has the
 * full-text words its save transaction writes with it).
 */
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase, dropTestDatabase, provider } from '../setup/test-databases.ts';
import { configFile, startServer } from '../support/server-process.ts';

const TOKEN = 'crash-api-token-0123456789';
const databases: string[] = [];

afterAll(async () => {
  for (const url of databases) await dropTestDatabase(url);
});

/** oid → number of full-text words, for the resources whose title starts with `marker`. */
async function wordsPerResource(url: string, marker: string): Promise<Map<number, number>> {
  const sql = `SELECT r.oid AS oid, COUNT(w.word) AS words FROM "Resource" r
               LEFT JOIN "ResourceWord" w ON w."resourceOid" = r.oid
               WHERE r.titre LIKE '${marker}%' GROUP BY r.oid`;
  let rows: { oid: number; words: number | string }[];
  if (provider === 'sqlite') {
    const database = new Database(url.replace(/^file:/, ''), { readonly: true });
    rows = database.prepare(sql).all() as typeof rows;
    database.close();
  } else {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    rows = (await client.query(sql)).rows;
    await client.end();
  }
  return new Map(rows.map((row) => [Number(row.oid), Number(row.words)]));
}

describe(`kill -9 mid-write (${provider})`, () => {
  it('every acknowledged write survives, none is half-written, and the restart is quick', async () => {
    const url = await createTestDatabase('crash');
    databases.push(url);
    const env = {
      CONFIG_FILE: configFile({
        baseId: 'crash',
        baseUrl: 'http://crash.test/',
        listeMax: 100,
        apiTokens: [TOKEN],
      }),
      DATABASE_URL: url,
    };
    const server = startServer(env);
    const base = `http://127.0.0.1:${await server.serving}`;
    const marker = `crash${Date.now().toString(36)}`;
    const acknowledged = new Map<number, string>();
    let attempts = 0;
    let crashed = false;
    const writer = async (lane: number) => {
      for (let i = 0; !crashed; i++) {
        const titre = `${marker} voie ${lane} écriture ${i}`;
        attempts++;
        try {
          const response = await fetch(`${base}/api/ressource`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-apitoken': TOKEN },
            body: JSON.stringify({ titre, type: 'j3p', resume: 'écrite pendant le crash' }),
          });
          const body = (await response.json()) as { success: boolean; oid: number };
          if (response.status === 200 && body.success) acknowledged.set(body.oid, titre);
        } catch {
          // Cut by the kill: not acknowledged, may or may not be there.
        }
      }
    };
    const lanes = Array.from({ length: 6 }, (_, lane) => writer(lane));
    while (acknowledged.size < 40) await new Promise((done) => setTimeout(done, 10));
    await server.crash();
    crashed = true;
    await Promise.all(lanes);

    const restarted = Date.now();
    const again = startServer(env);
    const againBase = `http://127.0.0.1:${await again.serving}`;
    const restartMs = Date.now() - restarted;
    const words = await wordsPerResource(url, marker);
    for (const [oid, titre] of acknowledged) {
      expect(words.get(oid), `acknowledged resource ${oid} missing`).toBeGreaterThan(0);
      const read = await fetch(`${againBase}/api/ressource/${oid}`, { headers: { 'x-apitoken': TOKEN } });
      expect(((await read.json()) as { titre: string }).titre).toBe(titre);
    }
    // Written but not acknowledged (cut by the kill) is allowed; half-written is not.
    expect([...words.values()].filter((count) => count === 0)).toEqual([]);
    console.log(
      `${provider}: kill -9 after ${acknowledged.size} acknowledged of ${attempts} attempted writes; ` +
        `${words.size} in the database, 0 missing, 0 half-written; restart served in ${restartMs} ms`,
    );
    expect(await again.stop()).toBe(0);
  }, 60_000);
});
