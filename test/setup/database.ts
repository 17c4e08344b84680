/**
 * Around each test file: a database of the file's own, copied from the migrated template; at the
 * end, no service process and no temporary folder of the file is left.
 */
import { afterAll, beforeAll } from 'vitest';
import { closeDatabase, openDatabase } from '../../src/db/client.ts';
import { removeScratchDirs } from '../support/scratch.ts';
import { killServers } from '../support/server-process.ts';
import { createTestDatabase, dropTestDatabase } from './test-databases.ts';

let url: string;

beforeAll(async () => {
  url = await createTestDatabase('file');
  process.env.DATABASE_URL = url;
  // Some tests count the statements a request sends.
  await openDatabase(url, { announceStatements: true });
});

afterAll(async () => {
  await killServers();
  removeScratchDirs();
  await closeDatabase();
  await dropTestDatabase(url);
});
