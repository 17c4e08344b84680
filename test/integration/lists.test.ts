/** Lists and search (API document "Lists", compatibility notes §5). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { db, onStatement } from '../../src/db/client.ts';
import { contentChanges } from '../../src/db/content-changes.ts';
import { addPerson, tokenHeaders } from '../support/actors.ts';
import { startApp, type TestApp } from '../support/app.ts';
import type { FakeLab } from '../support/fake-lab.ts';
import { appTest } from '../support/fixtures.ts';
import { errorCode, graphql } from '../support/graphql.ts';
import { type Actor, type Cast, createResource } from '../support/resources.ts';

const test = appTest.override({ labId: 'labL', appOptions: { maxSql: 40 } });

let lab: FakeLab;
let app: TestApp;
let cast: Cast;

test.beforeAll(async ({ lab: startedLab, app: startedApp, cast: madeCast }) => {
  lab = startedLab;
  app = startedApp;
  cast = madeCast;
});

let markers = 0;
/** An origin no other test uses: lists filtered on it see only this test's resources. */
const marker = () => `m${++markers}x${Math.random().toString(36).slice(2, 7)}`;

async function seed(origine: string, list: Record<string, unknown>[]) {
  const oids: number[] = [];
  for (const [i, fields] of list.entries()) {
    oids.push(
      await createResource(app, { origine, idOrigine: String(i), auteurs: [cast.pids.author], ...fields }),
    );
  }
  return oids;
}

const list = (caller: ReturnType<Cast['as']>, query: Record<string, unknown>) =>
  caller.caller.get('/api/liste').set(caller.headers).query(query);
const oidsOf = (body: { liste: { oid?: number; aliasOf?: string }[] }) =>
  body.liste.map((item) => item.oid ?? Number(item.aliasOf!.split('/')[1]));

describe('visibility is part of the query', () => {
  const expected: Record<
    Exclude<Actor, 'coauthor' | 'manager' | 'contributor' | 'outsider' | 'corrector' | 'author'>,
    string[]
  > = {
    anonymous: ['public'],
    pupil: ['public'],
    member: ['public', 'group'],
    token: ['public', 'group', 'private', 'draft'],
  };
  let origine: string;
  const names = ['public', 'group', 'private', 'draft'];
  let oids: number[];
  beforeAll(async () => {
    origine = marker();
    oids = await seed(origine, [
      {},
      { restriction: 2, groupes: [cast.group] },
      { restriction: 3 },
      { publie: false },
    ]);
  });

  it.each(Object.keys(expected) as (keyof typeof expected)[])(
    '%s: REST and GraphQL list the same readable resources',
    async (actor) => {
      const caller = cast.as(actor);
      const rest = await list(caller, { origine, format: 'light' });
      const visible = expected[actor].map((name) => oids[names.indexOf(name)]);
      expect(rest.body.total).toBe(visible.length);
      expect(oidsOf(rest.body)).toEqual(visible);
      for (const item of rest.body.liste) expect(item.$droits).toMatch(/^R/);
      const gql = await graphql(
        caller.caller,
        `query ($f: [ResourceFilter!]) { searchResources(filters: $f) { ... on ResourcePage { total items { oid droits } } } }`,
        { f: [{ index: 'origine', values: [origine] }] },
        caller.headers,
      );
      expect(gql.data?.searchResources.total).toBe(visible.length);
      expect(gql.data?.searchResources.items.map((i: { oid: number }) => i.oid)).toEqual(visible);
    },
  );

  it('shows an anonymous caller the query actually applied', async () => {
    const response = await list(cast.as('anonymous'), { origine });
    expect(response.body.query).toEqual({ origine: [origine], publie: [true], restriction: [0] });
  });
});

describe('filters', () => {
  let origine: string;
  let oids: number[];
  beforeAll(async () => {
    origine = marker();
    oids = await seed(origine, [
      {
        titre: 'Alpha',
        type: 'em',
        langue: 'fra',
        categories: [1, 2],
        niveaux: ['6e'],
        typePedagogiques: [9],
        typeDocumentaires: [12],
        groupes: [cast.group],
      },
      {
        titre: 'Beta',
        type: 'url',
        langue: 'eng',
        categories: [2],
        niveaux: ['5e', '4e'],
        contributeurs: [cast.pids.contributor],
        aliasOf: 'autre/1',
      },
      {
        titre: 'Gamma',
        type: 'j3p',
        langue: 'fra',
        categories: [3],
        restriction: 1,
        groupesAuteurs: [cast.group],
        typePedagogiques: [3],
      },
    ]);
  });

  const cases: [string, Record<string, unknown> | ((oids: number[]) => Record<string, unknown>), number[]][] =
    [
      ['titre', { index: 'titre', values: ['Beta'] }, [1]],
      ['oid', (o) => ({ index: 'oid', values: [o[0], String(o[2])] }), [0, 2]],
      ['rid', (o) => ({ index: 'rid', values: [`repo/${o[1]}`, 'ailleurs/1'] }), [1]],
      ['idOrigine', { index: 'idOrigine', values: ['2'] }, [2]],
      ['type (values OR-ed)', { index: 'type', values: ['em', 'j3p'] }, [0, 2]],
      ['langue', { index: 'langue', values: ['eng'] }, [1]],
      ['auteurs', () => ({ index: 'auteurs', values: [cast.pids.author] }), [0, 1, 2]],
      ['contributeurs', () => ({ index: 'contributeurs', values: [cast.pids.contributor] }), [1]],
      ['contributeurs present', { index: 'contributeurs' }, [1]],
      ['niveaux', { index: 'niveaux', values: ['4e'] }, [1]],
      ['categories', { index: 'categories', values: [2] }, [0, 1]],
      ['categories as strings', { index: 'categories', values: ['3'] }, [2]],
      ['typePedagogiques', { index: 'typePedagogiques', values: [3, 9] }, [0, 2]],
      ['typeDocumentaires', { index: 'typeDocumentaires', values: [12] }, [0]],
      ['groupes (any spelling)', () => ({ index: 'groupes', values: [cast.group.toUpperCase()] }), [0]],
      ['groupesAuteurs present', { index: 'groupesAuteurs' }, [2]],
      ['publie', { index: 'publie', values: ['true'] }, [0, 1, 2]],
      ['restriction', { index: 'restriction', values: [1] }, [2]],
      ['aliasOf', { index: 'aliasOf', values: ['autre/1'] }, [1]],
      ['aliasOf present', { index: 'aliasOf' }, [1]],
      [
        'dateCreation (a day)',
        { index: 'dateCreation', values: [new Date().toISOString().slice(0, 10)] },
        [0, 1, 2],
      ],
      ['dateMiseAJour (another day)', { index: 'dateMiseAJour', values: ['2001-01-01'] }, []],
    ];

  it.each(cases)('%s', async (_label, filter, expected) => {
    const filters = [
      { index: 'origine', values: [origine] },
      typeof filter === 'function' ? filter(oids) : filter,
    ];
    const rest = await list(cast.as('token'), { filters: JSON.stringify(filters), format: 'light' });
    expect(rest.status, JSON.stringify(rest.body)).toBe(200);
    expect(oidsOf(rest.body)).toEqual(expected.map((i) => oids[i]));
    const gql = await graphql(
      app.client(),
      'query ($f: [ResourceFilter!]) { searchResources(filters: $f) { ... on ResourcePage { items { oid } } } }',
      { f: filters },
      tokenHeaders,
    );
    expect(gql.data?.searchResources.items.map((i: { oid: number }) => i.oid)).toEqual(
      expected.map((i) => oids[i]),
    );
  });

  it('ANDs filters, and accepts plain index parameters with comma-separated values', async () => {
    const response = await list(cast.as('token'), {
      origine,
      type: 'em,url',
      langue: 'fra',
      format: 'light',
    });
    expect(oidsOf(response.body)).toEqual([oids[0]]);
    expect(response.body.query).toEqual({ origine: [origine], type: ['em', 'url'], langue: ['fra'] });
  });

  it.each([
    [{ filters: JSON.stringify([{ index: 'couleur', values: ['x'] }]) }, 'Index couleur inconnu'],
    [{ orderBy: 'couleur' }, 'Index couleur inconnu pour orderBy'],
    [
      { orderBy: 'categories' },
      'Impossible de trier sur l’index categories (plusieurs valeurs par ressource)',
    ],
    [
      { filters: JSON.stringify([{ index: 'categories', values: ['abc'] }]) },
      'categories : valeur invalide ("abc")',
    ],
    [{ filters: '[{"index":' }, 'filters : ce n’est pas du JSON valide'],
    [{ json: '{nope' }, 'json : ce n’est pas un objet JSON valide'],
    [{ fulltext: '!' }, 'fulltext : il faut au moins un mot de deux caractères'],
  ])('answers 400 to %j, naming the problem', async (query, error) => {
    const response = await list(cast.as('author'), query);
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ success: false, error });
  });

  it('ignores a plain parameter that is not an index, with a warning', async () => {
    const response = await list(cast.as('token'), { origine, _: '12345' });
    expect(response.status).toBe(200);
    expect(response.body.warnings).toEqual(['Paramètre _ ignoré (ce n’est pas un index)']);
  });

  it('returns the same typed error through GraphQL', async () => {
    const response = await graphql(
      app.client(),
      '{ searchResources(orderBy: "couleur") { ... on Error { code message } } }',
    );
    expect(errorCode(response, 'searchResources')).toBe('INVALID_INPUT');
  });
});

describe('ordering and paging', () => {
  let origine: string;
  let oids: number[];
  beforeAll(async () => {
    origine = marker();
    const titles = ['delta', 'alpha', 'echo', 'charlie', 'bravo', 'alpha', 'foxtrot'];
    oids = await seed(
      origine,
      titles.map((titre) => ({ titre })),
    );
  });

  it('orders by oid ascending by default, by any single-valued index on request, ties broken by oid', async () => {
    const byDefault = await list(cast.as('token'), { origine, format: 'light' });
    expect(oidsOf(byDefault.body)).toEqual(oids);
    const byTitle = await list(cast.as('token'), { origine, orderBy: 'titre', format: 'light' });
    expect(byTitle.body.liste.map((i: { titre: string }) => i.titre)).toEqual([
      'alpha',
      'alpha',
      'bravo',
      'charlie',
      'delta',
      'echo',
      'foxtrot',
    ]);
    expect(oidsOf(byTitle.body).slice(0, 2)).toEqual([oids[1], oids[5]]);
    const descending = await list(cast.as('token'), {
      origine,
      orderBy: 'oid',
      order: 'desc',
      format: 'light',
    });
    expect(oidsOf(descending.body)).toEqual([...oids].reverse());
    expect(descending.body.queryOptions).toEqual({
      start: 0,
      nb: 25,
      skip: 0,
      limit: 25,
      orderBy: 'oid',
      order: 'desc',
    });
  });

  it('follows nextUrl page after page with no overlap and no gap', async () => {
    const seen: number[] = [];
    let url: string | undefined = `/api/liste?origine=${origine}&orderBy=titre&nb=3&format=light`;
    while (url) {
      const response: { status: number; body: { liste: { oid: number }[]; nextUrl?: string } } = await cast
        .as('token')
        .caller.get(url)
        .set(tokenHeaders);
      expect(response.status).toBe(200);
      seen.push(...oidsOf(response.body));
      url = response.body.nextUrl;
    }
    const all = await list(cast.as('token'), { origine, orderBy: 'titre', format: 'light' });
    expect(seen).toEqual(oidsOf(all.body));
    expect(seen).toHaveLength(oids.length);
  });

  it('follows nextUrl in the json and skip/limit forms too', async () => {
    const json = await list(cast.as('token'), { json: JSON.stringify({ origine, nb: 4, format: 'light' }) });
    expect(oidsOf(json.body)).toEqual(oids.slice(0, 4));
    const next = await cast.as('token').caller.get(json.body.nextUrl).set(tokenHeaders);
    expect(oidsOf(next.body)).toEqual(oids.slice(4));
    expect(next.body.nextUrl).toBeUndefined();
    const skipLimit = await list(cast.as('token'), { origine, skip: 2, limit: 2, format: 'light' });
    expect(oidsOf(skipLimit.body)).toEqual(oids.slice(2, 4));
    expect(skipLimit.body.nextUrl).toMatch(/skip=4/);
  });

  it.each(['-3', 'abc', '1.5'])('start=%s is 0', async (start) => {
    const response = await list(cast.as('token'), { origine, start, format: 'light' });
    expect(response.body.queryOptions.start).toBe(0);
    expect(oidsOf(response.body)[0]).toBe(oids[0]);
  });
});

describe('page sizes are counted on the items, not on the echoed options', () => {
  // An instance of its own with small sizes, so that a page of each size is cheap to fill.
  let small: TestApp;
  let origine: string;
  beforeAll(async () => {
    small = await startApp({ labs: [lab.config()], listeNbDefault: 2, maxSql: 3 });
    origine = marker();
    await seed(
      origine,
      Array.from({ length: 5 }, (_, i) => ({ titre: `Page ${i} fraction` })),
    );
  });
  afterAll(async () => {
    await small.close();
  });

  it.each([
    ['0', 2],
    ['-5', 2],
    ['abc', 2],
    ['2.5', 2],
    ['1', 1],
    ['3', 3],
    ['4', 3],
    ['5000', 3],
  ])('nb=%s gives %i items, on every path of the search (REST and GraphQL)', async (nb, size) => {
    const pages: Record<string, { items: number; nb: number }> = {};
    // Plain filters, an order, ranked full-text words: each takes its own way to the database.
    for (const [name, extra] of Object.entries({
      filters: {},
      ordered: { orderBy: 'titre' },
      fulltext: { fulltext: 'fraction' },
    })) {
      const response = await small
        .client()
        .get('/api/liste')
        .set(tokenHeaders)
        .query({ origine, nb, format: 'light', ...extra });
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      pages[name] = { items: response.body.liste.length, nb: response.body.queryOptions.nb };
    }
    if (Number.isInteger(Number(nb))) {
      const response = await graphql(
        small.client(),
        'query ($f: [ResourceFilter!], $nb: Int) { searchResources(filters: $f, nb: $nb) { ... on ResourcePage { nb items { oid } } } }',
        { f: [{ index: 'origine', values: [origine] }], nb: Number(nb) },
        tokenHeaders,
      );
      const page = response.data?.searchResources;
      pages.graphql = { items: page.items.length, nb: page.nb };
    }
    expect(
      Object.values(pages).every((page) => page.items === size && page.nb === size),
      JSON.stringify(pages),
    ).toBe(true);
  });
});

describe('formats', () => {
  it('ref (default), light and full items all carry $droits', async () => {
    const origine = marker();
    const [oid] = await seed(origine, [
      { titre: 'Séquence', type: 'sequenceModele', parametres: { etapes: 3 }, restriction: 3 },
    ]);
    const ref = (await list(cast.as('author'), { origine })).body.liste[0];
    expect(ref).toEqual({
      aliasOf: `repo/${oid}`,
      titre: 'Séquence',
      resume: '',
      description: '',
      commentaires: '',
      type: 'sequenceModele',
      categories: [7],
      public: false,
      cle: expect.any(String),
      parametres: { etapes: 3 },
      $droits: 'RWD',
    });
    const light = (await list(cast.as('author'), { origine, format: 'light' })).body.liste[0];
    expect(Object.keys(light).sort()).toEqual([
      '$droits',
      'commentaires',
      'description',
      'oid',
      'resume',
      'rid',
      'titre',
      'type',
    ]);
    const full = (await list(cast.as('author'), { origine, format: 'full' })).body.liste[0];
    expect(full).toMatchObject({ oid, auteurs: [cast.pids.author], relations: [], $droits: 'RWD' });
  });
});

describe('full-text search', () => {
  it('matches words of titre, resume and description, case, accents and plurals ignored, ranked by where they appear', async () => {
    const origine = marker();
    const oids = await seed(origine, [
      { titre: 'Géométrie', description: 'Les fractions au quotidien' },
      { titre: 'Les FRACTIONS décimales', resume: 'Exercices' },
      { titre: 'Calcul', resume: 'fraction et décimale' },
      { titre: 'Sans rapport' },
    ]);
    const search = async (fulltext: string) =>
      oidsOf((await list(cast.as('token'), { origine, fulltext, format: 'light' })).body);
    // The word itself (in a resume) before its plural (in a titre, then in a description).
    expect(await search('fraction')).toEqual([oids[2], oids[1], oids[0]]);
    expect(await search('Décimales FRACTION')).toEqual([oids[1], oids[2]]);
    expect(await search('geometrie')).toEqual([oids[0]]);
    expect(await search('inexistant')).toEqual([]);
    // Combined with other filters and an explicit order.
    const ordered = await list(cast.as('token'), {
      origine,
      fulltext: 'fraction',
      orderBy: 'oid',
      order: 'desc',
      format: 'light',
    });
    expect(oidsOf(ordered.body)).toEqual([oids[2], oids[1], oids[0]]);
  });

  it('stays in step with every write and with visibility', async () => {
    const origine = marker();
    const [oid] = await seed(origine, [{ titre: 'Trigonométrie', restriction: 3 }]);
    const search = async (actor: Actor, fulltext: string) =>
      (await list(cast.as(actor), { origine, fulltext, format: 'light' })).body.total;
    expect(await search('author', 'trigonometrie')).toBe(1);
    expect(await search('outsider', 'trigonometrie')).toBe(0);
    expect(
      (await cast.browsers.author.post('/api/ressource').send({ oid, titre: 'Probabilités' })).status,
    ).toBe(200);
    expect(await search('author', 'trigonometrie')).toBe(0);
    expect(await search('author', 'probabilite')).toBe(1);
    expect((await cast.browsers.author.delete(`/api/ressource/${oid}`)).status).toBe(200);
    expect(await search('token', 'probabilite')).toBe(0);
    expect(await db.resourceWord.count({ where: { resourceOid: oid } })).toBe(0);
  });
});

describe('GET /api/liste/auteurs', () => {
  it('groups readable resources by author, with labels, totals and warnings', async () => {
    const origine = marker();
    const [shared, , hidden] = await seed(origine, [
      { auteurs: [cast.pids.author, cast.pids.coauthor] },
      { auteurs: [cast.pids.coauthor] },
      { auteurs: [cast.pids.coauthor], restriction: 3 },
    ]);
    const response = await cast.browsers.pupil
      .get('/api/liste/auteurs')
      .query({ pids: `${cast.pids.author},${cast.pids.coauthor},inconnu/9,sansbarre,/x` });
    expect(response.status).toBe(200);
    const { success, total, warnings, ...byPid } = response.body;
    expect(Object.keys(byPid).sort()).toEqual([cast.pids.author, cast.pids.coauthor].sort());
    expect(byPid[cast.pids.author]).toMatchObject({ pid: cast.pids.author, label: 'Alice Auteur' });
    expect(byPid[cast.pids.coauthor].label).toBe('Bob Coauteur');
    const coauthorOids = byPid[cast.pids.coauthor].liste.map((r: { aliasOf: string }) =>
      Number(r.aliasOf.split('/')[1]),
    );
    expect(coauthorOids).toContain(shared);
    expect(coauthorOids).not.toContain(hidden);
    expect(byPid[cast.pids.author].liste.every((r: { $droits: string }) => r.$droits === 'R')).toBe(true);
    expect(warnings).toContain('Auteur inconnu/9 inconnu');
    expect(
      warnings.some((w: string) => /^\d+ ressource\(s\) retirée\(s\) faute de droits de lecture$/.test(w)),
    ).toBe(true);
    expect(total).toBeGreaterThanOrEqual(2);
  });

  it('pages by limit (at most listeMax) with nextUrl and prevUrl', async () => {
    const origine = marker();
    const oids = await seed(origine, [
      { auteurs: [cast.pids.outsider] },
      { auteurs: [cast.pids.outsider] },
      { auteurs: [cast.pids.outsider] },
    ]);
    const first = await app.client().get('/api/liste/auteurs').query({ pids: cast.pids.outsider, limit: 2 });
    expect(first.body.nextUrl).toMatch(/skip=2/);
    expect(first.body.prevUrl).toBeUndefined();
    const second = await app.client().get(first.body.nextUrl);
    expect(second.body[cast.pids.outsider].liste).toHaveLength(oids.length - 2);
    expect(second.body.prevUrl).toMatch(/skip=0/);
    expect(second.body.nextUrl).toBeUndefined();
  });

  it('never pages more than listeMax, whatever limit asks, through REST and GraphQL', async () => {
    const listeMax = 3;
    const small = await startApp({ labs: [lab.config()], listeMax });
    try {
      const origine = marker();
      await seed(
        origine,
        Array.from({ length: listeMax + 2 }, () => ({ auteurs: [cast.pids.corrector] })),
      );
      const pids = cast.pids.corrector;
      const limit = listeMax + 1000;
      for (const query of [
        { pids, limit },
        { pids, nb: limit },
      ]) {
        const rest = await small.client().get('/api/liste/auteurs').query(query);
        expect(rest.status).toBe(200);
        expect(rest.body.total).toBeGreaterThan(listeMax);
        expect(rest.body[pids].liste).toHaveLength(listeMax);
        expect(rest.body.nextUrl).toMatch(new RegExp(`skip=${listeMax}\\b`));
      }
      const gql = await graphql(
        small.client(),
        `query ($pids: String, $limit: Int) { authorsResources(pids: $pids, limit: $limit) {
          ... on AuthorsPage { total limit authors { resources { oid } } } } }`,
        { pids, limit },
      );
      const page = gql.data?.authorsResources;
      expect(page.total).toBeGreaterThan(listeMax);
      expect(page.limit).toBe(listeMax);
      expect(page.authors[0].resources).toHaveLength(listeMax);
    } finally {
      await small.close();
    }
  });

  it('pages the union of the authors in oid order, each readable resource once, whatever the page', async () => {
    const origine = marker();
    const [first, second] = await Promise.all(
      ['Premier', 'Second'].map((nom, i) =>
        addPerson(app, { origine, idOrigine: `a${i}`, nom, prenom: 'Auteur' }),
      ),
    );
    const a = first!.pid;
    const b = second!.pid;
    // Interleaved, co-authored, and some the anonymous caller may not read (left out, never counted
    // as a page's row).
    const authorsOf = [[a], [b], [a, b], [b], [a], [a], [b, a], [b], [a], [b], [a]];
    const hidden = new Set([4, 7]);
    const oids = await seed(
      origine,
      authorsOf.map((auteurs, i) => ({ auteurs, ...(hidden.has(i) ? { restriction: 3 } : {}) })),
    );
    const readable = oids.filter((_, i) => !hidden.has(i));
    for (const limit of [2, 3, 20]) {
      for (let skip = 0; skip < readable.length + 2; skip += limit) {
        const response = await app
          .client()
          .get('/api/liste/auteurs')
          .query({ pids: `${a},${b}`, skip, limit });
        expect(response.status).toBe(200);
        const page = [...new Set([...oidsOf(response.body[a]), ...oidsOf(response.body[b])])].sort(
          (x, y) => x - y,
        );
        expect(page, `skip ${skip}, limit ${limit}`).toEqual(readable.slice(skip, skip + limit));
        expect(response.body.total).toBe(readable.length);
      }
    }
  });

  it.each([
    [{}, 'Argument pids manquant'],
    [{ pids: 'sansbarre,/x' }, 'Aucun auteur demandé'],
  ])('answers 400 to %j', async (query, error) => {
    const response = await app.client().get('/api/liste/auteurs').query(query);
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ success: false, error });
  });
});

describe('GET /api/liste/perso', () => {
  it('lists the caller’s own resources, private ones included', async () => {
    const origine = marker();
    const oids = await seed(origine, [
      { auteurs: [cast.pids.member], restriction: 3 },
      { auteurs: [cast.pids.author] },
    ]);
    const response = await cast.browsers.member.get('/api/liste/perso').query({ origine, format: 'light' });
    expect(oidsOf(response.body)).toEqual([oids[0]]);
    expect(response.body.query).toEqual({ origine: [origine], auteurs: [cast.pids.member] });
  });

  it('denies anonymous callers with the session-expired message, and token callers', async () => {
    const anonymous = await app.client().get('/api/liste/perso');
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.error).toBe(
      'Ressources personnelles inaccessibles (session expirée sur la Sésathèque), veuillez vous déconnecter et reconnecter',
    );
    expect((await app.client().get('/api/liste/perso').set(tokenHeaders)).status).toBe(403);
    const gql = await graphql(app.client(), '{ myResources { ... on ResourcePage { total } } }');
    expect(gql.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });
});

describe('GET /api/autocomplete/:pattern', () => {
  it('suggests vocabulary values by prefix, case and accents ignored', async () => {
    for (const pattern of ['exer', 'EXER', 'éxer cice']) {
      const response = await app.client().get(`/api/autocomplete/${encodeURIComponent(pattern)}`);
      expect(response.body.filters).toEqual(
        expect.arrayContaining([
          { index: 'type', value: 'em' },
          { index: 'categories', value: 7 },
          { index: 'typePedagogiques', value: 9 },
        ]),
      );
    }
    const levels = await app.client().get('/api/autocomplete/sixi');
    expect(levels.body).toEqual({ success: true, filters: [{ index: 'niveaux', value: '6e' }] });
    const gql = await graphql(
      app.client(),
      '{ autocomplete(pattern: "angl") { ... on QueryAutocompleteSuccess { data { index value label } } } }',
    );
    expect(gql.data?.autocomplete.data).toEqual([{ index: 'langue', value: 'eng', label: 'anglais' }]);
  });

  it('needs at least two characters', async () => {
    const response = await app.client().get('/api/autocomplete/e');
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ success: false, error: 'Il faut au moins deux caractères' });
  });
});

describe('cost', () => {
  /** Statements of one page, and its items (a page that comes back short would measure nothing). */
  async function statements(url: string): Promise<{ statements: number; items: number }> {
    // As after a change anywhere: the total is counted afresh, not taken from the kept totals
    // (src/modules/lists/counts.ts), so this measures a page's whole cost.
    contentChanges.committed();
    const seen: string[] = [];
    const stop = onStatement((sql) => seen.push(sql));
    let items = 0;
    try {
      const response = await cast.browsers.member.get(url);
      expect(response.status).toBe(200);
      items = response.body.liste.length;
    } finally {
      stop();
    }
    return { statements: seen.length, items };
  }

  it('is a constant number of statements per page: whatever nb, whatever the number of resources', async () => {
    const origine = marker();
    const fields = (i: number) => ({
      titre: `Ressource ${i} fraction`,
      auteurs: [cast.pids.author, cast.pids.coauthor],
      contributeurs: [cast.pids.contributor],
      categories: [1, 2],
      niveaux: ['6e'],
      groupes: [cast.group],
      relations: [[1, 'ailleurs/1']],
    });
    await seed(
      origine,
      Array.from({ length: 6 }, (_, i) => fields(i)),
    );
    const measure = async () => ({
      ref5: await statements(`/api/liste?origine=${origine}&nb=5`),
      ref40: await statements(`/api/liste?origine=${origine}&nb=40`),
      full40: await statements(`/api/liste?origine=${origine}&nb=40&format=full`),
      fulltext: await statements(`/api/liste?origine=${origine}&fulltext=fraction&nb=40`),
    });
    const small = await measure();
    await seed(`${origine}b`, []);
    for (let i = 6; i < 40; i++) {
      await createResource(app, { origine, idOrigine: String(i), ...fields(i) });
    }
    const large = await measure();
    const count = (measured: typeof small, of: 'statements' | 'items') =>
      Object.fromEntries(Object.entries(measured).map(([page, m]) => [page, m[of]]));
    expect(count(large, 'statements')).toEqual(count(small, 'statements'));
    expect(small.ref5.statements).toBe(small.ref40.statements);
    expect({ small: count(small, 'items'), large: count(large, 'items') }).toEqual({
      small: { ref5: 5, ref40: 6, full40: 6, fulltext: 6 },
      large: { ref5: 5, ref40: 40, full40: 40, fulltext: 40 },
    });
  });
});

describe('GraphQL cursor connection', () => {
  it('pages with first/after over the same visible, ordered set as the offset search', async () => {
    const origine = marker();
    const oids = await seed(origine, [
      { titre: 'c' },
      { titre: 'a' },
      { titre: 'b', restriction: 3, auteurs: [cast.pids.coauthor] },
      { titre: 'd' },
      { titre: 'a' },
    ]);
    const query = `query ($f: [ResourceFilter!], $after: String) {
      resourceConnection(filters: $f, orderBy: "titre", first: 2, after: $after) {
        totalCount pageInfo { hasNextPage endCursor } edges { node { oid droits } }
      }
    }`;
    const seen: number[] = [];
    let after: string | null = null;
    for (let page = 0; page < 5; page++) {
      const response = await graphql(cast.browsers.pupil, query, {
        f: [{ index: 'origine', values: [origine] }],
        after,
      });
      const connection: {
        totalCount: number;
        pageInfo: { hasNextPage: boolean; endCursor: string };
        edges: { node: { oid: number } }[];
      } = response.data?.resourceConnection;
      expect(connection.totalCount).toBe(4);
      seen.push(...connection.edges.map((edge: { node: { oid: number } }) => edge.node.oid));
      if (!connection.pageInfo.hasNextPage) break;
      after = connection.pageInfo.endCursor;
    }
    // Titles a, a, c, d (the private "b" is not visible to a pupil); ties by oid.
    expect(seen).toEqual([oids[1], oids[4], oids[0], oids[3]]);
  });

  it('refuses unknown indexes with a typed error', async () => {
    const response = await graphql(app.client(), '{ resourceConnection(orderBy: "couleur") { totalCount } }');
    expect(response.errors?.[0]?.extensions?.code).toBe('INVALID_INPUT');
  });
});

describe('relation filters, few or many matches', () => {
  it('give the right pages and totals whether three or two thousand resources match', async () => {
    const origine = marker();
    const count = 2005;
    // Bulk rows straight into the tables: the API would take minutes for this many.
    await db.resource.createMany({
      data: Array.from({ length: count }, (_, i) => ({
        origine,
        idOrigine: String(i),
        type: 'em',
        publie: true,
      })),
    });
    const rows = await db.resource.findMany({
      where: { origine },
      select: { oid: true },
      orderBy: { oid: 'asc' },
    });
    const oids = rows.map((row) => row.oid);
    await db.resourceCategory.createMany({
      data: oids.map((resourceOid, i) => ({ resourceOid, categoryId: i < 3 ? 88 : 77, position: 0 })),
    });
    const page = async (category: number) =>
      (
        await list(cast.as('anonymous'), {
          origine,
          categories: String(category),
          nb: 5,
          format: 'light',
          orderBy: 'oid',
          order: 'desc',
        })
      ).body;
    const few = await page(88);
    expect(few.total).toBe(3);
    expect(oidsOf(few)).toEqual([oids[2], oids[1], oids[0]]);
    const many = await page(77);
    expect(many.total).toBe(count - 3);
    expect(oidsOf(many)).toEqual(oids.slice(-5).reverse());
  });
});
