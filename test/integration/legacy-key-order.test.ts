/**
 * The property order of the legacy JSON. Existing clients see it (some compare answers as text),
 * so it must not depend on how GraphQL execution orders the fields of included fragments: the REST
 * shapes impose it.
 */
import { describe, expect } from 'vitest';
import { tokenHeaders } from '../support/actors.ts';
import { appTest } from '../support/fixtures.ts';
import { createResource } from '../support/resources.ts';

const test = appTest.override({ labId: 'labOrder' });

describe('legacy JSON property order', () => {
  test('resources, refs and list items keep the order of the historical service', async ({ app, cast }) => {
    const origine = `order-${Date.now().toString(36)}`;
    const target = await createResource(app, { origine, idOrigine: 't', titre: 'Cible', publie: true });
    const oid = await createResource(app, {
      origine,
      idOrigine: 'r',
      titre: 'Ordre',
      publie: true,
      auteurs: [cast.pids.author],
      contributeurs: [cast.pids.contributor],
      groupes: [cast.group],
      relations: [[1, `${origine}/t`]],
    });
    const tree = await createResource(app, {
      origine,
      idOrigine: 'a',
      titre: 'Arbre',
      type: 'arbre',
      publie: true,
      enfants: [{ titre: 'Feuille', type: 'url', aliasOf: `repo/${target}` }],
    });
    const client = app.client();
    const keys = async (url: string) => {
      const response = await client.get(url).set(tokenHeaders);
      expect(response.status, url).toBe(200);
      return response.body;
    };
    const stored = [
      'oid',
      'rid',
      'origine',
      'idOrigine',
      'aliasOf',
      'cle',
      'type',
      'titre',
      'resume',
      'description',
      'commentaires',
      'parametres',
      'niveaux',
      'categories',
      'typePedagogiques',
      'typeDocumentaires',
      'auteurs',
      'auteursParents',
      'contributeurs',
      'groupes',
      'groupesAuteurs',
      'langue',
      'publie',
      'restriction',
      'indexable',
      'dateCreation',
      'dateMiseAJour',
      'version',
      'inc',
      'archiveOid',
      // Fields added since the historical service come after its own (src/legacy/resource-json.ts).
      'licence',
    ];
    const withRelations = [...stored, 'relations'];
    const treeFields = [...stored, 'enfants', 'relations'];
    const full = ['_auteurs', '_contributeurs', '_relations', '_enfants'];
    const ref = ['aliasOf', 'titre', 'resume', 'description', 'commentaires', 'type', 'categories', 'public'];
    const expected: Record<string, string[]> = {
      [`/api/ressource/${oid}`]: ['success', ...withRelations],
      [`/api/ressource/${oid}?format=full&droits=1`]: ['success', ...withRelations, '_droits', ...full],
      [`/api/ressource/${oid}?format=ref&droits=1`]: ['success', ...ref, '_droits'],
      [`/api/ressource/${tree}?format=full`]: ['success', ...treeFields, ...full],
      [`/api/ressource/${tree}?format=ref`]: ['success', ...ref, 'enfants', '_droits'],
      [`/api/public/${oid}`]: ['success', ...withRelations],
      [`/api/public/${oid}?format=full`]: ['success', ...withRelations, ...full],
      [`/api/liste?origine=${origine}&idOrigine=r&format=full`]: [...withRelations, '$droits'],
      [`/api/liste?origine=${origine}&idOrigine=r&format=light`]: [
        'oid',
        'titre',
        'type',
        'resume',
        'rid',
        'description',
        'commentaires',
        '$droits',
      ],
      [`/api/liste?origine=${origine}&idOrigine=r`]: [...ref, '$droits'],
      [`/api/liste?origine=${origine}&type=arbre&format=full`]: [...treeFields, '$droits'],
      [`/api/liste?origine=${origine}&type=arbre`]: [...ref, 'enfants', '$droits'],
    };
    for (const [url, order] of Object.entries(expected)) {
      const body = await keys(url);
      expect(Object.keys(body.liste ? body.liste[0] : body), url).toEqual(order);
    }
  });
});
