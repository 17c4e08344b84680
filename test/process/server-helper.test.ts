/**
 * The helper that runs real service processes leaves nothing behind: whatever way a test ends, no
 * server process survives it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createTestDatabase, dropTestDatabase } from '../setup/test-databases.ts';
import { configFile, killServers, startServer } from '../support/server-process.ts';

/** Pids of live processes whose command line or environment mentions `marker`. */
function processesMentioning(marker: string): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry) && Number(entry) !== process.pid)
    .filter((pid) => {
      try {
        const environ = readFileSync(`/proc/${pid}/environ`, 'utf8');
        return environ.includes(marker);
      } catch {
        return false;
      }
    })
    .map(Number);
}

describe('server processes of the tests', () => {
  it('killServers() ends the service process itself, not only a wrapper', async () => {
    const url = await createTestDatabase('helper');
    try {
      const config = configFile({ baseId: 'helper', baseUrl: 'http://helper.test/', listeMax: 10 });
      const server = startServer({ CONFIG_FILE: config, DATABASE_URL: url });
      await server.serving;
      expect(processesMentioning(config).length).toBeGreaterThan(0);
      await killServers();
      await new Promise((done) => setTimeout(done, 500));
      expect(processesMentioning(config)).toEqual([]);
    } finally {
      await dropTestDatabase(url);
    }
  });
});
