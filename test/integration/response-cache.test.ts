/**
 * The response cache of anonymous public reads (src/gateway/response-cache.ts), in one instance:
 * a repeated anonymous read runs no SQL, through REST and GraphQL; no other caller is served from
 * it; and every kind of change is visible on the next read (title, rights, publication, deletion,
 * an author's or a group's new name, a write made straight through the database client).
 * Other instances: test/process/response-cache.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { db, onStatement } from '../../src/db/client.ts';
import { addPerson, type Browser, logIn, tokenHeaders } from '../support/actors.ts';
import { startApp, type TestApp } from '../support/app.ts';
import { type FakeLab, labUser } from '../support/fake-lab.ts';
import { appTest } from '../support/fixtures.ts';
import { createGroup, groupName } from '../support/groups.ts';
import { createResource } from '../support/resources.ts';

const test = appTest.override({ labId: 'labCache' });

let lab: FakeLab;
let app: TestApp;
let manager: Browser;

test.beforeAll(async ({ lab: startedLab, app: startedApp }) => {
  lab = startedLab;
  app = startedApp;
  manager = await logIn(app, lab, labUser({ type: 1 }));
});

/** The response and the SQL statements it took. */
async function counted<T>(send: () => PromiseLike<T>): Promise<{ response: T; statements: number }> {
  let statements = 0;
  const stop = onStatement(() => {
    statements += 1;
  });
  try {
    return { response: await send(), statements };
  } finally {
    stop();
  }
}

const publicRead = (oid: number) => app.client().get(`/api/public/${oid}?format=full`);

const PUBLIC_QUERY = `query Public($oid: Int!) { publicResource(oid: $oid) { __typename
  ... on Resource { oid titre authors { person { label } } readerGroups { group { nom } } } ... on Error { code } } }`;
const graphqlRead = (oid: number, headers: Record<string, string> = {}) =>
  app.client().post('/graphql').set(headers).send({ query: PUBLIC_QUERY, variables: { oid } });

describe('anonymous public reads are answered from memory', () => {
  it('a repeated read runs no SQL and answers the same, through REST (with its ETag) and GraphQL', async () => {
    const oid = await createResource(app, { titre: 'En cache' });
    const first = await publicRead(oid);
    expect(first.status).toBe(200);
    const again = await counted(() => publicRead(oid));
    expect(again.statements).toBe(0);
    expect(again.response.status).toBe(200);
    expect(again.response.body).toEqual(first.body);
    expect(again.response.headers.etag).toBe(first.headers.etag);

    const viaGraphql = await graphqlRead(oid);
    expect(viaGraphql.body.data.publicResource).toMatchObject({ oid, titre: 'En cache' });
    const graphqlAgain = await counted(() => graphqlRead(oid));
    expect(graphqlAgain.statements).toBe(0);
    expect(graphqlAgain.response.body).toEqual(viaGraphql.body);
  });

  it('an unknown oid is answered from memory too, until a change', async () => {
    const missing = 2_000_000_000;
    expect((await publicRead(missing)).status).toBe(404);
    const again = await counted(() => publicRead(missing));
    expect(again.response.status).toBe(404);
    expect(again.statements).toBe(0);
  });

  it('callers with a token or a session are never answered from it', async () => {
    const oid = await createResource(app, { titre: 'Pas pour eux' });
    for (const headers of [tokenHeaders, {}]) {
      const send = () =>
        headers === tokenHeaders
          ? graphqlRead(oid, tokenHeaders)
          : manager.post('/graphql').send({ query: PUBLIC_QUERY, variables: { oid } });
      await send();
      const again = await counted(send);
      expect(again.response.body.data.publicResource.titre).toBe('Pas pour eux');
      expect(again.statements).toBeGreaterThan(0);
    }
  });

  it('other anonymous operations (lists) are not kept', async () => {
    await app.client().get('/api/liste?nb=5');
    const again = await counted(() => app.client().get('/api/liste?nb=5'));
    expect(again.statements).toBeGreaterThan(0);
  });

  it('can be turned off', async () => {
    const uncached = await startApp({ responseCache: { enabled: false } });
    try {
      const oid = await createResource(uncached, { titre: 'Sans cache' });
      await uncached.client().get(`/api/public/${oid}`);
      const again = await counted(() => uncached.client().get(`/api/public/${oid}`));
      expect(again.statements).toBeGreaterThan(0);
    } finally {
      await uncached.close();
    }
  });
});

describe('every change is seen by the next anonymous read', () => {
  /** Reads twice (the second from memory), changes, and returns the next read. */
  async function afterChange(oid: number, change: () => Promise<unknown>) {
    await publicRead(oid);
    expect((await counted(() => publicRead(oid))).statements).toBe(0);
    await change();
    return publicRead(oid);
  }

  const save = (fields: Record<string, unknown>) => async () => {
    const response = await app.client().post('/api/ressource').set(tokenHeaders).send(fields);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
  };

  it('a new title', async () => {
    const oid = await createResource(app, { titre: 'Avant' });
    const after = await afterChange(
      oid,
      save({ oid, titre: 'Après', type: 'url', categories: [7], publie: true, restriction: 0 }),
    );
    expect(after.body.titre).toBe('Après');
  });

  it.each([
    ['made private', { restriction: 3 }],
    ['restricted to groups', { restriction: 2 }],
    ['unpublished', { publie: false }],
  ])('%s: not found from then on, through REST and GraphQL', async (_label, fields) => {
    const oid = await createResource(app, { titre: 'Bientôt caché' });
    await graphqlRead(oid);
    const after = await afterChange(oid, save({ oid, ...fields, merge: true }));
    expect(after.status).toBe(404);
    expect((await graphqlRead(oid)).body.data.publicResource.__typename).toBe('ResourceNotFoundError');
  });

  it('deleted: not found from then on', async () => {
    const oid = await createResource(app, { titre: 'Bientôt supprimé' });
    const after = await afterChange(oid, async () => {
      expect((await app.client().delete(`/api/ressource/${oid}`).set(tokenHeaders)).status).toBe(200);
    });
    expect(after.status).toBe(404);
  });

  it('an author renamed', async () => {
    const author = await addPerson(app, {
      origine: 'ext',
      idOrigine: groupName('p'),
      nom: 'Ancien',
      prenom: 'A',
    });
    const oid = await createResource(app, { titre: 'Son œuvre', auteurs: [author.pid] });
    const before = await publicRead(oid);
    expect(JSON.stringify(before.body)).toContain('Ancien');
    const after = await afterChange(oid, () =>
      addPerson(app, { origine: 'ext', idOrigine: author.pid.split('/')[1], nom: 'Nouveau', prenom: 'A' }),
    );
    expect(JSON.stringify(after.body)).toContain('Nouveau');
    expect(JSON.stringify(after.body)).not.toContain('Ancien');
  });

  it('a group renamed', async () => {
    const group = await createGroup(manager, { public: true });
    const oid = await createResource(app, { titre: 'Du groupe', groupesAuteurs: [group.nom] });
    const renamed = groupName('Renommé');
    const after = await afterChange(oid, async () => {
      const response = await manager.post('/api/groupe').send({ oid: group.oid, nom: renamed });
      expect(response.status, JSON.stringify(response.body)).toBe(200);
    });
    expect(JSON.stringify(after.body)).toContain(renamed);
  });

  it('a write made through the database client, outside any route', async () => {
    const oid = await createResource(app, { titre: 'Par la base' });
    const after = await afterChange(oid, () =>
      db.resource.update({ where: { oid }, data: { titre: 'Changé' } }),
    );
    expect(after.body.titre).toBe('Changé');
  });
});

describe('list totals are counted once per state of the content', () => {
  const countsOf = async (send: () => PromiseLike<{ body: { total?: number } }>) => {
    const counts: string[] = [];
    const stop = onStatement((sql) => {
      if (/COUNT\(/i.test(sql)) counts.push(sql);
    });
    try {
      return { total: (await send()).body.total, counts: counts.length };
    } finally {
      stop();
    }
  };

  it.each([
    ['anonymous', {}],
    ['API token', tokenHeaders],
  ])(
    '%s: a repeated list counts nothing, and a new resource is in the next total',
    async (_label, headers) => {
      const list = () => app.client().get('/api/liste?nb=3').set(headers);
      const first = await countsOf(list);
      const again = await countsOf(list);
      expect(again).toEqual({ total: first.total, counts: 0 });
      await createResource(app, { titre: 'Une de plus' });
      const after = await countsOf(list);
      expect(after).toEqual({ total: (first.total as number) + 1, counts: 1 });
    },
  );
});
