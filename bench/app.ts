/** The service as the benchmark scripts run it: its own database, silent, no background sweep. */
import { serviceModule } from './service-build.ts';
import { BENCH_TOKEN } from './token.ts';

const { createApp } = await serviceModule<typeof import('../src/app.ts')>('app');
const { parseConfig } = await serviceModule<typeof import('../src/config.ts')>('config');
const { openDatabase } = await serviceModule<typeof import('../src/db/client.ts')>('db/client');
const { createLogger } = await serviceModule<typeof import('../src/logging/logger.ts')>('logging/logger');

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
