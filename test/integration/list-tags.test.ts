/**
 * Resource carries its levels and categories as tags that the list order index holds (the
 * list_tags migration): the database keeps them from the join tables whoever writes them, and a
 * list filtered on a level or a category answers from them as it did from the join tables.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { db } from '../../src/db/client.ts';
import { API_TOKEN, startApp, type TestApp } from '../support/app.ts';
import { tagsOutOfStep } from '../support/list-tags.ts';
import { createResource } from '../support/resources.ts';

let app: TestApp;

beforeAll(async () => {
  app = await startApp({ responseCache: { enabled: false } });
});

afterAll(async () => {
  await app.close();
});

const tagsOf = (oid: number) =>
  db.resource.findUniqueOrThrow({ where: { oid }, select: { levelTags: true, categoryTags: true } });

/** The oids a list with these parameters gives a token caller. */
async function listed(query: Record<string, string>): Promise<number[]> {
  const answer = await app
    .client()
    .get('/api/liste')
    .query({ nb: '100', format: 'light', ...query })
    .set('X-ApiToken', API_TOKEN);
  expect(answer.body.success, JSON.stringify(answer.body)).toBe(true);
  return answer.body.liste.map((item: { oid: number }) => item.oid).sort((a: number, b: number) => a - b);
}

describe('the tags of a resource', () => {
  it('follow its levels and categories as the service writes them', async () => {
    const oid = await createResource(app, { titre: 'Tags', niveaux: ['6e', 'a|b%'], categories: [7, 5] });
    expect(await tagsOf(oid)).toEqual({ levelTags: '|6e|a%7Cb%25|', categoryTags: '|7|5|' });

    const update = await app
      .client()
      .post('/api/ressource')
      .set('X-ApiToken', API_TOKEN)
      .send({ oid, niveaux: ['4e'], categories: [] });
    expect(update.body.success, JSON.stringify(update.body)).toBe(true);
    expect(await tagsOf(oid)).toEqual({ levelTags: '|4e|', categoryTags: '' });
    expect(await tagsOutOfStep()).toEqual([]);
  });

  it('follow the join tables when something else writes them (an import, a restore, SQL)', async () => {
    const oid = await createResource(app, { titre: 'Par SQL', niveaux: ['cp'], categories: [3] });
    await db.resourceLevel.createMany({
      data: [
        { resourceOid: oid, level: 'ce1', position: 1 },
        { resourceOid: oid, level: 'ce2', position: 2 },
      ],
    });
    await db.resourceCategory.updateMany({ where: { resourceOid: oid }, data: { categoryId: 4 } });
    await db.resourceLevel.deleteMany({ where: { resourceOid: oid, level: 'cp' } });
    expect(await tagsOf(oid)).toEqual({ levelTags: '|ce1|ce2|', categoryTags: '|4|' });
    expect(await tagsOutOfStep()).toEqual([]);

    // Deleting the resource deletes its rows (cascade) and the triggers then find no resource.
    const removed = await app.client().delete(`/api/ressource/${oid}`).set('X-ApiToken', API_TOKEN);
    expect(removed.body.success, JSON.stringify(removed.body)).toBe(true);
    expect(await db.resourceLevel.count({ where: { resourceOid: oid } })).toBe(0);
    expect(await tagsOutOfStep()).toEqual([]);
  });
});

describe('a list filtered on levels and categories', () => {
  let both: number;
  let other: number;

  beforeAll(async () => {
    both = await createResource(app, {
      titre: 'Deux',
      type: 'em',
      niveaux: ['5e', 'x|y%'],
      categories: [8, 9],
    });
    other = await createResource(app, { titre: 'Autre', type: 'em', niveaux: ['x'], categories: [88] });
  });

  it('matches whole values, never a part of one', async () => {
    expect(await listed({ type: 'em', niveaux: '5e' })).toEqual([both]);
    expect(await listed({ type: 'em', niveaux: 'x|y%' })).toEqual([both]);
    expect(await listed({ type: 'em', niveaux: 'x' })).toEqual([other]);
    expect(await listed({ type: 'em', niveaux: 'y%' })).toEqual([]);
    expect(await listed({ type: 'em', niveaux: 'e' })).toEqual([]);
    expect(await listed({ type: 'em', categories: '8' })).toEqual([both]);
    expect(await listed({ type: 'em', categories: '88' })).toEqual([other]);
  });

  it('takes any of a filter’s values, and every filter', async () => {
    expect(await listed({ type: 'em', niveaux: '5e,x' })).toEqual([both, other]);
    expect(await listed({ type: 'em', niveaux: '5e,x', categories: '88' })).toEqual([other]);
    expect(
      await listed({ type: 'em', niveaux: 'x|y%', categories: '9', orderBy: 'dateMiseAJour', order: 'desc' }),
    ).toEqual([both]);
  });
});
