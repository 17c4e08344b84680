/**
 * The `audit` command, run through a commander program built here, as the CLI entry point would:
 * it opens the database of the configuration (DATABASE_URL) itself and prints the log.
 */
import { Command, CommanderError } from 'commander';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { registerAuditCommands } from '../../src/cli/commands/audit.ts';
import { closeDatabase, openDatabase } from '../../src/db/client.ts';
import { tokenHeaders } from '../support/actors.ts';
import { startApp } from '../support/app.ts';
import { createResource } from '../support/resources.ts';

let oid: number;
// Vite sets BASE_URL=/ for its own use; the service would read it as its baseUrl.
const viteBaseUrl = process.env.BASE_URL;

beforeAll(async () => {
  const app = await startApp();
  oid = await createResource(app, { titre: 'Pour la CLI' });
  await app.client().post('/api/ressource?merge=1').set(tokenHeaders).send({ oid, titre: 'Modifiée' });
  await app.close();
  // The command opens (and closes) the database itself.
  await closeDatabase();
  delete process.env.BASE_URL;
});

afterAll(async () => {
  process.env.BASE_URL = viteBaseUrl;
  // For the test set-up, which closes it.
  await openDatabase(process.env.DATABASE_URL!, { announceStatements: true });
});

async function run(...args: string[]): Promise<string[]> {
  const lines: string[] = [];
  const program = new Command().exitOverride().configureOutput({ writeErr: () => {}, writeOut: () => {} });
  registerAuditCommands(program, { write: (text) => lines.push(...text.split('\n').filter(Boolean)) });
  await program.parseAsync(['node', 'rrs', 'audit', ...args]);
  return lines;
}

it('prints the entries of one resource, newest first, as text or JSON lines, and refuses bad options', async () => {
  const text = await run('--entity', `resource:${oid}`);
  expect(text).toHaveLength(2);
  expect(text[0]).toMatch(new RegExp(`^\\d{4}-\\d\\d-\\d\\dT\\S+Z  token  updated resource ${oid} titre$`));
  expect(text[1]).toMatch(new RegExp(`token  created resource ${oid}$`));

  const json = (await run('--entity', `resource:${oid}`, '--action', 'updated', '--json')).map((line) =>
    JSON.parse(line),
  );
  expect(json).toEqual([
    expect.objectContaining({
      action: 'updated',
      entityId: oid,
      changes: { titre: { before: 'Pour la CLI', after: 'Modifiée' } },
    }),
  ]);
  expect(await run('--entity', `resource:${oid}`, '--limit', '1')).toHaveLength(1);
  expect(await run('--kind', 'group')).toEqual([]);

  await expect(run('--entity', 'resource')).rejects.toThrow(CommanderError);
  await expect(run('--since', 'hier')).rejects.toThrow(/not a date/);
});
