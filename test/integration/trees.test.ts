/** Trees: validation of `enfants` on write, `GET /api/jstree` and the `tree` query. */
import { describe, expect, it } from 'vitest';
import { db } from '../../src/db/client.ts';
import { logIn, tokenHeaders } from '../support/actors.ts';
import type { TestApp } from '../support/app.ts';
import type { FakeLab } from '../support/fake-lab.ts';
import { appTest } from '../support/fixtures.ts';
import { errorCode, graphql } from '../support/graphql.ts';
import { createResource } from '../support/resources.ts';

const test = appTest.override({
  labId: 'labTree',
  appOptions: { peers: [{ baseId: 'voisine', baseUrl: 'http://127.0.0.1:9/voisine/' }] },
});

let lab: FakeLab;
let app: TestApp;

test.beforeAll(async ({ lab: startedLab, app: startedApp }) => {
  lab = startedLab;
  app = startedApp;
});

const TREE_QUERY = `query($ref: String!, $childrenOnly: Boolean) {
  tree(ref: $ref, childrenOnly: $childrenOnly) {
    __typename
    ... on QueryTreeSuccess { data }
    ... on Error { code message }
  }
}`;

/** A public tree: a folder holding a local item, an item of the peer, and a local sub-tree. */
async function sampleTree() {
  const leaf = await createResource(app, { titre: 'Feuille', type: 'url' });
  const subTree = await createResource(app, {
    titre: 'Sous-arbre',
    type: 'arbre',
    enfants: [{ titre: 'Dans le sous-arbre', type: 'url', aliasOf: `repo/${leaf}` }],
  });
  const tree = await createResource(app, {
    titre: 'Arbre',
    type: 'arbre',
    enfants: [
      {
        titre: 'Dossier',
        type: 'arbre',
        enfants: [{ titre: 'Feuille', type: 'url', aliasOf: `repo/${leaf}` }],
      },
      { titre: 'Chez la voisine', type: 'j3p', aliasOf: 'voisine/12' },
      { titre: 'Sous-arbre', type: 'arbre', aliasOf: `repo/${subTree}` },
    ],
  });
  return { leaf, subTree, tree };
}

describe('validation of enfants', () => {
  it('refuses invalid children, naming each one, and writes nothing', async () => {
    const response = await app
      .client()
      .post('/api/ressource')
      .set(tokenHeaders)
      .send({
        titre: 'Arbre invalide',
        type: 'arbre',
        enfants: [
          { titre: 'Sans type', aliasOf: 'repo/1' },
          { titre: 'Mauvais alias', type: 'url', aliasOf: 'pas un rid' },
          { type: 'arbre', enfants: [{ titre: 'Ni alias ni enfants', type: 'url' }] },
        ],
      });
    expect(response.status).toBe(400);
    expect(response.body.success).toBe(false);
    expect(response.body.error).toContain('enfants[0] : type obligatoire (« Sans type »)');
    expect(response.body.error).toContain(
      'enfants[1] : aliasOf doit être un rid de la forme baseId/oid (« Mauvais alias »)',
    );
    expect(response.body.error).toContain('enfants[2] : titre obligatoire');
    expect(response.body.error).toContain(
      'enfants[2][enfants][0] : il faut aliasOf (une ressource) ou enfants (un dossier) (« Ni alias ni enfants »)',
    );
    expect(await db.resource.count({ where: { titre: 'Arbre invalide' } })).toBe(0);
  });

  it('reports the same problems through GraphQL, as an InvalidInputError listing them', async () => {
    const response = await graphql(
      app.client(),
      `mutation($input: ResourceInput!) { saveResource(input: $input) {
        __typename ... on InvalidInputError { problems } } }`,
      { input: { titre: 'Arbre', type: 'arbre', enfants: [{ titre: '', type: 'url', aliasOf: 'repo/1' }] } },
      tokenHeaders,
    );
    expect(response.data?.saveResource).toEqual({
      __typename: 'InvalidInputError',
      problems: ['enfants[0] : titre obligatoire'],
    });
  });

  it('accepts a valid tree and keeps its children as posted', async () => {
    const { tree, leaf } = await sampleTree();
    const stored = await app.client().get(`/api/ressource/${tree}`).set(tokenHeaders);
    expect(stored.body.enfants[0]).toEqual({
      titre: 'Dossier',
      type: 'arbre',
      enfants: [{ titre: 'Feuille', type: 'url', aliasOf: `repo/${leaf}` }],
    });
  });
});

describe('GET /api/jstree and the tree query', () => {
  it('answers the tree as a bare array of jstree nodes, sub-trees not inline being lazy', async () => {
    const { tree, subTree, leaf } = await sampleTree();
    const response = await app.client().get(`/api/jstree?ref=${tree}`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual([
      {
        text: 'Arbre',
        icon: 'arbreJstNode',
        a_attr: {
          'data-type': 'arbre',
          'data-ref': `repo/${tree}`,
          href: `http://repo.test/api/public/${tree}`,
        },
        children: [
          {
            text: 'Dossier',
            icon: 'arbreJstNode',
            a_attr: { 'data-type': 'arbre' },
            children: [
              {
                text: 'Feuille',
                icon: 'urlJstNode',
                a_attr: {
                  'data-type': 'url',
                  'data-ref': `repo/${leaf}`,
                  href: `http://repo.test/api/public/${leaf}`,
                },
              },
            ],
          },
          {
            text: 'Chez la voisine',
            icon: 'j3pJstNode',
            a_attr: {
              'data-type': 'j3p',
              'data-ref': 'voisine/12',
              href: 'http://127.0.0.1:9/voisine/api/public/12',
            },
          },
          {
            text: 'Sous-arbre',
            icon: 'arbreJstNode',
            a_attr: {
              'data-type': 'arbre',
              'data-ref': `repo/${subTree}`,
              href: `http://repo.test/api/public/${subTree}`,
            },
            children: true,
            data: { url: `http://repo.test/api/jstree?ref=repo%2F${subTree}&children=1` },
          },
        ],
      },
    ]);
    const graph = await graphql(app.client(), TREE_QUERY, { ref: String(tree) });
    expect(graph.data?.tree).toEqual({ __typename: 'QueryTreeSuccess', data: response.body });
  });

  it('answers only the children with children=1, by rid or origin pair too (ref, rid, id, oid)', async () => {
    const { subTree, leaf } = await sampleTree();
    const expected = [
      {
        text: 'Dans le sous-arbre',
        icon: 'urlJstNode',
        a_attr: {
          'data-type': 'url',
          'data-ref': `repo/${leaf}`,
          href: `http://repo.test/api/public/${leaf}`,
        },
      },
    ];
    for (const query of [`ref=repo%2F${subTree}`, `rid=repo/${subTree}`, `id=${subTree}`, `oid=${subTree}`]) {
      const response = await app.client().get(`/api/jstree?${query}&children=1`);
      expect(response.body, query).toEqual(expected);
    }
    const graph = await graphql(app.client(), TREE_QUERY, { ref: `repo/${subTree}`, childrenOnly: true });
    expect(graph.data?.tree.data).toEqual(expected);
  });

  it('answers errors as one error node: missing ref, unknown tree, not a tree', async () => {
    const notTree = await createResource(app, { titre: 'Pas un arbre', type: 'url' });
    const cases = [
      ['', 'Erreur : ref manquant', 'INVALID_INPUT'],
      ['?ref=999999', 'Erreur : La ressource 999999 n’existe pas', 'NOT_FOUND'],
      [`?ref=${notTree}`, `Erreur : La ressource ${notTree} n’est pas un arbre`, 'INVALID_INPUT'],
    ] as const;
    for (const [query, text, code] of cases) {
      const response = await app.client().get(`/api/jstree${query}`);
      expect(response.status, query).toBe(200);
      expect(response.body).toEqual([{ text }]);
      const ref = new URLSearchParams(query.slice(1)).get('ref') ?? '';
      expect(errorCode(await graphql(app.client(), TREE_QUERY, { ref }), 'tree')).toBe(code);
    }
  });

  it('applies the read rules: a private tree is not found anonymously, denied to others, shown to its author', async () => {
    const author = await logIn(app, lab);
    const outsider = await logIn(app, lab);
    const created = await author.post('/api/ressource').send({
      titre: 'Arbre privé',
      type: 'arbre',
      restriction: 3,
      enfants: [{ titre: 'Dossier vide', type: 'arbre', enfants: [] }],
    });
    const { oid } = created.body;
    expect((await app.client().get(`/api/jstree?ref=${oid}`)).body).toEqual([
      { text: `Erreur : La ressource ${oid} n’existe pas` },
    ]);
    expect((await outsider.get(`/api/jstree?ref=${oid}`)).body).toEqual([
      { text: 'Erreur : Droits insuffisants' },
    ]);
    expect(errorCode(await graphql(outsider, TREE_QUERY, { ref: String(oid) }), 'tree')).toBe('FORBIDDEN');
    const own = await author.get(`/api/jstree?ref=${oid}`);
    expect(own.body[0].children).toEqual([
      { text: 'Dossier vide', icon: 'arbreJstNode', a_attr: { 'data-type': 'arbre' }, children: [] },
    ]);
  });
});
