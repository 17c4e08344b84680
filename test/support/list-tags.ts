/**
 * The tags Resource carries for its levels and categories (levelTags, categoryTags), which the
 * database keeps from the join tables (the list_tags migration's triggers): the resources whose
 * tags are not those of their rows, in their order.
 */
import { db } from '../../src/db/client.ts';
import { tagOf } from '../../src/read-model/conditions.ts';

/** Each resource's tags as the triggers write them: `|a|b|`, values in the order of their positions. */
function expectedTags(rows: { resourceOid: number; value: string | number; position: number }[]) {
  const byResource = new Map<number, { value: string | number; position: number }[]>();
  for (const { resourceOid, ...row } of rows) {
    const list = byResource.get(resourceOid) ?? [];
    list.push(row);
    byResource.set(resourceOid, list);
  }
  const tags = new Map<number, string>();
  for (const [oid, list] of byResource) {
    const values = list.sort((a, b) => a.position - b.position).map(({ value }) => tagOf(value).slice(0, -1));
    tags.set(oid, `${values.join('')}|`);
  }
  return tags;
}

export async function tagsOutOfStep() {
  const [resources, levels, categories] = await Promise.all([
    db.resource.findMany({
      select: { oid: true, levelTags: true, categoryTags: true },
      orderBy: { oid: 'asc' },
    }),
    db.resourceLevel.findMany({ select: { resourceOid: true, level: true, position: true } }),
    db.resourceCategory.findMany({ select: { resourceOid: true, categoryId: true, position: true } }),
  ]);
  const levelTags = expectedTags(levels.map(({ level, ...row }) => ({ ...row, value: level })));
  const categoryTags = expectedTags(
    categories.map(({ categoryId, ...row }) => ({ ...row, value: categoryId })),
  );
  return resources.filter(
    (resource) =>
      resource.levelTags !== (levelTags.get(resource.oid) ?? '') ||
      resource.categoryTags !== (categoryTags.get(resource.oid) ?? ''),
  );
}
