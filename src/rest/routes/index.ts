/** Every legacy route, by domain (one tag of the OpenAPI document per domain). */
import type { LegacyRoute } from '../route-table.ts';
import { groupRoutes } from './groups.ts';
import { listRoutes } from './lists.ts';
import { peerRoutes } from './peers.ts';
import { personRoutes } from './persons.ts';
import { erasureRoutes } from './privacy-erasure.ts';
import { resourceRoutes } from './resources.ts';
import { treeRoutes } from './trees.ts';

export const routeDomains: Record<string, readonly LegacyRoute[]> = {
  Persons: [...personRoutes, ...erasureRoutes],
  Groups: groupRoutes,
  Resources: resourceRoutes,
  Lists: listRoutes,
  Trees: treeRoutes,
  'Peers and labs': peerRoutes,
};

export const legacyRoutes: readonly LegacyRoute[] = Object.values(routeDomains).flat();
