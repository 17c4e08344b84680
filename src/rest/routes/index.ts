/** Every legacy route, by domain. */
import type { LegacyRoute } from '../route-table.ts';
import { personRoutes } from './persons.ts';

export const legacyRoutes: readonly LegacyRoute[] = [...personRoutes];
