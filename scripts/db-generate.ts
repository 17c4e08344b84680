/**
 * Generates both Prisma clients (SQLite and PostgreSQL) and the Pothos types. Runs on `npm ci`
 * (postinstall): generated code is not committed.
 */
import { execFileSync } from 'node:child_process';
import { prismaPaths } from '../src/db/database-url.ts';

const targets = [
  { schema: prismaPaths.sqlite.schema, url: 'file:./data/generate.db' },
  { schema: prismaPaths.postgresql.schema, url: 'postgresql://localhost:5432/generate' },
];

for (const { schema, url } of targets) {
  // The CLI needs a URL of the right scheme even though generate never connects.
  execFileSync('npx', ['prisma', 'generate', '--schema', schema], {
    stdio: 'inherit',
    env: { ...process.env, DATABASE_URL: url, PRISMA_HIDE_UPDATE_MESSAGE: '1' },
  });
}
