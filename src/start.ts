/**
 * The service's start, once the entry (./server.ts) has checked the Node.js: load the
 * configuration, wait for the database, apply pending migrations, open the database, serve and
 * deliver the outbox to peers, purge personal data past its retention, and stop gracefully on SIGTERM / SIGINT.
 *
 * In production this runs compiled, as `node dist/server.js` (`npm start` execs it), so signals
 * reach this process and no wrapper in between.
 */
import {
  createServer,
  type IncomingMessage,
  type RequestListener,
  type Server,
  type ServerResponse,
} from 'node:http';
import { setFlagsFromString } from 'node:v8';
import { createApp } from './app.ts';
import { operatorViewer } from './auth/viewer.ts';
import { type Config, ConfigError, listeningOn, listeningUrl, loadConfig } from './config.ts';
import { closeDatabase, openDatabase } from './db/client.ts';
import { contentChanges } from './db/content-changes.ts';
import { redact } from './db/database-url.ts';
import { applyMigrations, MigrationError } from './db/migrate.ts';
import { DatabaseUnreachableError, waitForDatabase } from './db/wait.ts';
import { stopGracefullyOnSignals } from './lifecycle/graceful-shutdown.ts';
import { createLogger, type Logger } from './logging/logger.ts';
import { rebuildStaleSearchIndex } from './modules/lists/search-index.ts';
import { startOutboxWorker } from './modules/peers/outbox-worker.ts';
import { staleErasure } from './modules/privacy/erasure.service.ts';
import { startPurgeJob } from './modules/privacy/purge-job.ts';

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
  // Listening before the app exists: with PORT=0 the port, which a baseUrl that follows the
  // listening address names, is known only then. Requests that arrive meanwhile wait for the app.
  const waiting: [IncomingMessage, ServerResponse][] = [];
  let handle: RequestListener = (req, res) => {
    waiting.push([req, res]);
  };
  const server = createServer((req, res) => handle(req, res));
  const port = await listen(server, config, logger);
  const served = listeningOn(config, port);
  const { app, services, close } = await createApp(served, { logger });
  const outboxWorker = startOutboxWorker(services);
  // Stale persons are erased as an operator would (when `stalePersons.action` is `erase`).
  const erase = staleErasure({ config, viewer: operatorViewer, requestId: 'retention', log: logger });
  const purgeJob = startPurgeJob(services, { erase });
  handle = app;
  for (const [req, res] of waiting.splice(0)) app(req, res);

  starting();
  stopGracefullyOnSignals({
    server,
    logger,
    graceMs: config.lifecycle.shutdownGraceMs,
    // Event streams never finish by themselves: ended here, so they do not hold the drain.
    beforeDrain: async () => {
      await Promise.all([outboxWorker.stop(), purgeJob.stop(), services.subscriptions.close()]);
    },
    afterDrain: async () => {
      await close();
      await contentChanges.stop();
      await closeDatabase();
    },
  });
  const url = listeningUrl(config.host, port);
  logger.info({ url, port, host: config.host, baseId: config.baseId, pid: process.pid }, 'serving');
  if (config.devLogin) {
    // Whoever reads the start-up log should know that anyone it answers can log in as anyone.
    logger.warn(
      { devLogin: config.devLoginAllowRemote ? 'remote' : 'loopback' },
      `development login on: ${config.devLoginAllowRemote ? 'anyone who reaches the service (devLoginAllowRemote)' : 'anyone on this machine (loopback callers; others are refused)'} can log in as any person with POST /api/dev/connexion or GraphQL devLogin; turn it off (devLogin, DEV_LOGIN) outside development`,
    );
  }
  const linked = linkedLocalPort(served.baseUrl);
  if (linked !== undefined && linked !== port) {
    // The service's own links (logoutUrl, tree links, /api/baseId) are built from baseUrl.
    logger.warn(
      { baseUrl: served.baseUrl, port },
      `baseUrl ${served.baseUrl} names port ${linked} of this machine, but the service listens on port ${port}: its links will point there; set BASE_URL (or "baseUrl" in the configuration file) to match, or leave it unset to follow the port`,
    );
  }
}

/** Listens where the configuration says; the port listened on, or the process ends saying why. */
function listen(server: Server, config: Config, logger: Logger): Promise<number> {
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
  return new Promise((resolve) => {
    server.listen({ port: config.port, host: config.host }, () => {
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : config.port);
    });
  });
}

/** The port `baseUrl` names when it designates this machine (a proxy's public address may differ). */
function linkedLocalPort(baseUrl: string): number | undefined {
  const { hostname, port, protocol } = new URL(baseUrl);
  if (!['localhost', '127.0.0.1', '[::1]'].includes(hostname)) return undefined;
  return port ? Number(port) : protocol === 'https:' ? 443 : 80;
}
