/**
 * `rrs config check`: what would stop the service, or make it unusable, before it is started:
 * the configuration's validation errors, the database, the labs and peers it must reach, and the
 * settings production must not run with. Exit code 1 when anything is wrong.
 */
import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Command } from 'commander';
import { countActiveApiTokens } from '../../auth/api-tokens.ts';
import { type Config, ConfigError, loadConfig } from '../../config.ts';
import { closeDatabase, db, openDatabase, ping } from '../../db/client.ts';
import { isUncreatedSqliteFile, redact, sqlitePath } from '../../db/database-url.ts';
import { pendingMigrations } from '../../db/migration-status.ts';
import { waitForDatabase } from '../../db/wait.ts';
import { createLogger } from '../../logging/logger.ts';
import { derivedRepositoryIdentifier, FALLBACK_REPOSITORY_IDENTIFIER } from '../../oai/identifier.ts';
import { EXIT, oneLine, output } from '../context.ts';

export interface Check {
  /** What was checked, e.g. `database`, `lab labA`. */
  subject: string;
  ok: boolean;
  /** `note`: worth knowing, not a problem. */
  level: 'ok' | 'problem' | 'note';
  message: string;
}

const problem = (subject: string, message: string): Check => ({
  subject,
  ok: false,
  level: 'problem',
  message,
});
const fine = (subject: string, message: string): Check => ({ subject, ok: true, level: 'ok', message });
const note = (subject: string, message: string): Check => ({ subject, ok: true, level: 'note', message });

/** Whether something answers HTTP at `baseUrl` (any status: the service only needs to reach it). */
async function reachable(subject: string, baseUrl: string, timeoutMs: number): Promise<Check> {
  try {
    const response = await fetch(baseUrl, { signal: AbortSignal.timeout(timeoutMs), redirect: 'manual' });
    await response.body?.cancel();
    return fine(subject, `${baseUrl} answers (HTTP ${response.status})`);
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const reason =
      (error as Error).name === 'TimeoutError'
        ? `no answer within ${timeoutMs} ms`
        : (cause?.code ?? cause?.message ?? (error as Error).message);
    return problem(subject, `${baseUrl} unreachable (${reason})`);
  }
}

/** Why no file can be created at `path` (its nearest existing folder is no folder, or not writable). */
function whyNotCreatable(path: string): string | undefined {
  let folder = dirname(resolve(path));
  while (!existsSync(folder)) folder = dirname(folder);
  if (!statSync(folder).isDirectory()) return `${folder} is not a folder`;
  try {
    accessSync(folder, constants.W_OK);
  } catch {
    return `${folder} is not writable`;
  }
  return undefined;
}

/** The person erasures hand orphaned resources to must exist, or every such erasure fails. */
async function successorCheck(pid: string): Promise<Check> {
  const subject = 'privacy.erasure.successorPid';
  // Before its migrations, there is no table of persons: nobody exists yet.
  const person = await db.person.findUnique({ where: { pid }, select: { oid: true } }).catch(() => null);
  return person
    ? fine(subject, `${pid} exists: resources only an erased person could read or change go to them`)
    : problem(
        subject,
        `no person with pid ${pid}: an erasure that leaves a resource to nobody would fail (create the person, or unset it to delete such resources)`,
      );
}

async function databaseChecks(config: Config): Promise<Check[]> {
  const url = config.databaseUrl;
  if (isUncreatedSqliteFile(url)) {
    const cannot = whyNotCreatable(sqlitePath(url));
    return [
      cannot
        ? problem('database', `${url}: no file yet, and the first start cannot create it: ${cannot}`)
        : note('database', `${url}: no file yet, created by the first start`),
      ...(config.apiTokens.length === 0
        ? [
            problem(
              'apiTokens',
              'no API token configured and none issued: run `npx rrs token issue --name admin`',
            ),
          ]
        : []),
    ];
  }
  try {
    await waitForDatabase(url, { ...config.lifecycle, databaseWaitMs: 0 }, createLogger('silent'));
    await openDatabase(url);
    await ping();
  } catch (error) {
    await closeDatabase().catch(() => {});
    return [problem('database', `${redact(url)} cannot be used: ${oneLine(error)}`)];
  }
  try {
    const checks = [fine('database', `${redact(url)} answers`)];
    const pending = await pendingMigrations();
    if (pending.length > 0) {
      checks.push(
        note(
          'migrations',
          `${pending.length} pending, applied by the next start, \`npm run db:migrate\` or any rrs command that writes`,
        ),
      );
    } else {
      checks.push(fine('migrations', 'up to date'));
    }
    if (config.apiTokens.length === 0) {
      // Before its migration, there is no table of issued tokens: none issued.
      const issued = await countActiveApiTokens().catch(() => 0);
      checks.push(
        issued > 0
          ? fine('apiTokens', `none configured, ${issued} issued and active`)
          : problem(
              'apiTokens',
              'no API token configured and none issued: run `npx rrs token issue --name admin`',
            ),
      );
    }
    if (config.privacy.erasure.successorPid)
      checks.push(await successorCheck(config.privacy.erasure.successorPid));
    return checks;
  } finally {
    await closeDatabase();
  }
}

/** What the retention settings make the service do, so the operator sees it before it happens. */
function retentionCheck(config: Config): Check {
  const { purgeIntervalSeconds, auditEntries, stalePersons } = config.privacy.retention;
  const stale =
    stalePersons.action === 'erase'
      ? `erased after ${stalePersons.afterDays} days without login`
      : `listed after ${stalePersons.afterDays} days without login (rrs person stale), never erased`;
  const rounds =
    purgeIntervalSeconds === 0
      ? 'the service runs no purge (purgeIntervalSeconds 0; rrs purge does)'
      : `purge every ${purgeIntervalSeconds} s`;
  return note(
    'privacy.retention',
    `${rounds}: expired sessions and rate-limit counters deleted, audit entries ${auditEntries.action === 'delete' ? 'deleted' : 'pseudonymised'} after ${auditEntries.afterDays} days, stale persons ${stale}; client addresses in logs: ${config.logging.clientAddress}`,
  );
}

/** Every check, in the order a reader fixes them. */
export async function checkConfiguration(env: NodeJS.ProcessEnv = process.env): Promise<Check[]> {
  let config: Config;
  try {
    config = loadConfig(env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    // One problem per line of the validation message ("  - path: message").
    const lines = error.message.split('\n');
    const items = lines.filter((line) => line.startsWith('  - ')).map((line) => line.slice(4));
    return (items.length > 0 ? items : lines).map((message) => problem('configuration', message));
  }
  const checks: Check[] = [fine('configuration', `${env.CONFIG_FILE || 'config/default.json'} is valid`)];
  const production = env.NODE_ENV === 'production';
  if (production && !config.sessionSecret) {
    checks.push(
      problem(
        'sessionSecret',
        'missing in production: set sessionSecret (or SESSION_SECRET), or every instance depends on the one stored in the database',
      ),
    );
  }
  if (production && config.baseUrlFollowsListening) {
    checks.push(
      problem(
        'baseUrl',
        `missing in production: set baseUrl (or BASE_URL) to the public address; unset, it follows the address the service listens on, ${config.baseUrl}, which the service's links (logoutUrl, tree links, /api/baseId, OAI-PMH baseURL and identifiers) then name, though clients behind a proxy or another machine cannot reach it`,
      ),
    );
  }
  // Harvesters keep identifiers and write to the contact: defaults that stand in for neither are
  // fine on a developer's machine, not in production (the start does not refuse them: src/oai/settings.ts).
  if (production && config.oai.adminEmail.length === 0) {
    checks.push(
      problem(
        'oai.adminEmail',
        'missing in production: set oai.adminEmail (or OAI_ADMIN_EMAIL), the contact OAI-PMH harvesters see; Identify otherwise gives admin@<repositoryIdentifier>',
      ),
    );
  }
  if (
    production &&
    derivedRepositoryIdentifier(config.baseUrl) === FALLBACK_REPOSITORY_IDENTIFIER &&
    !config.oai.repositoryIdentifier
  ) {
    checks.push(
      problem(
        'oai.repositoryIdentifier',
        `missing in production: the host of baseUrl is no domain name, so OAI-PMH identifiers would be oai:${FALLBACK_REPOSITORY_IDENTIFIER}:<oid>; set oai.repositoryIdentifier (or OAI_REPOSITORY_IDENTIFIER)`,
      ),
    );
  }
  if (production && config.graphql.exposeInternalErrors) {
    checks.push(problem('graphql.exposeInternalErrors', 'must be false in production'));
  }
  if (config.devLogin) {
    checks.push(
      note(
        'devLogin',
        config.devLoginAllowRemote
          ? 'on, for every address (devLoginAllowRemote): anyone who reaches the service can log in by pid, as administrator (development only)'
          : 'on, for callers on this machine only: anyone on it can log in by pid (development only)',
      ),
    );
  }
  checks.push(retentionCheck(config));
  checks.push(...(await databaseChecks(config)));
  const remotes = await Promise.all([
    ...config.labs.map((lab) => reachable(`lab ${lab.baseId}`, lab.baseUrl, config.http.labTimeoutMs)),
    ...config.peers.map((peer) => reachable(`peer ${peer.baseId}`, peer.baseUrl, config.http.peerTimeoutMs)),
  ]);
  return [...checks, ...remotes];
}

const MARKS = { ok: '✓', note: '•', problem: '✗' } as const;

export function registerConfigCommands(program: Command): void {
  const config = program.command('config').description('check the configuration');
  config
    .command('check')
    .description('report configuration problems: validation, database, labs and peers, production settings')
    .action(async (_options: unknown, command: Command) => {
      const checks = await checkConfiguration();
      const problems = checks.filter((check) => !check.ok).length;
      output(command, { ok: problems === 0, checks }, () =>
        [
          ...checks.map((check) => `${MARKS[check.level]} ${check.subject}: ${check.message}`),
          problems === 0 ? 'No problem found.' : `${problems} problem${problems === 1 ? '' : 's'} found.`,
        ].join('\n'),
      );
      if (problems > 0) process.exitCode = EXIT.failure;
    });
}
