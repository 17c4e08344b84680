/** The service as the benchmark scripts run it: its own database, silent, no background sweep. */
import { createApp } from '../src/app.ts';
import { parseConfig } from '../src/config.ts';
import { openDatabase } from '../src/db/client.ts';
import { createLogger } from '../src/logging/logger.ts';

export const BENCH_TOKEN = 'bench-token-0123456789';

/** With `announceStatements`, every SQL statement is reported (it costs time: recording runs only). */
export async function benchApp(databaseUrl: string, { announceStatements = false } = {}) {
  await openDatabase(databaseUrl, { announceStatements });
  const config = parseConfig({
    baseId: 'bench',
    baseUrl: 'http://127.0.0.1/',
    listeMax: 1000,
    databaseUrl,
    apiTokens: [BENCH_TOKEN],
    sessionSecret: 'bench-session-secret-0123456789',
    logLevel: 'silent',
    session: { sweepIntervalSeconds: 0 },
  });
  return createApp(config, { logger: createLogger('silent') });
}
