/** Walking the children of a tree (`enfants`): nested folders and items pointing to resources. */

export type TreeChild = Record<string, unknown> & { enfants?: unknown; aliasOf?: unknown };

const isChild = (value: unknown): value is TreeChild =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export function childrenOf(enfants: unknown): TreeChild[] {
  return Array.isArray(enfants) ? enfants.filter(isChild) : [];
}

/** Every child at any depth. */
export function* descendants(enfants: unknown): Generator<TreeChild> {
  for (const child of childrenOf(enfants)) {
    yield child;
    yield* descendants(child.enfants);
  }
}

/** The rids of other repositories' resources in a tree, by repository baseId. */
export function peerRidsOf(enfants: unknown, ownBaseId: string): Map<string, Set<string>> {
  const byBase = new Map<string, Set<string>>();
  for (const child of descendants(enfants)) {
    if (typeof child.aliasOf !== 'string') continue;
    const baseId = child.aliasOf.split('/')[0]!;
    if (baseId === ownBaseId) continue;
    if (!byBase.has(baseId)) byBase.set(baseId, new Set());
    byBase.get(baseId)!.add(child.aliasOf);
  }
  return byBase;
}

/** A copy of the tree where every child pointing to `aliasOf` is replaced by `replacement`. */
export function replaceChildren(enfants: unknown, aliasOf: string, replacement: TreeChild): unknown[] {
  return childrenOf(enfants).map((child) => {
    if (child.aliasOf === aliasOf) return replacement;
    return child.enfants === undefined
      ? child
      : { ...child, enfants: replaceChildren(child.enfants, aliasOf, replacement) };
  });
}
