/**
 * A resource carries its authors and groups as summaries (oid, pid and names; oid and name): any
 * other field of those persons and groups is loaded when asked for, for a whole list at once,
 * never an internal error (it was, for `readerGroups { group { description } }`).
 */
import { expect } from 'vitest';
import { onStatement } from '../../src/db/client.ts';
import { tokenHeaders } from '../support/actors.ts';
import { appTest } from '../support/fixtures.ts';
import { graphql } from '../support/graphql.ts';
import { createResource } from '../support/resources.ts';

const test = appTest.override({ labId: 'labS', appOptions: { responseCache: { enabled: false } } });

const LIST = `query ($origine: JSON!) {
  searchResources(filters: [{ index: "origine", values: [$origine] }], nb: 50) {
    ... on ResourcePage {
      items {
        oid
        readerGroups { group { nom description ouvert public dateCreation managers { person { pid label } } } }
        authorGroups { group { oid description } }
        authors { person { pid label email roles groupesMembre } }
        contributors { person { oid nom } }
      }
    }
  }
}`;

test('every field of a resource’s persons and groups, for a list, in a bounded number of statements', async ({
  app,
  cast,
}) => {
  const origine = `summaries-${Date.now()}`;
  const resources = 12;
  for (let i = 0; i < resources; i += 1) {
    await createResource(app, {
      origine,
      idOrigine: String(i),
      restriction: 2,
      groupes: [cast.group],
      groupesAuteurs: [cast.group],
      auteurs: [cast.pids.author],
      contributeurs: [cast.pids.contributor],
    });
  }
  let statements = 0;
  const stop = onStatement(() => {
    statements += 1;
  });
  const response = await graphql(app.client(), LIST, { origine }, tokenHeaders);
  stop();
  expect(response.errors, JSON.stringify(response.errors)).toBeUndefined();
  const items = response.data?.searchResources.items;
  expect(items).toHaveLength(resources);
  for (const item of items) {
    expect(item.readerGroups[0].group).toMatchObject({
      nom: cast.group,
      description: expect.any(String),
      ouvert: expect.any(Boolean),
      public: expect.any(Boolean),
      dateCreation: expect.any(String),
      managers: expect.any(Array),
    });
    expect(item.authors[0].person).toMatchObject({ pid: cast.pids.author, roles: expect.any(Array) });
    expect(item.contributors[0].person.nom).toEqual(expect.any(String));
  }
  // The page, its total, then the missing fields of all persons and all groups: not one per item.
  expect(statements).toBeLessThan(resources);
});
