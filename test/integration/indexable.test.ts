/**
 * `indexable` (compatibility notes §4, §5): a resource that is not indexable — an obsolete one,
 * replaced by another but still published because it is used — is not listed by searches, whoever
 * searches, except to its authors, who find all of their own resources; it stays readable, by oid,
 * origin or rid, by whoever may read it. Every listing path, as anonymous, authenticated,
 * group-member, owner and API-token callers; totals agree with the items, and nothing kept (totals,
 * cached answers, a watched search) outlives a change of `indexable`.
 */
import { expect } from 'vitest';
import { type Browser, logIn, tokenHeaders } from '../support/actors.ts';
import { listen, subscribe } from '../support/event-stream.ts';
import { labUser } from '../support/fake-lab.ts';
import { appTest } from '../support/fixtures.ts';
import { graphql } from '../support/graphql.ts';
import { type Cast, createResource } from '../support/resources.ts';

const test = appTest.override({ labId: 'labI' });

type Caller = 'anonymous' | 'outsider' | 'member' | 'owner' | 'token';
const CALLERS: Caller[] = ['anonymous', 'outsider', 'member', 'owner', 'token'];

/** A word no other test uses (letters only: the full-text index keeps words whole). */
const word = () => `zq${Math.random().toString(36).slice(2, 10).replace(/\d/g, 'k')}`;

interface Scene {
  owner: Browser;
  pid: string;
  origine: string;
  word: string;
  /** Public, published, indexable. */
  listed: number;
  /** Public and published, not indexable: replaced, still used. */
  unlisted: number;
  /** Shared with the cast's group, not indexable. */
  groupUnlisted: number;
  /** Shared with the cast's group, indexable. */
  groupListed: number;
  as(caller: Caller): {
    caller: Browser | ReturnType<Cast['app']['client']>;
    headers: Record<string, string>;
  };
}

/** Four resources of a new teacher (the owner), titled with one new word, from one new origin. */
async function scene(cast: Cast): Promise<Scene> {
  const user = labUser({ type: 1 });
  const owner = await logIn(cast.app, cast.lab, user);
  const pid = `${cast.lab.baseId}/${user.oid}`;
  const text = word();
  const origine = `o${text}`;
  let made = 0;
  const make = (titre: string, fields: Record<string, unknown> = {}) =>
    createResource(cast.app, {
      origine,
      idOrigine: String(++made),
      titre: `${titre} ${text}`,
      auteurs: [pid],
      ...fields,
    });
  const group = { restriction: 2, groupes: [cast.group] };
  return {
    owner,
    pid,
    origine,
    word: text,
    listed: await make('Indexée'),
    unlisted: await make('Remplacée', { indexable: false }),
    groupUnlisted: await make('Remplacée du groupe', { ...group, indexable: false }),
    groupListed: await make('Indexée du groupe', group),
    as(caller) {
      if (caller === 'owner') return { caller: owner, headers: {} };
      if (caller === 'outsider' || caller === 'member') return cast.as(caller);
      return cast.as(caller);
    },
  };
}

/** What each caller's searches list: readable, and indexable unless the caller wrote it. */
function expected(scene: Scene): Record<Caller, number[]> {
  const { listed, unlisted, groupUnlisted, groupListed } = scene;
  return {
    anonymous: [listed],
    outsider: [listed],
    member: [listed, groupListed],
    owner: [listed, unlisted, groupUnlisted, groupListed],
    token: [listed, groupListed],
  };
}

const oidOfRef = (item: { oid?: number; aliasOf?: string }) =>
  item.oid ?? Number(item.aliasOf!.split('/')[1]);
const sorted = (oids: number[]) => [...oids].sort((a, b) => a - b);

test('GET /api/liste leaves non-indexable resources out for every caller but their authors, by filter and by full text', async ({
  cast,
}) => {
  const s = await scene(cast);
  for (const caller of CALLERS) {
    const { caller: client, headers } = s.as(caller);
    for (const query of [{ origine: s.origine }, { fulltext: s.word }]) {
      const response = await client
        .get('/api/liste')
        .set(headers)
        .query({ ...query, nb: 50 });
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      const oids = response.body.liste.map(oidOfRef);
      expect(sorted(oids), `${caller} ${JSON.stringify(query)}`).toEqual(sorted(expected(s)[caller]));
      expect(response.body.total, `${caller} total`).toBe(oids.length);
    }
  }
});

test('searchResources and resourceConnection list what /api/liste lists, totals included', async ({
  cast,
}) => {
  const s = await scene(cast);
  const filters = [{ index: 'origine', values: [s.origine] }];
  for (const caller of CALLERS) {
    const { caller: client, headers } = s.as(caller);
    for (const fulltext of [false, true]) {
      const chosen = fulltext ? [{ index: 'fulltext', values: [s.word] }] : filters;
      const page = await graphql(
        client,
        `query($filters: [ResourceFilter!]) {
          searchResources(filters: $filters, nb: 50) { ... on ResourcePage { total items { oid } } }
        }`,
        { filters: chosen },
        headers,
      );
      expect(page.errors).toBeUndefined();
      const oids = page.data!.searchResources.items.map((item: { oid: number }) => item.oid);
      expect(sorted(oids), `${caller} fulltext ${fulltext}`).toEqual(sorted(expected(s)[caller]));
      expect(page.data!.searchResources.total).toBe(oids.length);
    }
    const connection = await graphql(
      client,
      `query($filters: [ResourceFilter!]) {
        resourceConnection(filters: $filters, first: 50) { totalCount edges { node { oid } } }
      }`,
      { filters },
      headers,
    );
    expect(connection.errors).toBeUndefined();
    const oids = connection.data!.resourceConnection.edges.map(
      (edge: { node: { oid: number } }) => edge.node.oid,
    );
    expect(sorted(oids), `${caller} connection`).toEqual(sorted(expected(s)[caller]));
    expect(connection.data!.resourceConnection.totalCount).toBe(oids.length);
  }
});

test('the caller’s own list (/api/liste/perso, myResources) keeps every resource they wrote', async ({
  cast,
}) => {
  const s = await scene(cast);
  const all = sorted(expected(s).owner);
  const perso = await s.owner.get('/api/liste/perso').query({ origine: s.origine, nb: 50 });
  expect(sorted(perso.body.liste.map(oidOfRef))).toEqual(all);
  expect(perso.body.total).toBe(all.length);
  const mine = await graphql(
    s.owner,
    `query($filters: [ResourceFilter!]) {
      myResources(filters: $filters, nb: 50) { ... on ResourcePage { total items { oid } } }
    }`,
    { filters: [{ index: 'origine', values: [s.origine] }] },
  );
  expect(mine.errors).toBeUndefined();
  expect(sorted(mine.data!.myResources.items.map((item: { oid: number }) => item.oid))).toEqual(all);
  expect(mine.data!.myResources.total).toBe(all.length);
});

test('GET /api/liste/auteurs and authorsResources list an author’s indexable resources, the rights warning counting only unreadable ones', async ({
  cast,
}) => {
  const s = await scene(cast);
  const unreadable: Record<Caller, number> = { anonymous: 1, outsider: 1, member: 0, owner: 0, token: 0 };
  for (const caller of CALLERS) {
    const { caller: client, headers } = s.as(caller);
    const response = await client.get('/api/liste/auteurs').set(headers).query({ pids: s.pid });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    const oids = response.body[s.pid].liste.map(oidOfRef);
    expect(sorted(oids), caller).toEqual(sorted(expected(s)[caller]));
    expect(response.body.total, `${caller} total`).toBe(oids.length);
    const warned = unreadable[caller]
      ? [`${unreadable[caller]} ressource(s) retirée(s) faute de droits de lecture`]
      : undefined;
    expect(response.body.warnings, caller).toEqual(warned);

    const grouped = await graphql(
      client,
      `query($pids: String!) {
        authorsResources(pids: $pids) { ... on AuthorsPage { total authors { resources { oid } } } }
      }`,
      { pids: s.pid },
      headers,
    );
    expect(grouped.errors).toBeUndefined();
    const [author] = grouped.data!.authorsResources.authors;
    expect(sorted(author.resources.map((r: { oid: number }) => r.oid))).toEqual(sorted(expected(s)[caller]));
    expect(grouped.data!.authorsResources.total).toBe(author.resources.length);
  }
});

test('a non-indexable resource stays readable by oid, origin and rid by whoever may read it, and is not harvested', async ({
  cast,
}) => {
  const s = await scene(cast);
  const anonymous = cast.app.client();
  const byOid = await anonymous.get(`/api/public/${s.unlisted}`);
  expect(byOid.status).toBe(200);
  expect(byOid.body).toMatchObject({ oid: s.unlisted, indexable: false });
  expect((await anonymous.get(`/api/public/${s.origine}/2`)).body).toMatchObject({ oid: s.unlisted });
  const rid = await graphql(
    anonymous,
    'query($id: String!) { resourceById(id: $id) { ... on Resource { oid } } }',
    { id: `repo/${s.unlisted}` },
  );
  expect(rid.data?.resourceById).toEqual({ oid: s.unlisted });
  // Group-only: its group's members read it, others do not, as before.
  expect((await cast.browsers.member.get(`/api/ressource/${s.groupUnlisted}`)).status).toBe(200);
  expect((await cast.browsers.outsider.get(`/api/ressource/${s.groupUnlisted}`)).status).toBe(403);
  expect((await s.owner.get(`/api/ressource/${s.groupUnlisted}`)).status).toBe(200);
  // OAI-PMH exposes the listed one only.
  const record = (oid: number) =>
    anonymous
      .get('/oai')
      .query({ verb: 'GetRecord', metadataPrefix: 'oai_dc', identifier: `oai:repo.test:${oid}` });
  expect((await record(s.listed)).text).toContain(`<identifier>oai:repo.test:${s.listed}</identifier>`);
  expect((await record(s.unlisted)).text).toContain('code="idDoesNotExist"');
});

test('a change of indexable reaches kept totals and cached answers at once', async ({ cast }) => {
  const s = await scene(cast);
  const anonymous = cast.app.client();
  const tokenList = () => cast.app.client().get('/api/liste').set(tokenHeaders).query({ origine: s.origine });
  expect((await tokenList()).body.total).toBe(2);
  expect((await tokenList()).body.total).toBe(2); // kept
  expect((await anonymous.get(`/api/public/${s.listed}`)).body.indexable).toBe(true); // cached
  const saved = await s.owner.post('/api/ressource').send({ oid: s.listed, indexable: false });
  expect(saved.body, JSON.stringify(saved.body)).toMatchObject({ success: true });
  const after = (await tokenList()).body;
  expect(after.total).toBe(1);
  expect(after.liste.map(oidOfRef)).toEqual([s.groupListed]);
  expect((await anonymous.get(`/api/public/${s.listed}`)).body.indexable).toBe(false);
  expect((await anonymous.get('/api/liste').query({ origine: s.origine })).body).toMatchObject({
    total: 0,
    liste: [],
  });
  // Indexable again: listed again.
  await s.owner.post('/api/ressource').send({ oid: s.listed, indexable: true });
  expect((await anonymous.get('/api/liste').query({ origine: s.origine })).body.total).toBe(1);
});

test('a watched search (searchChanged) leaves them out, and removes a resource that stops being indexable', async ({
  cast,
}) => {
  const s = await scene(cast);
  const listening = await listen(cast.app.app);
  const stream = await subscribe(
    listening.base,
    'subscription($fulltext: String) { searchChanged(fulltext: $fulltext) { total added removed } }',
    { variables: { fulltext: s.word } },
  );
  try {
    expect((await stream.next()).data.data.searchChanged).toEqual({
      total: 1,
      added: [s.listed],
      removed: [],
    });
    await s.owner.post('/api/ressource').send({ oid: s.listed, indexable: false });
    expect((await stream.next()).data.data.searchChanged).toEqual({
      total: 0,
      added: [],
      removed: [s.listed],
    });
  } finally {
    stream.close();
    await listening.close();
  }
});
