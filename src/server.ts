/**
 * Process entry: load the configuration, apply pending migrations, open the database, serve and
 * deliver the outbox to peers, and shut down gracefully on SIGTERM / SIGINT.
 */
import { createApp } from './app.ts';
import { ConfigError, loadConfig } from './config.ts';
import { closeDatabase, openDatabase } from './db/client.ts';
import { redact } from './db/database-url.ts';
import { applyMigrations } from './db/migrate.ts';
import { createLogger } from './logger.ts';
import { startOutboxWorker } from './modules/peers/outbox-worker.ts';

async function main(): Promise<void> {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }
  const logger = createLogger(config.logLevel);
  logger.info({ database: redact(config.databaseUrl) }, 'applying migrations');
  await applyMigrations(config.databaseUrl);
  await openDatabase(config.databaseUrl);
  const { app, services, close } = await createApp(config, { logger });
  const outboxWorker = startOutboxWorker(services);

  const server = app.listen(config.port, () => {
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : config.port;
    logger.info({ port, baseId: config.baseId }, 'serving');
  });
  server.on('error', (error) => {
    logger.fatal({ err: error }, 'cannot listen');
    process.exit(1);
  });

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    // Stop accepting connections, let requests in flight finish, then release resources.
    server.close(async () => {
      await outboxWorker.stop();
      await close();
      await closeDatabase();
      logger.info('stopped');
      process.exit(0);
    });
    server.closeIdleConnections();
    setTimeout(() => process.exit(1), 10_000).unref();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((error) => {
  console.error(error instanceof Error ? error.stack : error);
  process.exit(1);
});
