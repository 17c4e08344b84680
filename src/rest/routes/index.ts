/** Every legacy route, by domain. */
import type { LegacyRoute } from '../route-table.ts';
import { groupRoutes } from './groups.ts';
import { listRoutes } from './lists.ts';
import { personRoutes } from './persons.ts';
import { resourceRoutes } from './resources.ts';

export const legacyRoutes: readonly LegacyRoute[] = [
  ...personRoutes,
  ...groupRoutes,
  ...resourceRoutes,
  ...listRoutes,
];
