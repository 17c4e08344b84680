/** Which migrations of this version the open database still lacks (for `rrs config check`). */
import { db, provider } from './client.ts';
import { type Migration, migrationsOf } from './migrate.ts';

/** The migrations not applied yet (all of them before the first start creates the history table). */
export async function pendingMigrations(): Promise<Migration[]> {
  const applied = await db
    .$queryRawUnsafe<{ migration_name: string }[]>(
      'SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL',
    )
    .catch(() => []);
  const done = new Set(applied.map((row) => row.migration_name));
  return migrationsOf(provider).filter((migration) => !done.has(migration.name));
}
