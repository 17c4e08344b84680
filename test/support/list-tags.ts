/**
 * The tags Resource carries for its levels and categories (levelTags, categoryTags), which the
 * database keeps from the join tables (the list_tags migration's triggers): the resources whose
 * tags are not those of their rows.
 */
import { db } from '../../src/db/client.ts';
import { tagOf } from '../../src/modules/lists/where-sql.ts';

const sorted = (tags: string[]) => [...tags].sort().join('');

function expectedTags(rows: { resourceOid: number; value: string | number }[]): Map<number, string> {
  const byResource = new Map<number, string[]>();
  for (const { resourceOid, value } of rows) {
    byResource.set(resourceOid, [...(byResource.get(resourceOid) ?? []), tagOf(value)]);
  }
  return new Map([...byResource].map(([oid, tags]) => [oid, sorted(tags)]));
}

/** Tags as a comparable text: each `|value|` in order of value, whatever order the database joined them in. */
const normalised = (tags: string) =>
  tags === ''
    ? ''
    : sorted(
        tags
          .slice(1, -1)
          .split('|')
          .map((value) => `|${value}|`),
      );

export async function tagsOutOfStep() {
  const [resources, levels, categories] = await Promise.all([
    db.resource.findMany({
      select: { oid: true, levelTags: true, categoryTags: true },
      orderBy: { oid: 'asc' },
    }),
    db.resourceLevel.findMany({ select: { resourceOid: true, level: true } }),
    db.resourceCategory.findMany({ select: { resourceOid: true, categoryId: true } }),
  ]);
  const levelTags = expectedTags(levels.map(({ resourceOid, level }) => ({ resourceOid, value: level })));
  const categoryTags = expectedTags(
    categories.map(({ resourceOid, categoryId }) => ({ resourceOid, value: categoryId })),
  );
  return resources.filter(
    (resource) =>
      normalised(resource.levelTags) !== (levelTags.get(resource.oid) ?? '') ||
      normalised(resource.categoryTags) !== (categoryTags.get(resource.oid) ?? ''),
  );
}
