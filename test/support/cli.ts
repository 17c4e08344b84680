/**
 * The command-line tool run in the test's own process, as `rrs <args>` would run (same program, same
 * exit codes), its output captured. Commands open and close the service's database themselves: the
 * test file's connection is closed around each run and opened again after it.
 */
import { runCli } from '../../src/cli/program.ts';
import { closeDatabase, openDatabase } from '../../src/db/client.ts';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Variables the service reads that the test environment sets for its own use (Vite's BASE_URL=/). */
const SERVICE_VARIABLES = ['BASE_URL', 'BASE_ID', 'API_TOKENS', 'SESSION_SECRET', 'PORT', 'CONFIG_FILE'];

/**
 * Runs `rrs <args>` with the test file's database and `env` (a variable set to undefined is
 * removed); the environment and process.exitCode are restored afterwards.
 */
export async function rrsInProcess(
  args: string[],
  env: Record<string, string | undefined> = {},
): Promise<CliRun> {
  const saved = { ...process.env };
  for (const key of SERVICE_VARIABLES) delete process.env[key];
  process.env.LOG_LEVEL = 'silent';
  for (const [key, value] of Object.entries(env)) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
  process.exitCode = undefined;
  let stdout = '';
  let stderr = '';
  await closeDatabase();
  try {
    const code = await runCli(['node', 'rrs', ...args], {
      out: (text) => {
        stdout += text;
      },
      err: (text) => {
        stderr += text;
      },
    });
    return { code, stdout, stderr };
  } finally {
    process.exitCode = undefined;
    for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
    Object.assign(process.env, saved);
    await openDatabase(process.env.DATABASE_URL!, { announceStatements: true });
  }
}
