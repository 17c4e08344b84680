/**
 * Saves of one resource that run at the same time: each decides on the state it read, so a save
 * that finds the resource changed since then decides again on the new state instead of writing
 * over the other (no lost update), through REST and GraphQL alike.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect } from 'vitest';
import { db } from '../../src/db/client.ts';
import { sqlitePath } from '../../src/db/database-url.ts';
import { provider } from '../setup/test-databases.ts';
import { tokenHeaders } from '../support/actors.ts';
import { appTest as test } from '../support/fixtures.ts';
import { graphql } from '../support/graphql.ts';
import { createResource, readResource } from '../support/resources.ts';

const MERGE = `mutation ($input: ResourceInput!) {
  saveResource(input: $input, merge: true) { __typename ... on SaveResourceResult { oid } ... on Error { code message } }
}`;

describe('saves of one resource at the same time', () => {
  test('merging different fields through REST keep every change', async ({ app }) => {
    const oid = await createResource(app, { titre: 'Avant', resume: 'Avant', description: 'Avant' });
    const merge = (fields: Record<string, unknown>) =>
      app
        .client()
        .post('/api/ressource?merge=1')
        .set(tokenHeaders)
        .send({ oid, ...fields });
    const answers = await Promise.all([
      merge({ resume: 'Résumé concurrent' }),
      merge({ description: 'Description concurrente' }),
      merge({ commentaires: 'Commentaire concurrent' }),
    ]);
    for (const answer of answers) expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const stored = await readResource(app, oid);
    expect(stored).toMatchObject({
      resume: 'Résumé concurrent',
      description: 'Description concurrente',
      commentaires: 'Commentaire concurrent',
    });
  });

  test('merging different fields through GraphQL keep every change', async ({ app }) => {
    const oid = await createResource(app, { titre: 'Avant', resume: 'Avant', description: 'Avant' });
    const merge = (fields: Record<string, unknown>) =>
      graphql(app.client(), MERGE, { input: { oid, ...fields } }, tokenHeaders);
    const answers = await Promise.all([
      merge({ resume: 'Résumé concurrent' }),
      merge({ description: 'Description concurrente' }),
      merge({ commentaires: 'Commentaire concurrent' }),
    ]);
    for (const answer of answers)
      expect(answer.data?.saveResource.__typename, JSON.stringify(answer)).toBe('SaveResourceResult');
    const stored = await readResource(app, oid);
    expect(stored).toMatchObject({
      resume: 'Résumé concurrent',
      description: 'Description concurrente',
      commentaires: 'Commentaire concurrent',
    });
  });

  test('adding relations at once keeps every relation added', async ({ app }) => {
    const oid = await createResource(app, { relations: [[1, 'x/0']] });
    const answers = await Promise.all(
      [1, 2, 3].map((n) =>
        app
          .client()
          .post('/api/ressource/addRelations')
          .set(tokenHeaders)
          .send({ oid, relations: [[4, `x/${n}`]] }),
      ),
    );
    for (const answer of answers) expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const stored = await readResource(app, oid);
    expect(new Set(stored!.relations as unknown[])).toEqual(
      new Set([
        [1, 'x/0'],
        [4, 'x/1'],
        [4, 'x/2'],
        [4, 'x/3'],
      ]),
    );
  });

  test('under heavy contention, each save is either kept or refused as a conflict, never lost', async ({
    app,
  }) => {
    const oid = await createResource(app, { titre: 'Disputée' });
    const saves = Array.from({ length: 12 }, (_, n) => `Commentaire ${n}`);
    const answers = await Promise.all(
      saves.map((commentaires, n) =>
        app
          .client()
          .post('/api/ressource?merge=1')
          .set(tokenHeaders)
          // Each save changes its own level too, so that each one's change can be looked for.
          .send({ oid, commentaires, niveaux: [['cp', 'ce1', 'ce2', 'cm1', 'cm2', '6e'][n % 6]] }),
      ),
    );
    const kept = answers.filter((answer) => answer.status === 200);
    for (const answer of answers.filter((a) => a.status !== 200)) {
      expect(answer.status, JSON.stringify(answer.body)).toBe(409);
      expect(answer.body).toEqual({ success: false, error: expect.stringContaining('modifiée') });
    }
    expect(kept.length).toBeGreaterThan(0);
    // The audit trail holds one entry per save that was kept, each decided on what the one before
    // wrote (a save decided on a stale state would repeat a `before`), the last one what is stored.
    const stored = await readResource(app, oid);
    const audited = await db.auditEntry.findMany({
      where: { entityKind: 'resource', entityId: oid, action: 'updated' },
      orderBy: { id: 'asc' },
    });
    expect(audited).toHaveLength(kept.length);
    const changes = audited.map(
      (entry) => entry.changes as Record<string, { before?: unknown; after?: unknown }>,
    );
    for (let n = 1; n < changes.length; n++) {
      expect(changes[n]!.commentaires!.before, `save ${n}`).toBe(changes[n - 1]!.commentaires!.after);
    }
    const last = changes.at(-1)!;
    expect(stored!.commentaires).toBe(last.commentaires!.after);
  });
});

/**
 * Writes while another process (the command-line tool, a script) writes the same SQLite file. A
 * transaction that read and then wrote meanwhile failed at once with SQLITE_BUSY (WAL mode gives
 * a reader no wait for the writer's lock: its snapshot would be stale), answered 503 as an outage.
 */
describe('writes while another process writes the same SQLite database', () => {
  /**
   * Another process that holds the write lock of the database file for `ms`, having written a row,
   * then commits; resolves once it holds the lock, with its exit to come.
   */
  async function otherProcessWriting(ms: number) {
    const child = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import Database from 'better-sqlite3';
         const other = new Database(process.argv[1]);
         other.pragma('busy_timeout = 5000');
         other.exec('BEGIN IMMEDIATE');
         other.prepare(process.argv[2]).run();
         console.log('locked');
         setTimeout(() => { other.exec('COMMIT'); other.close(); }, ${ms});`,
        sqlitePath(process.env.DATABASE_URL!),
        // A row that changes: a write that changes nothing leaves the others' snapshots current.
        `INSERT INTO "ServiceSetting" ("key", "value", "createdAt") VALUES ('other-' || hex(randomblob(8)), 'x', 0)`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const [line] = (await once(child.stdout!, 'data')) as [Buffer];
    expect(line.toString().trim()).toBe('locked');
    // In an object: an async function returning the promise itself would wait for the exit.
    return { exited: once(child, 'exit') };
  }

  test.runIf(provider === 'sqlite')('a save waits for its write to end and is kept', async ({ app }) => {
    const oid = await createResource(app, { titre: 'Avant' });
    // A save reads on its own connection, then writes: it held no snapshot (passed before too).
    const other = await otherProcessWriting(300);
    const answer = await app
      .client()
      .post('/api/ressource?merge=1')
      .set(tokenHeaders)
      .send({ oid, titre: 'Après' });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(await other.exited).toEqual([0, null]);
    expect(await readResource(app, oid)).toMatchObject({ titre: 'Après' });
  });

  test.runIf(provider === 'sqlite')('a deletion waits for its write to end and is done', async ({ app }) => {
    const oid = await createResource(app, { titre: 'À supprimer' });
    const other = await otherProcessWriting(300);
    const answer = await app.client().delete(`/api/ressource/${oid}`).set(tokenHeaders);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(await other.exited).toEqual([0, null]);
    expect(await db.resource.count({ where: { oid } })).toBe(0);
  });

  test.runIf(provider === 'sqlite')(
    'an erasure waits for its write to end and is done, not refused as an outage',
    async ({ app }) => {
      // An erasure reads what it erases in its transaction, then writes (503 before).
      const pid = `labA/erased-${Date.now()}`;
      await db.person.create({ data: { pid, nom: 'Martin', prenom: 'Paul', email: 'paul@example.org' } });
      const other = await otherProcessWriting(300);
      const answer = await app.client().post('/api/personne/erase').set(tokenHeaders).send({ pid });
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      expect(await other.exited).toEqual([0, null]);
      expect(await db.person.count({ where: { pid } })).toBe(0);
    },
  );
});
