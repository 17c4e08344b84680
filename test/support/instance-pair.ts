/**
 * Two service processes on one new database, as behind a load balancer: a writer and a reader, to
 * check what one instance learns of the other's commits (response cache, subscriptions).
 */
import { expect } from 'vitest';
import { createTestDatabase, dropTestDatabase } from '../setup/test-databases.ts';
import { configFile, type ServerProcess, startServer } from './server-process.ts';

export interface InstancePair {
  url: string;
  reader: ServerProcess;
  writer: ServerProcess;
  readerBase: string;
  writerBase: string;
  /** Creates or updates a resource through the writer (with the token); its oid. */
  save(fields: Record<string, unknown>): Promise<number>;
  stop(): Promise<void>;
}

/** `config` is the service configuration both share; `apiTokens` must hold `token`. */
export async function startInstancePair(name: string, token: string, config: object): Promise<InstancePair> {
  const url = await createTestDatabase(name);
  const env = { CONFIG_FILE: configFile({ apiTokens: [token], ...config }), DATABASE_URL: url };
  const reader = startServer(env);
  const writer = startServer(env);
  const readerBase = `http://127.0.0.1:${await reader.serving}`;
  const writerBase = `http://127.0.0.1:${await writer.serving}`;
  return {
    url,
    reader,
    writer,
    readerBase,
    writerBase,
    async save(fields) {
      const response = await fetch(`${writerBase}/api/ressource`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-apitoken': token },
        body: JSON.stringify({ type: 'url', publie: true, restriction: 0, ...fields }),
      });
      const body = (await response.json()) as { oid: number };
      expect(response.status, JSON.stringify(body)).toBe(200);
      return body.oid;
    },
    async stop() {
      await Promise.all([reader.stop(), writer.stop()]);
      await dropTestDatabase(url);
    },
  };
}
