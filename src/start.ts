/**
 * The service's start, once the entry (./server.ts) has checked the Node.js: load the
 * configuration, wait for the database, apply pending migrations, open the database, serve and
 * deliver the outbox to peers, and stop gracefully on SIGTERM / SIGINT.
 *
 * In production this runs compiled, as `node dist/server.js` (`npm start` execs it), so signals
 * reach this process and no wrapper in between.
 */
import { createServer } from 'node:http';
import { setFlagsFromString } from 'node:v8';
import { createApp } from './app.ts';
import { ConfigError, loadConfig } from './config.ts';
import { closeDatabase, openDatabase } from './db/client.ts';
import { contentChanges } from './db/content-changes.ts';
import { redact } from './db/database-url.ts';
import { applyMigrations, MigrationError } from './db/migrate.ts';
import { DatabaseUnreachableError, waitForDatabase } from './db/wait.ts';
import { stopGracefullyOnSignals } from './lifecycle/graceful-shutdown.ts';
import { createLogger, type Logger } from './logging/logger.ts';
import { rebuildStaleSearchIndex } from './modules/lists/search-index.ts';
import { startOutboxWorker } from './modules/peers/outbox-worker.ts';

/** Until serving, a signal ends the start at once: nothing is in flight, transactions roll back. */
function exitOnSignalsWhileStarting(logger: Logger): () => void {
  const exit = (signal: NodeJS.Signals) => {
    logger.info({ signal, phase: 'starting' }, 'shutting down');
    logger.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', exit);
  process.on('SIGINT', exit);
  return () => {
    process.off('SIGTERM', exit);
    process.off('SIGINT', exit);
  };
}

export async function start(): Promise<void> {
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
  // V8 reads the factor at each full collection, so setting it now covers the whole run.
  if (config.heapGrowthPercent > 0) setFlagsFromString(`--heap-growing-percent=${config.heapGrowthPercent}`);
  const starting = exitOnSignalsWhileStarting(logger);
  try {
    await waitForDatabase(config.databaseUrl, config.lifecycle, logger);
    logger.info({ database: redact(config.databaseUrl) }, 'applying migrations');
    await applyMigrations(config.databaseUrl, logger);
  } catch (error) {
    // Expected ways for a start to fail: one line that says what to do, no stack.
    if (error instanceof DatabaseUnreachableError || error instanceof MigrationError) {
      logger.fatal(error.message);
      process.exit(1);
    }
    throw error;
  }
  await openDatabase(config.databaseUrl, { logger });
  // Other instances' commits invalidate this one's response cache.
  await contentChanges.listen({ logger, databaseUrl: config.databaseUrl });
  // Before listening: a search must never read an index written by other rules.
  await rebuildStaleSearchIndex(logger);
  const { app, services, close } = await createApp(config, { logger });
  const outboxWorker = startOutboxWorker(services);

  const server = createServer(app);
  server.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EADDRINUSE' || error.code === 'EACCES') {
      // A condition of the machine, not a fault of the service: what to do, without a stack.
      const where = `port ${config.port} on ${config.host ?? 'every interface'}`;
      logger.fatal(
        { code: error.code, port: config.port, host: config.host },
        error.code === 'EADDRINUSE'
          ? `cannot listen: ${where} is already in use; stop what listens there, or choose another port with PORT (or "port" in the configuration file)`
          : `cannot listen: ${where} is not allowed to this user; choose a port above 1023 with PORT (or "port" in the configuration file)`,
      );
    } else {
      logger.fatal({ err: error }, 'cannot listen');
    }
    process.exit(1);
  });
  server.listen({ port: config.port, host: config.host }, () => {
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : config.port;
    starting();
    stopGracefullyOnSignals({
      server,
      logger,
      graceMs: config.lifecycle.shutdownGraceMs,
      // Event streams never finish by themselves: ended here, so they do not hold the drain.
      beforeDrain: async () => {
        await Promise.all([outboxWorker.stop(), services.subscriptions.close()]);
      },
      afterDrain: async () => {
        await close();
        await contentChanges.stop();
        await closeDatabase();
      },
    });
    const url = `http://${openableHost(config.host)}:${port}/`;
    logger.info({ url, port, host: config.host, baseId: config.baseId, pid: process.pid }, 'serving');
    const linked = linkedLocalPort(config.baseUrl);
    if (linked !== undefined && linked !== port) {
      // The service's own links (logoutUrl, tree links, /api/baseId) are built from baseUrl.
      logger.warn(
        { baseUrl: config.baseUrl, port },
        `baseUrl ${config.baseUrl} names port ${linked} of this machine, but the service listens on port ${port}: its links will point there; set BASE_URL (or "baseUrl" in the configuration file) to match`,
      );
    }
  });
}

/** The port `baseUrl` names when it designates this machine (a proxy's public address may differ). */
function linkedLocalPort(baseUrl: string): number | undefined {
  const { hostname, port, protocol } = new URL(baseUrl);
  if (!['localhost', '127.0.0.1', '[::1]'].includes(hostname)) return undefined;
  return port ? Number(port) : protocol === 'https:' ? 443 : 80;
}

/** The host to open in a browser: the one listened on, or localhost when it is every interface. */
function openableHost(host: string | undefined): string {
  if (!host || host === '0.0.0.0' || host === '::') return 'localhost';
  return host.includes(':') ? `[${host}]` : host;
}
