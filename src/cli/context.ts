/**
 * What every command of the command-line tool shares: the program (global `--json`, exit codes),
 * and the bootstrapping of a command that needs the service: load the configuration as the
 * service does (CONFIG_FILE, environment), apply pending migrations (as `npm start` does, so the
 * tool works on a fresh clone), open the database, run, close.
 *
 * Commands call the same service functions as GraphQL, with an operator's context: the rights of
 * an API-token caller (whoever runs the tool can read the configuration and the database anyway).
 */
import { Command, CommanderError } from 'commander';
import { resolveViewer } from '../auth/authn.ts';
import type { SessionHandle } from '../auth/session.ts';
import { anonymousViewer, type Viewer } from '../auth/viewer.ts';
import { type Config, ConfigError, loadConfig } from '../config.ts';
import { type Context, coreServices, type Services } from '../context.ts';
import { closeDatabase, db, openDatabase } from '../db/client.ts';
import { redact } from '../db/database-url.ts';
import { applyMigrations, MigrationError } from '../db/migrate.ts';
import { DatabaseUnreachableError, waitForDatabase } from '../db/wait.ts';
import { DomainError } from '../errors.ts';
import { createLogger, type Logger } from '../logging/logger.ts';
import type { AbuseLimits } from '../security/abuse-limits.ts';

/** Exit codes, documented in docs/cli.md. */
export const EXIT = {
  ok: 0,
  /** The command ran and failed: invalid input, not found, problems found by `config check`. */
  failure: 1,
  /** Wrong usage: unknown command or option, missing argument. */
  usage: 2,
  /** The configuration is invalid or the database cannot be used. */
  environment: 3,
} as const;

/** A failure the tool reports in one line (no stack) before exiting with `exitCode`. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT.failure,
  ) {
    super(message);
  }
}

export function createProgram(): Command {
  return new Command('rrs')
    .description('Resource Repository Service: administration from the command line')
    .option('--json', 'print results as JSON (for scripts)')
    .showHelpAfterError()
    .exitOverride();
}

/** Runs the program; resolves to the exit code (never throws). */
export async function runProgram(program: Command, argv: string[]): Promise<number> {
  try {
    await program.parseAsync(argv);
    return process.exitCode === undefined ? EXIT.ok : Number(process.exitCode);
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version print and end with code 0; anything else is wrong usage.
      return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    if (error instanceof CliError) {
      console.error(`rrs: ${error.message}`);
      return error.exitCode;
    }
    if (error instanceof DomainError) {
      console.error(`rrs: ${error.operatorMessage ?? error.message}`);
      return EXIT.failure;
    }
    console.error(error instanceof Error ? (error.stack ?? error.message) : error);
    return EXIT.failure;
  }
}

/** Whether the command asked for JSON output (the global `--json`). */
export function wantsJson(command: Command): boolean {
  return Boolean(command.optsWithGlobals().json);
}

/** Prints `value` as JSON with `--json`, else the human form. */
export function output(command: Command, value: unknown, human: () => string): void {
  console.log(wantsJson(command) ? JSON.stringify(value, null, 2) : human());
}

/** The configuration as the service would load it, or a CliError naming every problem. */
export function cliConfig(env: NodeJS.ProcessEnv = process.env): Config {
  try {
    return loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) throw new CliError(error.message, EXIT.environment);
    throw error;
  }
}

export interface CliContext {
  config: Config;
  services: Services;
  logger: Logger;
  /** A context for service functions, acting as `viewer` (an operator with all rights by default). */
  as(viewer?: Viewer): Context;
  /** A context acting as the person `pid`, with exactly that person's rights. */
  asPerson(pid: string): Promise<Context>;
}

/** Operators have no session: a command that tries to start one is a bug. */
const noSession: SessionHandle = {
  personOid: () => undefined,
  labBaseId: () => null,
  establish: () => Promise.reject(new Error('the command-line tool has no session')),
  destroy: async () => {},
};

/** Nothing authenticates through the tool: no failure to count (and no Redis client to load). */
const noAuthentication: AbuseLimits = {
  assertAllowed: async () => {},
  recordFailure: async () => undefined,
  close: async () => {},
};

export const operatorViewer: Viewer = Object.freeze({ ...anonymousViewer, kind: 'token', allRights: true });

/** The tool's context on an open database (tests build one on theirs to run a command's work). */
export function createCliContext(config: Config, services: Services, logger: Logger): CliContext {
  const as = (viewer: Viewer = operatorViewer): Context => {
    const context: Context = {
      requestId: 'cli',
      log: logger,
      config,
      services,
      viewer,
      credentials: { apiToken: viewer.kind === 'token' },
      clientAddress: 'cli',
      fromLoopback: true,
      session: noSession,
      identify: async () => context.viewer,
      cache: new Map(),
    };
    return context;
  };
  const asPerson = async (pid: string): Promise<Context> => {
    const person = await db.person.findUnique({ where: { pid }, select: { oid: true } });
    if (!person) throw new CliError(`No person with pid ${pid}`);
    const session: SessionHandle = { ...noSession, personOid: () => person.oid };
    return as(await resolveViewer(false, session, config));
  };
  return { config, services, logger, as, asPerson };
}

/** Opens the service's database (migrated), runs `work`, and closes everything whatever happens. */
export async function withService<T>(work: (cli: CliContext) => Promise<T>): Promise<T> {
  const config = cliConfig();
  // Logs go to stderr (stdout is the command's output), and only warnings unless LOG_LEVEL says more.
  const logger = createLogger(process.env.LOG_LEVEL ?? 'warn', process.stderr);
  try {
    await waitForDatabase(config.databaseUrl, { ...config.lifecycle, databaseWaitMs: 0 }, logger);
    await applyMigrations(config.databaseUrl, logger);
  } catch (error) {
    if (error instanceof DatabaseUnreachableError || error instanceof MigrationError) {
      throw new CliError(error.message, EXIT.environment);
    }
    throw new CliError(
      `Cannot use the database ${redact(config.databaseUrl)}: ${(error as Error).message}`,
      EXIT.environment,
    );
  }
  // Prisma's warnings go to the CLI's logger (stderr): stdout holds the results only.
  await openDatabase(config.databaseUrl, { logger });
  const services: Services = { ...coreServices(config, logger), abuse: noAuthentication };
  try {
    return await work(createCliContext(config, services, logger));
  } finally {
    services.database.stop();
    await services.abuse.close();
    await closeDatabase();
  }
}
