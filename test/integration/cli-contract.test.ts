/**
 * The command-line tool's contract (docs/cli.md), command by command, from one table: every
 * command answers `--json` before or after its name with JSON, an unusable database or an invalid
 * configuration with exit code 3 and one `rrs:` line, an unknown option with exit code 2 and its
 * own help. Run in this process (a process start costs a second per run; the real processes are
 * test/process/cli.test.ts's).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueApiToken } from '../../src/auth/api-tokens.ts';
import { db } from '../../src/db/client.ts';
import { redact } from '../../src/db/database-url.ts';
import { createEmptyDatabase, dropTestDatabase, provider } from '../setup/test-databases.ts';
import { type CliRun, rrsInProcess } from '../support/cli.ts';
import { scratchDir } from '../support/scratch.ts';

let folder: string;
let settings: string;
let transferFile: string;
let backupFile: string;
let restoreTarget: string;
const PERSON = 'local/contract';

const unique = () => `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 7)}`;
const file = (name: string) => join(folder, `${unique()}-${name}`);
/** A person of its own for each run of `person erase`: its pid. */
const erasable = async () =>
  (await db.person.create({ data: { pid: `local/erasable-${unique()}`, nom: 'Nom', prenom: 'Prénom' } })).pid;

interface Row {
  /** The command's name, as its help's `Usage: rrs <name>` gives it. */
  name: string;
  /** What the row runs, where one command has two rows. */
  label?: string;
  /** Arguments of a run that succeeds (after the name). */
  args: () => Promise<string[]> | string[];
  /** `lines`: one JSON value per line (a log); `document`: one JSON value. */
  json: 'document' | 'lines';
  /** Variables of the successful run (restore writes into a database of its own). */
  env?: () => Record<string, string>;
  /** config check reports problems (exit 1, on stdout) where the other commands refuse to run. */
  reports?: true;
}

const TABLE: Row[] = [
  { name: 'config check', args: () => [], json: 'document', reports: true },
  {
    name: 'person create',
    args: () => ['--pid', `local/${unique()}`, '--nom', 'Nom', '--prenom', 'Prénom'],
    json: 'document',
  },
  {
    name: 'person update',
    args: () => ['--pid', PERSON, '--email', `${unique()}@example.org`],
    json: 'document',
  },
  { name: 'person show', args: () => [PERSON], json: 'document' },
  { name: 'person stale', args: () => [], json: 'document' },
  { name: 'person erase', args: async () => [await erasable()], json: 'document' },
  {
    name: 'person erase',
    label: 'person erase --dry-run',
    args: async () => [await erasable(), '--dry-run'],
    json: 'document',
  },
  { name: 'token issue', args: () => ['--name', `contract-${unique()}`], json: 'document' },
  { name: 'token list', args: () => [], json: 'document' },
  {
    name: 'token revoke',
    args: async () => [(await issueApiToken({ name: `revoked-${unique()}` })).name],
    json: 'document',
  },
  { name: 'demo load', args: () => [], json: 'document' },
  { name: 'notifications list', args: () => [], json: 'document' },
  { name: 'notifications retry', args: () => ['--all-failed'], json: 'document' },
  { name: 'import', args: () => [transferFile], json: 'document' },
  { name: 'import', label: 'import --dry-run', args: () => [transferFile, '--dry-run'], json: 'document' },
  { name: 'export', args: () => [file('export.jsonl')], json: 'document' },
  { name: 'audit', args: () => ['--limit', '3'], json: 'lines' },
  { name: 'backup', args: () => [file('backup')], json: 'document' },
  { name: 'purge', args: () => [], json: 'document' },
  { name: 'purge', label: 'purge --dry-run', args: () => ['--dry-run'], json: 'document' },
  {
    name: 'restore',
    args: () => [backupFile],
    json: 'document',
    env: () => ({ DATABASE_URL: restoreTarget }),
  },
];

/** Databases the tool cannot use, of the provider under test: what each must be refused as. */
function unusableDatabases(): { label: string; url: string }[] {
  if (provider === 'sqlite') {
    const garbage = join(folder, 'garbage.db');
    writeFileSync(garbage, 'not a database\n'.repeat(100));
    const notAFolder = join(folder, 'plain-file');
    writeFileSync(notAFolder, '');
    return [
      { label: 'a file that is no database', url: `file:${garbage}` },
      { label: 'a path no file can be created at', url: `file:${join(notAFolder, 'repository.db')}` },
    ];
  }
  return [
    { label: 'a server that refuses connections', url: 'postgresql://postgres:secret@127.0.0.1:1/rrs' },
    {
      label: 'a database the server does not have',
      url: `postgresql://postgres@127.0.0.1:5432/rrs_none_${unique()}`,
    },
  ];
}

const run = (row: Row, args: string[], env: Record<string, string> = {}) =>
  rrsInProcess([...row.name.split(' '), ...args], { CONFIG_FILE: settings, ...env });

function parsed(result: CliRun, row: Row): unknown {
  expect(result.stderr, 'stderr of a successful run').toBe('');
  if (row.json === 'document') return JSON.parse(result.stdout);
  const lines = result.stdout.split('\n').filter(Boolean);
  expect(lines.length).toBeGreaterThan(0);
  return lines.map((line) => JSON.parse(line));
}

beforeAll(async () => {
  folder = scratchDir('cli-contract');
  settings = join(folder, 'config.json');
  writeFileSync(
    settings,
    JSON.stringify({
      baseId: 'contract',
      baseUrl: 'http://contract.test/',
      listeMax: 100,
      apiTokens: ['a-configured-token-0123456789'],
    }),
  );
  const created = await rrsInProcess(['person', 'create', '--pid', PERSON, '--nom', 'N', '--prenom', 'P'], {
    CONFIG_FILE: settings,
  });
  expect(created.code, created.stderr).toBe(0);
  // Something in the audit log, the transfer file and the backup.
  expect((await rrsInProcess(['demo', 'load'], { CONFIG_FILE: settings })).code).toBe(0);
  transferFile = file('transfer.jsonl');
  const exported = await rrsInProcess(['export', transferFile], { CONFIG_FILE: settings });
  expect(exported.code, exported.stderr).toBe(0);
  backupFile = file(provider === 'sqlite' ? 'backup.db' : 'backup.dump');
  restoreTarget = await createEmptyDatabase('contract_restore');
  // Made by the command under test: without it, restore's row fails as backup's does.
  await rrsInProcess(['backup', backupFile], { CONFIG_FILE: settings });
});

afterAll(async () => {
  if (restoreTarget) await dropTestDatabase(restoreTarget);
});

describe.each(TABLE.map((row) => [row.label ?? row.name, row] as const))('rrs %s', (_name, row) => {
  it('prints JSON with --json, before the command or after it', async () => {
    for (const placement of ['before', 'after'] as const) {
      const args = await row.args();
      const env = row.env?.();
      const result =
        placement === 'before'
          ? await rrsInProcess(['--json', ...row.name.split(' '), ...args], { CONFIG_FILE: settings, ...env })
          : await run(row, [...args, '--json'], env);
      expect(result.code, `${placement}: ${result.stderr}`).toBe(0);
      expect(() => parsed(result, row), `${placement}: ${result.stdout}`).not.toThrow();
    }
  });

  it('refuses an unusable database with exit code 3 and one rrs: line naming it', async () => {
    for (const { label, url } of unusableDatabases()) {
      const result = await run(row, await row.args(), { DATABASE_URL: url });
      if (row.reports) {
        // config check's own contract: the problem among its checks, exit code 1.
        expect(result.code, label).toBe(1);
        expect(result.stdout, label).toMatch(/^✗ database: .+$/m);
        // One line per check, then the count.
        for (const line of result.stdout.trimEnd().split('\n').slice(0, -1)) {
          expect(line, label).toMatch(/^[✓•✗] /);
        }
        continue;
      }
      expect(result, label).toMatchObject({ code: 3, stdout: '' });
      expect(result.stderr, label).toMatch(/^rrs: [^\n]+\n$/);
      expect(result.stderr, label).toContain(redact(url).replace(/^file:/, ''));
      expect(result.stderr, label).not.toContain('secret');
    }
  });

  it('refuses an invalid configuration with exit code 3, one rrs: line then its problems', async () => {
    const invalid = join(folder, `${unique()}-invalid.json`);
    writeFileSync(invalid, JSON.stringify({ baseId: 'a b', listeMax: -1 }));
    const result = await rrsInProcess([...row.name.split(' '), ...(await row.args())], {
      CONFIG_FILE: invalid,
    });
    if (row.reports) {
      expect(result.code).toBe(1);
      expect(result.stdout).toMatch(/^✗ configuration: baseId: /m);
      return;
    }
    expect(result).toMatchObject({ code: 3, stdout: '' });
    const [first, ...details] = result.stderr.trimEnd().split('\n');
    expect(first).toBe('rrs: Invalid configuration:');
    expect(details.length).toBeGreaterThan(0);
    for (const detail of details) expect(detail).toMatch(/^ {2}- \S/);
  });

  it('answers an unknown option with exit code 2, one rrs: line and its own help', async () => {
    const result = await run(row, [...(await row.args()), '--no-such-option']);
    expect(result).toMatchObject({ code: 2, stdout: '' });
    const [first, ...help] = result.stderr.split('\n');
    expect(first).toBe("rrs: unknown option '--no-such-option'");
    expect(help.join('\n')).toContain(`Usage: rrs ${row.name} `);
    expect(help.join('\n')).toContain('--json');
  });
});
