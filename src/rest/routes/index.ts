/** Every legacy route, by domain. */
import type { LegacyRoute } from '../route-table.ts';
import { groupRoutes } from './groups.ts';
import { listRoutes } from './lists.ts';
import { peerRoutes } from './peers.ts';
import { personRoutes } from './persons.ts';
import { resourceRoutes } from './resources.ts';
import { treeRoutes } from './trees.ts';

export const legacyRoutes: readonly LegacyRoute[] = [
  ...personRoutes,
  ...groupRoutes,
  ...resourceRoutes,
  ...listRoutes,
  ...treeRoutes,
  ...peerRoutes,
];
