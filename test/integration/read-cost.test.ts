/**
 * What one read costs the database: at most two SQL statements for a single resource, whatever the
 * route, the format and the caller (one to know who calls, one for the resource with everything it
 * carries: authors' and groups' names, related resources' titles, the rights facts).
 */
import { describe, expect, it } from 'vitest';
import { onStatement } from '../../src/db/client.ts';
import { type Browser, logIn, logInWithRoles, tokenHeaders } from '../support/actors.ts';
import type { TestApp } from '../support/app.ts';
import { type FakeLab, labUser } from '../support/fake-lab.ts';
import { appTest } from '../support/fixtures.ts';
import { groupName } from '../support/groups.ts';
import { createResource } from '../support/resources.ts';

// What a read costs the database, not what the response cache saves (test/integration/response-cache.test.ts).
const test = appTest.override({ labId: 'labCost', appOptions: { responseCache: { enabled: false } } });

let lab: FakeLab;
let app: TestApp;
let author: Browser;
let member: Browser;
let admin: Browser;
let oid: number;
let cle: string;

test.beforeAll(async ({ lab: startedLab, app: startedApp }) => {
  lab = startedLab;
  app = startedApp;
  const authorUser = labUser({ type: 1 });
  author = await logIn(app, lab, authorUser);
  member = await logIn(app, lab, labUser({ type: 0 }));
  admin = (await logInWithRoles(app, lab, ['admin'])).browser;
  const group = groupName('Coût');
  expect((await author.post('/api/groupe').send({ nom: group, ouvert: true })).status).toBe(200);
  expect((await member.get(`/groupe/rejoindre/${encodeURIComponent(group)}`)).status).toBe(200);
  const targets = [
    await createResource(app, { titre: 'Cible publique' }),
    await createResource(app, { titre: 'Cible privée', restriction: 3 }),
  ];
  const pid = `${lab.baseId}/${authorUser.oid}`;
  oid = await createResource(app, {
    titre: 'Ressource complète',
    auteurs: [pid],
    contributeurs: [pid],
    groupes: [group],
    groupesAuteurs: [group],
    restriction: 2,
    categories: [7, 3],
    niveaux: ['6e'],
    relations: [...targets.map((target) => [1, `repo/${target}`]), [1, 'ailleurs/9']],
  });
  cle = (await app.client().get(`/api/ressource/${oid}`).set(tokenHeaders)).body.cle;
  expect(cle).toEqual(expect.any(String));
  const publicOid = await createResource(app, { titre: 'Publique' });
  publicRoutes.push(
    `/api/public/${publicOid}`,
    `/api/public/${publicOid}?format=full`,
    `/api/public/repo/${publicOid}`,
  );
});

const publicRoutes: string[] = [];

async function statementsOf(send: () => PromiseLike<{ status: number; text: string }>) {
  // A first call takes what is done once per session or per process (a session touch, a statement cache).
  await send();
  // The session touch that call may start can end after its response: let it, then count.
  await new Promise((settled) => setTimeout(settled, 100));
  const statements: string[] = [];
  const stop = onStatement((sql) => statements.push(sql));
  try {
    const response = await send();
    expect(response.status, response.text.slice(0, 200)).toBe(200);
  } finally {
    stop();
  }
  return statements;
}

const FULL = `query ($oid: Int!) { resource(oid: $oid) { __typename ... on Resource {
  oid rid titre contributors { person { pid label } } authorGroups { group { nom } } categories niveaux
  droits resolvedRelations { rid titre type } ref { aliasOf droits categories }
  authors { position person { pid label } } readerGroups { group { nom } } } } }`;

describe('a single read', () => {
  const callers = () =>
    [
      ['token', app.client(), tokenHeaders],
      ['author (session)', author, {}],
      ['group member (session)', member, {}],
      ['administrator (session)', admin, {}],
    ] as const;

  it.each(['', '?format=ref', '?format=full&droits=1', '?droits=1'])(
    'GET /api/ressource/:oid%s: at most 2 statements for every caller',
    async (query) => {
      for (const [name, caller, headers] of callers()) {
        const statements = await statementsOf(() => caller.get(`/api/ressource/${oid}${query}`).set(headers));
        expect(statements.length, `${name}: ${statements.join('\n')}`).toBeLessThanOrEqual(2);
      }
    },
  );

  it('by origin pair, rid or read key: at most 2 statements', async () => {
    for (const path of [`/api/ressource/repo/${oid}?format=full`, `/api/ressource/cle/${cle}?format=full`]) {
      for (const [name, caller, headers] of callers()) {
        const statements = await statementsOf(() => caller.get(path).set(headers));
        expect(statements.length, `${name} ${path}: ${statements.join('\n')}`).toBeLessThanOrEqual(2);
      }
    }
  });

  it('public routes, whatever the cookie: one statement', async () => {
    for (const path of publicRoutes) {
      for (const caller of [app.client(), author]) {
        const statements = await statementsOf(() => caller.get(path));
        expect(statements.length, `${path}: ${statements.join('\n')}`).toBeLessThanOrEqual(1);
      }
    }
  });

  it('GraphQL, every field: at most 2 statements for every caller', async () => {
    for (const [name, caller, headers] of callers()) {
      const statements = await statementsOf(() =>
        caller.post('/graphql').set(headers).send({ query: FULL, variables: { oid } }),
      );
      expect(statements.length, `${name}: ${statements.join('\n')}`).toBeLessThanOrEqual(2);
    }
  });

  it('format=full reads each author and group relation of the resource once', async () => {
    // The rights facts come from the named lists a full read selects anyway, not from a second
    // sub-query per relation (4 of the statement's 21 before).
    for (const [name, caller, headers] of callers()) {
      const statements = await statementsOf(() =>
        caller.get(`/api/ressource/${oid}?format=full`).set(headers),
      );
      const document = statements.find((sql) => sql.includes('"ResourceAuthorGroup"'));
      expect(document, `${name}: ${statements.join('\n')}`).toBeDefined();
      expect(document).not.toMatch(/AS "(authorOids|contributorOids|readerGroupOids|authorGroupOids)"/);
    }
  });

  it('is what the reader may see: names, rights and only the related resources they may read', async () => {
    const response = await member.get(`/api/ressource/${oid}?format=full&droits=1`);
    expect(response.body._droits).toBe('RW');
    expect(response.body._relations.map((r: { titre: string | null }) => r.titre)).toEqual([
      'Cible publique',
      null,
      null,
    ]);
  });
});
