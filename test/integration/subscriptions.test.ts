/**
 * GraphQL subscriptions over Server-Sent Events, read by a client from a listening service: the
 * rights of the matching queries at subscribe time and again at every change (content never sent
 * once the caller may not read it), groups and searches followed, limits, cross-site requests,
 * and the end of every stream when the instance stops.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_TOKEN, startApp, type TestApp } from '../support/app.ts';
import { listen, sessionCookie, subscribe } from '../support/event-stream.ts';
import { type FakeLab, labUser, startFakeLab } from '../support/fake-lab.ts';
import { groupName } from '../support/groups.ts';

let lab: FakeLab;
let app: TestApp;
let base: string;
let stopListening: () => Promise<void>;
const token = { 'X-ApiToken': API_TOKEN };
const MAX_PER_CALLER = 3;

const RESOURCE = `subscription Follow($oid: Int!) {
  resourceChanged(oid: $oid) { kind oid resource { titre restriction } }
}`;
const GROUPS =
  'subscription { myGroupsChanged { groups { manager member group { nom managers { person { oid } } } } } }';
const SEARCH = `subscription Search($fulltext: String, $filters: [SearchChangeFilter!]) {
  searchChanged(fulltext: $fulltext, filters: $filters) { total added changed removed partial }
}`;

beforeAll(async () => {
  lab = await startFakeLab('labS');
  app = await startApp({
    labs: [lab.config()],
    subscriptions: { maxPerCaller: MAX_PER_CALLER, debounceMs: 10 },
  });
  const listening = await listen(app.app);
  base = listening.base;
  stopListening = listening.close;
});

afterAll(async () => {
  await app.close();
  await stopListening();
  await lab.close();
});

async function save(fields: Record<string, unknown>): Promise<number> {
  const response = await fetch(`${base}/api/ressource`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...token },
    body: JSON.stringify({ titre: 'Ressource', type: 'url', publie: true, restriction: 0, ...fields }),
  });
  const body = (await response.json()) as { oid: number };
  expect(response.status, JSON.stringify(body)).toBe(200);
  return body.oid;
}

async function legacy(path: string, cookie: string, body?: unknown) {
  const response = await fetch(`${base}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { cookie, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  expect(response.status, await response.clone().text()).toBe(200);
  return response.json();
}

const errorCodeOf = (data: { errors?: { extensions?: { code?: string } }[] }) =>
  data.errors?.[0]?.extensions?.code;

describe('resourceChanged', () => {
  it('sends the resource, its changes, then that it is gone without its content, and again once readable', async () => {
    const oid = await save({ titre: 'Première' });
    const stream = await subscribe(base, RESOURCE, { variables: { oid } });
    try {
      expect((await stream.next()).data).toEqual({
        data: { resourceChanged: { kind: 'CURRENT', oid, resource: { titre: 'Première', restriction: 0 } } },
      });
      await save({ oid, titre: 'Deuxième' });
      expect((await stream.next()).data.data.resourceChanged).toEqual({
        kind: 'UPDATED',
        oid,
        resource: { titre: 'Deuxième', restriction: 0 },
      });
      // Made private: an anonymous caller is told it is gone (as the query says: not found).
      await save({ oid, titre: 'Secrète', restriction: 3 });
      expect((await stream.next()).data.data.resourceChanged).toEqual({
        kind: 'REMOVED',
        oid,
        resource: null,
      });
      // Changed again while private: nothing is sent.
      await save({ oid, titre: 'Toujours secrète', restriction: 3 });
      await save({ oid, titre: 'De nouveau publique', restriction: 0 });
      expect((await stream.next()).data.data.resourceChanged).toEqual({
        kind: 'UPDATED',
        oid,
        resource: { titre: 'De nouveau publique', restriction: 0 },
      });
      expect(JSON.stringify(stream.received)).not.toContain('ecrète');
    } finally {
      stream.close();
    }
  });

  it('refuses at subscribe time a caller who may not read the resource', async () => {
    const oid = await save({ titre: 'Privée', restriction: 3 });
    const outsider = await sessionCookie(base, lab, labUser({ type: 1 }));
    for (const [headers, code] of [
      [{}, 'NOT_FOUND'],
      [{ cookie: outsider }, 'FORBIDDEN'],
    ] as const) {
      const stream = await subscribe(base, RESOURCE, { variables: { oid }, headers });
      const first = await stream.next();
      expect(first.data.data ?? null).toBeNull();
      expect(errorCodeOf(first.data)).toBe(code);
      await stream.ended;
      expect(JSON.stringify(stream.received)).not.toContain('Privée');
    }
    // An API token reads it; a deleted resource is then told as removed.
    const stream = await subscribe(base, RESOURCE, { variables: { oid }, headers: token });
    try {
      expect((await stream.next()).data.data.resourceChanged.resource.titre).toBe('Privée');
      const deleted = await fetch(`${base}/api/ressource/${oid}`, { method: 'DELETE', headers: token });
      expect(deleted.status).toBe(200);
      expect((await stream.next()).data.data.resourceChanged).toEqual({
        kind: 'REMOVED',
        oid,
        resource: null,
      });
    } finally {
      stream.close();
    }
  });

  it('tells a member who leaves the group that they may no longer read it (rights checked at each change)', async () => {
    const manager = await sessionCookie(base, lab, labUser({ type: 1 }));
    const member = await sessionCookie(base, lab, labUser({ type: 1 }));
    const nom = groupName('Classe');
    await legacy('/api/groupe', manager, { nom, ouvert: true });
    await legacy(`/api/groupe/rejoindre/${encodeURIComponent(nom)}`, member);
    const oid = await save({ titre: 'Pour la classe', restriction: 2, groupes: [nom] });
    // Over GET, as an EventSource sends it (same origin).
    const stream = await subscribe(base, RESOURCE, {
      variables: { oid },
      headers: { cookie: member, 'sec-fetch-site': 'same-origin' },
      method: 'GET',
    });
    try {
      expect((await stream.next()).data.data.resourceChanged.kind).toBe('CURRENT');
      await legacy(`/api/groupe/quitter/${encodeURIComponent(nom)}`, member);
      expect((await stream.next()).data.data.resourceChanged).toEqual({
        kind: 'FORBIDDEN',
        oid,
        resource: null,
      });
      await save({ oid, titre: 'Pour la classe, modifiée', restriction: 2, groupes: [nom] });
      await legacy(`/api/groupe/rejoindre/${encodeURIComponent(nom)}`, member);
      expect((await stream.next()).data.data.resourceChanged.resource.titre).toBe('Pour la classe, modifiée');
    } finally {
      stream.close();
    }
  });
  it('stops sending content once the session logged out (elsewhere), at the next change', async () => {
    const user = labUser({ type: 1 });
    const cookie = await sessionCookie(base, lab, user);
    const oid = await save({ titre: 'À moi', restriction: 3, auteurs: [`${lab.baseId}/${user.oid}`] });
    const stream = await subscribe(base, RESOURCE, { variables: { oid }, headers: { cookie } });
    try {
      expect((await stream.next()).data.data.resourceChanged.resource.titre).toBe('À moi');
      await legacy('/api/deconnexion', cookie);
      await save({ oid, titre: 'À moi, modifiée', restriction: 3, auteurs: [`${lab.baseId}/${user.oid}`] });
      // Now an anonymous caller: a private resource is not found.
      expect((await stream.next()).data.data.resourceChanged).toEqual({
        kind: 'REMOVED',
        oid,
        resource: null,
      });
      expect(JSON.stringify(stream.received)).not.toContain('modifiée');
    } finally {
      stream.close();
    }
  });
});

describe('myGroupsChanged', () => {
  it('sends the caller’s groups, then again when they change; anonymous callers are refused', async () => {
    const teacher = await sessionCookie(base, lab, labUser({ type: 1 }));
    const stream = await subscribe(base, GROUPS, { headers: { cookie: teacher } });
    try {
      expect((await stream.next()).data).toEqual({ data: { myGroupsChanged: { groups: [] } } });
      const nom = groupName('Atelier');
      const group = (await legacy('/api/groupe', teacher, { nom })) as {
        oid: number;
        gestionnaires: number[];
      };
      expect((await stream.next()).data.data.myGroupsChanged.groups).toEqual([
        {
          manager: true,
          member: true,
          group: { nom, managers: group.gestionnaires.map((oid) => ({ person: { oid } })) },
        },
      ]);
      // A change of the group itself (renamed) is delivered too.
      const renamed = groupName('Atelier renommé');
      await legacy('/api/groupe', teacher, { oid: group.oid, nom: renamed });
      expect((await stream.next()).data.data.myGroupsChanged.groups[0].group.nom).toBe(renamed);
    } finally {
      stream.close();
    }
    const anonymous = await subscribe(base, GROUPS);
    expect(errorCodeOf((await anonymous.next()).data)).toBe('UNAUTHENTICATED');
  });
});

describe('searchChanged', () => {
  it('sends the matching resources, then what was added, changed and removed', async () => {
    const word = `mot${Math.random().toString(36).slice(2, 10).replace(/\d/g, 'x')}`;
    const before = await save({ titre: `Avant ${word}` });
    const stream = await subscribe(base, SEARCH, { variables: { fulltext: word } });
    try {
      expect((await stream.next()).data.data.searchChanged).toEqual({
        total: 1,
        added: [before],
        changed: [],
        removed: [],
        partial: false,
      });
      const added = await save({ titre: `Ajoutée ${word}` });
      expect((await stream.next()).data.data.searchChanged).toMatchObject({ total: 2, added: [added] });
      await save({ oid: before, titre: `Avant ${word}, modifiée` });
      expect((await stream.next()).data.data.searchChanged).toMatchObject({ total: 2, changed: [before] });
      // No longer readable by this anonymous caller: removed, like a resource that stops matching.
      await save({ oid: added, titre: `Ajoutée ${word}`, publie: false });
      expect((await stream.next()).data.data.searchChanged).toMatchObject({ total: 1, removed: [added] });
      // A change elsewhere sends nothing.
      await save({ titre: 'Sans rapport' });
      await expect(stream.next(300)).rejects.toThrow(/no event/);
    } finally {
      stream.close();
    }
  });

  it('refuses invalid filters at subscribe time', async () => {
    const stream = await subscribe(base, SEARCH, {
      variables: { filters: [{ index: 'nope', values: ['1'] }] },
    });
    expect(errorCodeOf((await stream.next()).data)).toBe('INVALID_INPUT');
  });
});

describe('limits and transport', () => {
  it(`allows ${MAX_PER_CALLER} subscriptions per caller, and frees a slot when a client leaves`, async () => {
    const oid = await save({ titre: 'Très suivie' });
    const cookie = await sessionCookie(base, lab, labUser({ type: 1 }));
    const open = [];
    for (let i = 0; i < MAX_PER_CALLER; i++) {
      const stream = await subscribe(base, RESOURCE, { variables: { oid }, headers: { cookie } });
      expect((await stream.next()).data.data.resourceChanged.kind).toBe('CURRENT');
      open.push(stream);
    }
    const refused = await subscribe(base, RESOURCE, { variables: { oid }, headers: { cookie } });
    expect(errorCodeOf((await refused.next()).data)).toBe('RATE_LIMITED');
    // Another caller is not affected.
    const other = await subscribe(base, RESOURCE, { variables: { oid }, headers: token });
    expect((await other.next()).data.data.resourceChanged.kind).toBe('CURRENT');
    other.close();
    open.pop()?.close();
    const deadline = Date.now() + 2000;
    let next = await subscribe(base, RESOURCE, { variables: { oid }, headers: { cookie } });
    while (errorCodeOf((await next.next()).data) === 'RATE_LIMITED' && Date.now() < deadline) {
      await new Promise((done) => setTimeout(done, 20));
      next = await subscribe(base, RESOURCE, { variables: { oid }, headers: { cookie } });
    }
    expect(next.received[0]?.data.data.resourceChanged.kind).toBe('CURRENT');
    next.close();
    for (const stream of open) stream.close();
  });

  it('refuses a session’s subscription sent by a page of another site, and a cookie GET without a stream', async () => {
    const oid = await save({ titre: 'Visée' });
    const cookie = await sessionCookie(base, lab, labUser({ type: 1 }));
    for (const method of ['GET', 'POST'] as const) {
      const stream = await subscribe(base, RESOURCE, {
        variables: { oid },
        headers: { cookie, origin: 'http://evil.test', 'x-graphql-yoga-csrf': '1' },
        method,
      });
      expect(errorCodeOf((await stream.next()).data)).toBe('CROSS_SITE_REQUEST');
    }
    // A lab's page may.
    const fromLab = await subscribe(base, RESOURCE, {
      variables: { oid },
      headers: { cookie, origin: new URL(lab.baseUrl).origin },
      method: 'GET',
    });
    expect((await fromLab.next()).data.data.resourceChanged.kind).toBe('CURRENT');
    fromLab.close();
    // The exception is for event streams only: a plain GET query with a cookie still needs the header.
    const query = await fetch(`${base}/graphql?query=${encodeURIComponent('{ viewer { kind } }')}`, {
      headers: { cookie, accept: 'application/json' },
    });
    expect(query.status).toBe(403);
  });

  it('refuses input that cannot be valid in a subscription (checked when it starts)', async () => {
    // A NUL written as a GraphQL escape: the raw body has none, the operation's literal has one.
    const stream = await subscribe(base, 'subscription { searchChanged(fulltext: "mot\\u0000") { total } }');
    expect(errorCodeOf((await stream.next()).data)).toBe('INVALID_INPUT');
  });

  it('ends every stream when the instance stops, and refuses new ones', async () => {
    const other = await startApp({ labs: [lab.config()] });
    const listening = await listen(other.app);
    const oid = await save({ titre: 'Jusqu’à l’arrêt' });
    const streams = await Promise.all(
      [RESOURCE, SEARCH].map((query) =>
        subscribe(listening.base, query, { variables: { oid, fulltext: 'arret' }, headers: token }),
      ),
    );
    for (const stream of streams) await stream.next();
    expect(other.services.subscriptions.size).toBe(2);
    await other.services.subscriptions.close();
    for (const stream of streams) {
      await stream.ended;
      expect(stream.received.at(-1)?.event).toBe('complete');
    }
    expect(other.services.subscriptions.size).toBe(0);
    const late = await subscribe(listening.base, RESOURCE, { variables: { oid }, headers: token });
    expect(errorCodeOf((await late.next()).data)).toBe('RATE_LIMITED');
    await other.close();
    await listening.close();
  });
});
