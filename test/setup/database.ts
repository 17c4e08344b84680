/** Before each test file: open a database of the file's own, copied from the migrated template. */
import { afterAll, beforeAll } from 'vitest';
import { closeDatabase, openDatabase } from '../../src/db/client.ts';
import { createTestDatabase, dropTestDatabase } from './test-databases.ts';

let url: string;

beforeAll(async () => {
  url = await createTestDatabase('file');
  process.env.DATABASE_URL = url;
  await openDatabase(url);
});

afterAll(async () => {
  await closeDatabase();
  await dropTestDatabase(url);
});
