/**
 * Texts that land in a database index, at and beyond the sizes an index entry holds (PostgreSQL
 * refuses a B-tree entry above 2,704 bytes, whatever it compresses to): every value a save, a
 * person or a search takes is either indexed or refused as invalid input, never a database error.
 * Texts that compress well hide the problem, so these are drawn from across Unicode.
 */
import { describe, expect } from 'vitest';
import { db } from '../../src/db/client.ts';
import { tokenHeaders } from '../support/actors.ts';
import type { TestApp } from '../support/app.ts';
import { appTest } from '../support/fixtures.ts';
import { errorCode, graphql } from '../support/graphql.ts';

const test = appTest.override({ labId: 'labX' });

/**
 * `length` characters (UTF-16 units, as limits count them) that do not compress: 3-byte characters,
 * the most bytes one unit takes (or ASCII letters), in no pattern.
 */
function incompressible(length: number, seed = 1, ascii = false): string {
  let state = seed;
  let text = '';
  for (let i = 0; i < length; i += 1) {
    state = (state * 1103515245 + 12345) % 2147483648;
    text += String.fromCharCode(ascii ? 97 + (state % 26) : 0x4e00 + (state % 0x5200));
  }
  return text;
}

const SAVE = `mutation ($input: ResourceInput!) {
  saveResource(input: $input) { __typename ... on SaveResourceResult { oid } ... on Error { code message } }
}`;
const save = (app: TestApp, input: Record<string, unknown>) =>
  graphql(app.client(), SAVE, { input: { titre: 'Limites', type: 'url', ...input } }, tokenHeaders);

describe('resource fields held in indexes', () => {
  test.for([
    ['titre', 500],
    ['origine', 255],
    ['idOrigine', 255],
    ['type', 50],
    ['langue', 20],
  ] as const)('%s: %i characters are stored, one more is invalid input', async ([field, limit], { app }) => {
    const extra =
      field === 'origine'
        ? { idOrigine: incompressible(255, 9) }
        : field === 'idOrigine'
          ? { origine: 'lim' }
          : {};
    const stored = await save(app, { ...extra, [field]: incompressible(limit, limit) });
    expect(stored.data?.saveResource, JSON.stringify(stored).slice(0, 300)).toMatchObject({
      __typename: 'SaveResourceResult',
    });
    const refused = await save(app, { ...extra, [field]: incompressible(limit + 1, limit) });
    expect(errorCode(refused, 'saveResource')).toBe('INVALID_INPUT');
    expect(refused.data?.saveResource.message).toContain(`${field} : au plus ${limit} caractères`);
  });

  test('aliasOf and relations: rids of 255 characters are stored, longer ones are invalid input', async ({
    app,
  }) => {
    const rid = (length: number) => `peer/${'9'.repeat(length - 5)}`;
    const stored = await save(app, { aliasOf: rid(255), relations: [{ predicate: 1, rid: rid(255) }] });
    expect(stored.data?.saveResource).toMatchObject({ __typename: 'SaveResourceResult' });
    for (const input of [{ aliasOf: rid(256) }, { relations: [{ predicate: 1, rid: rid(256) }] }]) {
      expect(errorCode(await save(app, input), 'saveResource')).toBe('INVALID_INPUT');
    }
  });

  test('levels and categories (also kept as tags in the list order index) at their limits', async ({
    app,
  }) => {
    const levels = Array.from({ length: 20 }, (_, i) => `%|${incompressible(18, i + 1)}`);
    const categories = Array.from({ length: 50 }, (_, i) => 2_147_483_647 - i);
    const stored = await save(app, { type: incompressible(50, 3), niveaux: levels, categories });
    expect(stored.data?.saveResource, JSON.stringify(stored).slice(0, 300)).toMatchObject({
      __typename: 'SaveResourceResult',
    });
    for (const input of [
      { niveaux: [...levels, 'x'] },
      { niveaux: [incompressible(21)] },
      { categories: [...categories, 1] },
    ]) {
      const refused = await save(app, input);
      expect(errorCode(refused, 'saveResource'), JSON.stringify(input).slice(0, 80)).toBe('INVALID_INPUT');
    }
  });

  test('a word longer than any search is left out of the full-text index, the rest is indexed', async ({
    app,
  }) => {
    const word = incompressible(20_000, 5, true);
    const stored = await save(app, {
      titre: 'Limites du texte',
      resume: `${word} fraction`,
      description: word,
      publie: true,
    });
    expect(stored.data?.saveResource, JSON.stringify(stored).slice(0, 300)).toMatchObject({
      __typename: 'SaveResourceResult',
    });
    const oid = stored.data?.saveResource.oid;
    const words = await db.resourceWord.findMany({ where: { resourceOid: oid }, select: { word: true } });
    expect(words.map((w) => w.word)).toContain('fraction');
    expect(Math.max(...words.map((w) => w.word.length))).toBeLessThanOrEqual(100);
    const search = await app
      .client()
      .get('/api/liste')
      .query({ fulltext: 'fraction limites', format: 'light' });
    expect(search.body.liste.map((item: { oid: number }) => item.oid)).toContain(oid);
  });
});

describe('persons', () => {
  test('a pid of 255 characters is a person, a longer one is invalid input', async ({ app }) => {
    const ADD = `mutation ($input: AddPersonInput!) { addPerson(input: $input) { __typename ... on Error { code message } } }`;
    const add = (idOrigine: string) =>
      graphql(
        app.client(),
        ADD,
        { input: { origine: 'lim', idOrigine, nom: 'N', prenom: 'P' } },
        tokenHeaders,
      );
    expect((await add(incompressible(251, 2))).data?.addPerson.__typename).toBe('Person');
    expect(errorCode(await add(incompressible(252, 2)), 'addPerson')).toBe('INVALID_INPUT');
  });
});
