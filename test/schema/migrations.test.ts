/**
 * The two migration histories and the derived PostgreSQL schema stay in step with the one model
 * (prisma/schema.prisma). Each suite checks its own provider's history.
 */
import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pendingSql } from '../../scripts/db-migrate.ts';
import { derivePostgresSchema } from '../../scripts/derive-schemas.ts';
import { prismaPaths } from '../../src/db/database-url.ts';
import { provider } from '../setup/test-databases.ts';
import { scratchDir } from '../support/scratch.ts';

describe('migrations', () => {
  it('prisma/postgresql/schema.prisma is derived from the current model (npm run db:derive)', () => {
    const derived = derivePostgresSchema(readFileSync(prismaPaths.sqlite.schema, 'utf8'));
    expect(readFileSync(prismaPaths.postgresql.schema, 'utf8')).toBe(derived);
  });

  it(`the ${provider} history produces the model (npm run db:migration:new -- <name>)`, async () => {
    expect(await pendingSql(provider)).toBe('');
  });

  it(`the check notices a ${provider} history that lags behind the model`, async () => {
    const empty = scratchDir('history');
    copyFileSync(
      join(prismaPaths[provider].migrations, 'migration_lock.toml'),
      join(empty, 'migration_lock.toml'),
    );
    expect(await pendingSql(provider, empty)).toMatch(/CREATE TABLE "Person"/);
  });
});
