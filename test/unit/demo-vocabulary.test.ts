/**
 * The demo data speaks the vocabularies' ids, as a real repository's resources do: the demo's
 * levels were `6` and `5` instead of `6e` and `5e`, so on the demo `set=niveau:6e` harvested nothing
 * and its LOM records carried no educational level.
 */
import { expect, it } from 'vitest';
import { DEMO_RESOURCES } from '../../src/cli/commands/demo.ts';
import { CATEGORIES, LEVELS, RESOURCE_TYPES } from '../../src/modules/resources/vocabulary.ts';

it('gives its resources types, levels and categories from the vocabularies', () => {
  for (const resource of DEMO_RESOURCES) {
    const {
      type,
      niveaux = [],
      categories = [],
    } = resource as {
      type: string;
      niveaux?: readonly string[];
      categories?: readonly number[];
    };
    expect(Object.keys(RESOURCE_TYPES), resource.idOrigine).toContain(type);
    for (const level of niveaux) expect(Object.keys(LEVELS), resource.idOrigine).toContain(level);
    for (const category of categories)
      expect(Object.keys(CATEGORIES).map(Number), resource.idOrigine).toContain(category);
  }
  expect(DEMO_RESOURCES.some((resource) => 'niveaux' in resource)).toBe(true);
});
