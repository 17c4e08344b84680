/**
 * What every command of the command-line tool shares: the program (global `--json`, exit codes,
 * one `rrs:` line per failure), and the bootstrapping of a command that needs the service: load
 * the configuration as the service does (CONFIG_FILE, environment), apply pending migrations (as
 * `npm start` does, so the tool works on a fresh clone; read-only commands apply none and refuse a
 * database that lacks them), open the database, run, close.
 *
 * Commands call the same service functions as GraphQL, with an operator's context: the rights of
 * an API-token caller (whoever runs the tool can read the configuration and the database anyway).
 */
import { Command, CommanderError } from 'commander';
import { resolveViewer } from '../auth/authn.ts';
import type { SessionHandle } from '../auth/session.ts';
import { operatorViewer, type Viewer } from '../auth/viewer.ts';
import { type Config, ConfigError, loadConfig } from '../config.ts';
import { type Context, coreServices, type Services } from '../context.ts';
import { isDatabaseUnavailable } from '../db/availability.ts';
import { closeDatabase, db, openDatabase, ping } from '../db/client.ts';
import { isUncreatedSqliteFile, redact, sqlitePath } from '../db/database-url.ts';
import { applyMigrations, MigrationError } from '../db/migrate.ts';
import { pendingMigrations } from '../db/migration-status.ts';
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
  /** The configuration is invalid, the database cannot be used, or no Node.js the service runs on. */
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

/** Where the tool writes: results to `out` (stdout), messages to `err` (stderr). */
export interface CliOutput {
  out(text: string): void;
  err(text: string): void;
}

export const processOutput: CliOutput = {
  out: (text) => void process.stdout.write(text),
  err: (text) => void process.stderr.write(text),
};

export function createProgram(output: CliOutput = processOutput): Command {
  return (
    new Command('rrs')
      .description('Resource Repository Service: administration from the command line')
      .option('--json', 'print results as JSON (for scripts), before or after the command')
      // Subcommands inherit all of this: every line any command writes goes through `output`, and
      // commander's own complaints (unknown option, missing argument) read as the tool's.
      .configureOutput({
        writeOut: output.out,
        writeErr: output.err,
        outputError: (text, write) => write(`rrs: ${text.replace(/^error: /, '')}`),
      })
      .configureHelp({ showGlobalOptions: true })
      .showHelpAfterError()
      .exitOverride()
  );
}

/** Writes a line of results (stdout) for `command`. */
export function print(command: Command, line: string): void {
  command.configureOutput().writeOut?.(`${line}\n`);
}

/** Writes a line of messages (stderr) for `command`. */
export function complain(command: Command, line: string): void {
  command.configureOutput().writeErr?.(`${line}\n`);
}

/** Wrong usage of `command`: one `rrs:` line, then its help, exit code 2. */
export function usage(command: Command, message: string): never {
  return command.error(message);
}

/**
 * An error's message on one line: Prisma's (`Invalid \`prisma.x()\` invocation:` and blank lines
 * before what happened) by what happened, any other's lines joined.
 */
export function oneLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  const lines = text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  if (lines.length > 1 && /^Invalid `.*` invocation/.test(lines[0]!)) return lines.at(-1)!;
  return lines.join(' ');
}

/** Runs the program; resolves to the exit code (never throws). */
export async function runProgram(program: Command, argv: string[]): Promise<number> {
  const say = (line: string) => complain(program, `rrs: ${line}`);
  try {
    await program.parseAsync(argv);
    return process.exitCode === undefined ? EXIT.ok : Number(process.exitCode);
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version print and end with code 0; anything else is wrong usage.
      return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    if (error instanceof CliError) {
      say(error.message);
      return error.exitCode;
    }
    if (error instanceof ConfigError) {
      say(error.message);
      return EXIT.environment;
    }
    if (error instanceof DomainError) {
      say(error.operatorMessage ?? error.message);
      return EXIT.failure;
    }
    // A fault of the tool: still one line; where it happened on demand.
    say(`unexpected error: ${oneLine(error)} (LOG_LEVEL=debug shows where)`);
    if (/^(debug|trace)$/.test(process.env.LOG_LEVEL ?? '') && error instanceof Error && error.stack) {
      complain(program, error.stack);
    }
    return EXIT.failure;
  }
}

/** Whether the command asked for JSON output (the global `--json`). */
export function wantsJson(command: Command): boolean {
  return Boolean(command.optsWithGlobals().json);
}

/** Prints `value` as JSON with `--json`, else the human form. */
export function output(command: Command, value: unknown, human: () => string): void {
  print(command, wantsJson(command) ? JSON.stringify(value, null, 2) : human());
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
      client: { address: 'cli', fromLoopback: true },
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

/**
 * How a command uses the database: `write` applies pending migrations first (creating an SQLite
 * file that is not there yet); `read` changes nothing, so it refuses a database that is not there
 * or lacks migrations of this version, which its statements would meet as missing tables.
 */
export type DatabaseAccess = 'write' | 'read';

/** A database the tool cannot use: exit code 3, one line naming it (its password masked). */
export function unusableDatabase(databaseUrl: string, error: unknown): CliError {
  if (error instanceof DatabaseUnreachableError || error instanceof MigrationError) {
    return new CliError(oneLine(error), EXIT.environment);
  }
  return new CliError(`Cannot use the database ${redact(databaseUrl)}: ${oneLine(error)}`, EXIT.environment);
}

async function openForCommand(databaseUrl: string, access: DatabaseAccess, logger: Logger): Promise<void> {
  if (access === 'read' && isUncreatedSqliteFile(databaseUrl)) {
    throw new CliError(
      `No database at ${sqlitePath(databaseUrl)}: the first start of the service, \`npm run db:migrate\` or a command that writes creates it`,
      EXIT.environment,
    );
  }
  try {
    await waitForDatabase(databaseUrl, { databaseWaitMs: 0, databaseRetryMs: 0 }, logger);
    if (access === 'write') await applyMigrations(databaseUrl, logger);
    // Prisma's warnings go to the CLI's logger (stderr): stdout holds the results only.
    await openDatabase(databaseUrl, { logger });
    await ping();
  } catch (error) {
    await closeDatabase().catch(() => {});
    throw unusableDatabase(databaseUrl, error);
  }
  if (access === 'read') {
    const pending = await pendingMigrations();
    if (pending.length > 0) {
      await closeDatabase();
      throw new CliError(
        `The database ${redact(databaseUrl)} lacks ${pending.length} migration${pending.length === 1 ? '' : 's'} of this version: \`npm run db:migrate\` (or the next start of the service) applies them`,
        EXIT.environment,
      );
    }
  }
}

/** Opens the service's database, runs `work`, and closes everything whatever happens. */
export async function withService<T>(
  work: (cli: CliContext) => Promise<T>,
  { access = 'write' }: { access?: DatabaseAccess } = {},
): Promise<T> {
  const config = cliConfig();
  // Logs go to stderr (stdout is the command's output), and only warnings unless LOG_LEVEL says more.
  const logger = createLogger(process.env.LOG_LEVEL ?? 'warn', process.stderr);
  await openForCommand(config.databaseUrl, access, logger);
  const services: Services = { ...coreServices(config, logger), abuse: noAuthentication };
  try {
    return await work(createCliContext(config, services, logger));
  } catch (error) {
    // The database went away while the command ran: the environment's fault, not the command's.
    if (isDatabaseUnavailable(error)) throw unusableDatabase(config.databaseUrl, error);
    throw error;
  } finally {
    services.database.stop();
    await services.abuse.close();
    await closeDatabase();
  }
}
