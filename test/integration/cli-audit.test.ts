/**
 * The `audit` command, run in this process as `rrs audit` would run: it opens the database of the
 * configuration (DATABASE_URL) itself and prints the log.
 */
import { beforeAll, expect, it } from 'vitest';
import { tokenHeaders } from '../support/actors.ts';
import { startApp } from '../support/app.ts';
import { rrsInProcess } from '../support/cli.ts';
import { createResource } from '../support/resources.ts';

let oid: number;

beforeAll(async () => {
  const app = await startApp();
  oid = await createResource(app, { titre: 'Pour la CLI' });
  await app.client().post('/api/ressource?merge=1').set(tokenHeaders).send({ oid, titre: 'Modifiée' });
  await app.close();
});

/** The lines `rrs audit <args>` prints; rejects with its stderr when it fails. */
async function run(...args: string[]): Promise<string[]> {
  const result = await rrsInProcess(['audit', ...args]);
  if (result.code !== 0) throw new Error(`exit ${result.code}: ${result.stderr}`);
  return result.stdout.split('\n').filter(Boolean);
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

  await expect(run('--entity', 'resource')).rejects.toThrow(/^exit 2: .*--entity: expected resource:<oid>/);
  await expect(run('--since', 'hier')).rejects.toThrow(/^exit 2: .*not a date/);
});
