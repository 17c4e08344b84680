/**
 * `npm run backup` / `npm run restore` (`rrs backup` / `rrs restore`, src/db/backup.ts), as an
 * operator runs them: a round trip from a database in use to an empty one and over one holding
 * other data, compared by rows per table and a checksum of every resource; the restored database
 * then serves. A database they cannot use, and a file that is no backup of it, are refused.
 */
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import pg from 'pg';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backup, summarize } from '../../src/db/backup.ts';
import {
  createEmptyDatabase,
  createTestDatabase,
  dropTestDatabase,
  provider,
} from '../setup/test-databases.ts';
import { API_TOKEN, startApp, type TestApp } from '../support/app.ts';
import { rrsInProcess } from '../support/cli.ts';
import { labUser, startFakeLab } from '../support/fake-lab.ts';
import { scratchDir } from '../support/scratch.ts';
import { configFile, startServer } from '../support/server-process.ts';

const run = promisify(execFile);
const databases: string[] = [];
let app: TestApp;
const created: { oid: number; titre: string }[] = [];

/** The operator's environment: the database to use, nothing of the test runner's (Vite's BASE_URL=/). */
function operatorEnvironment(databaseUrl: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: databaseUrl };
  delete env.BASE_URL;
  return env;
}

/** A run expected to fail: its exit code and what it printed. */
async function npmRunFailing(script: 'backup' | 'restore', file: string, databaseUrl: string) {
  try {
    await run('npm', ['run', '--silent', script, '--', file], { env: operatorEnvironment(databaseUrl) });
  } catch (error) {
    const { code, stdout, stderr } = error as { code: number; stdout: string; stderr: string };
    return { code, stdout, stderr };
  }
  return expect.unreachable(`${script} ${file} succeeded`);
}

/** `rrs restore <file>` into `databaseUrl`, run in this process: its exit code and its messages. */
async function restoreInProcess(file: string, databaseUrl: string) {
  const { code, stderr } = await rrsInProcess(['restore', file], { DATABASE_URL: databaseUrl });
  return { code, stderr };
}

async function npmRun(script: 'backup' | 'restore', file: string, databaseUrl: string) {
  const { stdout } = await run('npm', ['run', '--silent', script, '--', file], {
    env: operatorEnvironment(databaseUrl),
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
    // One self-contained file: no -wal or -shm beside it to forget when copying it away.
    expect(readdirSync(dirname(file))).toEqual([basename(file)]);

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

  it('backup and restore answer a database they cannot use with exit code 3 and one rrs: line', async () => {
    const folder = scratchDir('unusable');
    const good = join(folder, provider === 'sqlite' ? 'good.db' : 'good.dump');
    await npmRun('backup', good, process.env.DATABASE_URL as string);
    let unusable = 'postgresql://postgres:secret@127.0.0.1:1/rrs';
    if (provider === 'sqlite') {
      writeFileSync(join(folder, 'garbage.db'), 'no database here\n'.repeat(50));
      unusable = `file:${join(folder, 'garbage.db')}`;
    }
    for (const [script, file] of [
      ['backup', join(folder, 'never-written')],
      ['restore', good],
    ] as const) {
      const refused = await npmRunFailing(script, file, unusable);
      expect(refused.code, `${script}: ${refused.stderr}`).toBe(3);
      expect(refused.stderr).toMatch(/^rrs: Cannot use the database [^\n]+\n$/);
      expect(refused.stderr).toContain(unusable.replace('secret', '***'));
    }
    expect(readdirSync(folder).sort()).toEqual(
      provider === 'sqlite' ? ['garbage.db', 'good.db'] : ['good.dump'],
    );
  }, 60_000);

  it('restore refuses a file that is not a backup of this kind of database in one line, changing nothing', async () => {
    const folder = scratchDir('wrong-backups');
    const source = process.env.DATABASE_URL as string;
    const good = join(folder, provider === 'sqlite' ? 'good.db' : 'good.dump');
    await backup(source, good);
    const bytes = readFileSync(good);
    const sqliteFile = join(folder, 'other.db');
    const other = new Database(sqliteFile);
    other.exec('CREATE TABLE t (x); INSERT INTO t VALUES (1)');
    other.close();
    const write = (name: string, content: string | Buffer) => {
      writeFileSync(join(folder, name), content);
      return join(folder, name);
    };
    const expected =
      provider === 'sqlite' ? /expected a SQLite database file/ : /expected a pg_dump custom-format file/;
    const cases: [string, string, RegExp][] = [
      ['a text file', write('notes.txt', 'garbage\nmore garbage\n'), /is a text file/],
      ['an empty file', write('empty.db', ''), /is empty/],
      [
        'a truncated backup',
        write('truncated', bytes.subarray(0, Math.floor(bytes.length / 2))),
        /truncated/,
      ],
      [
        'a plain SQL dump',
        write('plain.sql', '--\n-- PostgreSQL database dump\n--\n\nSET statement_timeout = 0;\n'),
        /is a plain SQL dump/,
      ],
    ];
    if (provider === 'sqlite') {
      // What pg_dump --format=custom writes first.
      const pgDump = Buffer.concat([
        Buffer.from('PGDMP'),
        Buffer.from([1, 14, 0, 4, 8, 1, 1]),
        Buffer.alloc(200, 7),
      ]);
      cases.push([
        'a PostgreSQL backup',
        write('pg.dump', pgDump),
        /is a PostgreSQL backup \(pg_dump\).*this database is SQLite/,
      ]);
    } else {
      cases.push(['a SQLite database', sqliteFile, /is a SQLite database.*this database is PostgreSQL/]);
    }
    const target = await otherDatabase();
    const before = await summarize(target);
    for (const [index, [label, file, what]] of cases.entries()) {
      // The first through `npm run restore`, as an operator types it; the others run the same
      // command in this process (a second each instead of several).
      const refused =
        index === 0 ? await npmRunFailing('restore', file, target) : await restoreInProcess(file, target);
      expect(refused.code, label).toBe(1);
      const message = refused.stderr.trim();
      expect(message.split('\n'), `${label}: ${message}`).toHaveLength(1);
      expect(message, label).toContain(file);
      expect(message, label).toMatch(what);
      expect(message, label).toMatch(expected);
      expect(message, label).toMatch(/The database was not changed\.$/);
      expect(await summarize(target), label).toEqual(before);
    }
    if (provider === 'sqlite') {
      // The header's page count gives the size the copy should have had: the whole backup's.
      const truncated = await restoreInProcess(join(folder, 'truncated'), target);
      expect(truncated.stderr).toContain(
        `(${Math.floor(bytes.length / 2)} bytes where its header announces ${bytes.length})`,
      );
    }
  }, 120_000);
});
