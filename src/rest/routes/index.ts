/** Every legacy route, by domain. */
import type { LegacyRoute } from '../route-table.ts';
import { groupRoutes } from './groups.ts';
import { peerRoutes } from './peers.ts';
import { personRoutes } from './persons.ts';
import { resourceRoutes } from './resources.ts';
import { treeRoutes } from './trees.ts';

export const legacyRoutes: readonly LegacyRoute[] = [
  ...personRoutes,
  ...groupRoutes,
  ...resourceRoutes,
  ...treeRoutes,
  ...peerRoutes,
];
