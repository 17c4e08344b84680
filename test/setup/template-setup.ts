/**
 * Once per run of the fast tests alone (the mutation-testing run): migrate the template database
 * that each test file copies. Unlike global-setup.ts it builds nothing: no test of that run starts
 * a service process.
 */
import { applyMigrations } from '../../src/db/migrate.ts';
import { dropTemplate, freshTemplateUrl } from './test-databases.ts';

export default async function setup(): Promise<() => Promise<void>> {
  await applyMigrations(await freshTemplateUrl());
  return dropTemplate;
}
