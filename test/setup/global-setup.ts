/** Once per run: migrate the template database that every test file copies. */
import { applyMigrations } from '../../src/db/migrate.ts';
import { dropTemplate, freshTemplateUrl, provider } from './test-databases.ts';

export default async function setup(): Promise<() => Promise<void>> {
  const url = await freshTemplateUrl();
  await applyMigrations(url);
  console.log(`test databases: ${provider}, template migrated`);
  return dropTemplate;
}
