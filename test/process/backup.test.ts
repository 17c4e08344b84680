/**
 * `npm run backup` / `npm run restore` (scripts/backup.ts), as an operator runs them: a round trip
 * from a database in use to an empty one and over one holding other data, compared by rows per
 * table and a checksum of every resource; the restored database then serves.
 */
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import pg from 'pg';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { summarize } from '../../scripts/backup.ts';
import {
  createEmptyDatabase,
  createTestDatabase,
  dropTestDatabase,
  provider,
} from '../setup/test-databases.ts';
import { API_TOKEN, startApp, type TestApp } from '../support/app.ts';
import { labUser, startFakeLab } from '../support/fake-lab.ts';
import { scratchDir } from '../support/scratch.ts';
import { configFile, startServer } from '../support/server-process.ts';

const run = promisify(execFile);
const databases: string[] = [];
let app: TestApp;
const created: { oid: number; titre: string }[] = [];

async function npmRun(script: 'backup' | 'restore', file: string, databaseUrl: string) {
  const { stdout } = await run('npm', ['run', '--silent', script, '--', file], {
    env: { ...process.env, DATABASE_URL: databaseUrl },
  });
  return JSON.parse(stdout.trim().split('\n').at(-1) as string);
}

beforeAll(async () => {
  const lab = await startFakeLab('labBackup');
  app = await startApp({ labs: [lab.config()] });
  for (let i = 0; i < 30; i++) {
    const titre = `Ressource ${i} « sauvegardée » ${'é'.repeat(i % 4)}`;
    const response = await app
      .client()
      .post('/api/ressource')
      .set('X-ApiToken', API_TOKEN)
      .send({ titre, type: i % 3 ? 'j3p' : 'mathgraph', publie: i % 2 === 0, resume: `résumé ${i}` });
    created.push({ oid: response.body.oid, titre });
  }
  const tree = await app
    .client()
    .post('/api/ressource')
    .set('X-ApiToken', API_TOKEN)
    .send({
      titre: 'Arbre',
      type: 'arbre',
      enfants: created.slice(0, 3).map((r) => ({ titre: r.titre, type: 'j3p', aliasOf: `repo/${r.oid}` })),
    });
  expect(tree.body, JSON.stringify(tree.body)).toMatchObject({ success: true });
  // A person and a session.
  await app
    .browser()
    .post('/api/connexion')
    .send({ origine: lab.baseUrl, token: lab.tokenFor(labUser()) })
    .expect(200);
  await lab.close();
});

afterAll(async () => {
  await app.close();
  for (const url of databases) await dropTestDatabase(url);
});

/** A migrated database holding something else than the backup. */
async function otherDatabase(): Promise<string> {
  const url = await createTestDatabase('restore_over');
  databases.push(url);
  const insert = `INSERT INTO "Resource" ("origine", "idOrigine", "titre", "type") VALUES ('autre', '1', 'Autre contenu', 'j3p')`;
  if (provider === 'sqlite') {
    const database = new Database(url.replace(/^file:/, ''));
    database.exec(insert);
    database.close();
  } else {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query(insert);
    await client.end();
  }
  return url;
}

describe(`backup and restore (${provider})`, () => {
  it('round trip: same rows in every table and the same checksum of every resource', async () => {
    const source = process.env.DATABASE_URL as string;
    const before = await summarize(source);
    expect(before.rows).toMatchObject({ Resource: created.length + 1, Person: 1, Session: 1 });

    const file = join(scratchDir('backup'), provider === 'sqlite' ? 'backup.db' : 'backup.dump');
    const backedUp = await npmRun('backup', file, source);
    expect(backedUp).toMatchObject(before);

    // Written after the backup: not in it.
    await app
      .client()
      .post('/api/ressource')
      .set('X-ApiToken', API_TOKEN)
      .send({ titre: 'Plus tard', type: 'j3p' });

    const empty = await createEmptyDatabase('restored');
    databases.push(empty);
    const over = await otherDatabase();
    for (const target of [empty, over]) {
      const restored = await npmRun('restore', file, target);
      expect(restored).toMatchObject(before);
      expect(await summarize(target)).toEqual(before);
    }

    // The restored database serves the backed-up content (its migrations are recorded: none to apply).
    const server = startServer({
      CONFIG_FILE: configFile({ baseId: 'repo', baseUrl: 'http://repo.test/', listeMax: 100 }),
      DATABASE_URL: empty,
    });
    const base = `http://127.0.0.1:${await server.serving}`;
    // Even ones are published.
    const sample = created[8] as { oid: number; titre: string };
    expect((await request(base).get(`/api/public/${sample.oid}`)).body).toMatchObject({
      titre: sample.titre,
    });
    expect(server.logLines().some((line) => line.msg === 'migrations up to date')).toBe(true);
    expect(await server.stop()).toBe(0);
  }, 60_000);

  it('restore refuses a file that is not a backup and leaves the database as it was', async () => {
    const target = await otherDatabase();
    const before = await summarize(target);
    const file = join(scratchDir('backup'), 'not-a-backup');
    writeFileSync(file, 'garbage');
    await expect(npmRun('restore', file, target)).rejects.toThrow();
    expect(await summarize(target)).toEqual(before);
  }, 30_000);
});
