/**
 * The command-line tool as an operator runs it: a real process (`node dist/cli/main.js`, what the
 * installed `rrs` command runs, compiled once per test run by the global set-up) on the test file's database, checked through its output, its exit code, the
 * database, and a service instance on the same database (tokens issued and revoked by the tool
 * are honoured at once).
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { db } from '../../src/db/client.ts';
import { startApp, type TestApp } from '../support/app.ts';
import { type FakePeer, startFakePeer } from '../support/fake-peer.ts';
import { scratchDir } from '../support/scratch.ts';
import { configFile } from '../support/server-process.ts';

// A run of the tool costs most of a second (loading the service's modules), several on a busy machine.
vi.setConfig({ testTimeout: 120_000 });

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

let app: TestApp;
let peer: FakePeer;
let config: Record<string, unknown>;

beforeAll(async () => {
  peer = await startFakePeer('cliPeer');
  config = {
    baseId: 'cli',
    baseUrl: 'http://cli.test/',
    listeMax: 100,
    peers: [{ baseId: peer.baseId, baseUrl: peer.baseUrl }],
  };
  // No configured token: whatever works was issued by the tool.
  app = await startApp({ ...config, apiTokens: [] });
});

afterAll(async () => {
  await app.close();
  await peer.close();
});

/**
 * Words of French messages (the tool's messages are English; the data it prints may be French, hence
 * words that data such as the demo's titles does not use).
 */
const FRENCH =
  /(?<!\p{L})(inconnue?s?|aucune?|rien|déjà|ligne|ignorée?s?|avertissement|terminé|essai|réessayez|doit|être|fichier|entre|connus|remise|il faut|n’a|été|ou)(?!\p{L})/iu;

/** Runs `rrs <args>` with the test database and `settings` as its configuration file. */
async function rrs(
  args: string[],
  options: { settings?: object; env?: Record<string, string> } = {},
): Promise<Run> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  // Vite's BASE_URL=/ would override the configuration's baseUrl.
  for (const key of ['BASE_URL', 'BASE_ID', 'API_TOKENS', 'SESSION_SECRET', 'PORT']) delete env[key];
  Object.assign(env, {
    CONFIG_FILE: configFile(options.settings ?? config),
    DATABASE_URL: process.env.DATABASE_URL,
    LOG_LEVEL: 'silent',
    ...options.env,
  });
  const result = await new Promise<Run>((resolve) => {
    execFile(
      process.execPath,
      ['dist/cli/main.js', ...args],
      { env, timeout: 30_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
  // Every run of every test: whatever the tool says is said in English.
  expect(`${result.stdout}\n${result.stderr}`, `rrs ${args.join(' ')}`).not.toMatch(FRENCH);
  return result;
}

const json = (run: Run) => {
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout);
};
const unique = () => `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 7)}`;

describe('rrs as a clone runs it', () => {
  it('is a command of the project: `npx rrs` runs the built tool as it is, installing nothing', async () => {
    // An empty npm cache, offline: installing the clone into npx's cache (and running its
    // postinstall again) would fail here, as would fetching anything from the registry.
    const cache = scratchDir('npx-cache');
    const run = await new Promise<Run>((resolve) => {
      execFile(
        'npx',
        ['--offline', 'rrs', '--help'],
        { timeout: 60_000, env: { ...process.env, npm_config_cache: cache } },
        (error, stdout, stderr) => {
          const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
          resolve({ code, stdout, stderr });
        },
      );
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^Usage: rrs /);
    expect(run.stderr).toBe('');
    expect(readdirSync(cache)).not.toContain('_npx');
  });

  it('tells people commands they can type: `npx rrs …`', async () => {
    const run = await rrs(['token', 'list']);
    expect(run.stdout).toMatch(/^No issued token \(npx rrs token issue --name <label>\)\.$|^ +\d+ /m);
    const issued = await rrs(['token', 'issue', '--name', `hint-${unique()}`]);
    expect(issued.stdout).toContain('Revoke it with: npx rrs token revoke hint-');
  });
});

describe('rrs person', () => {
  it('creates an administrator through the persons service, shows it, refuses a second create and unknown roles', async () => {
    const pid = `local/${unique()}`;
    const created = await rrs([
      'person',
      'create',
      '--pid',
      pid,
      '--nom',
      'Lovelace',
      '--prenom',
      'Ada',
      '--role',
      'admin',
    ]);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toContain(`created ${pid}  Ada Lovelace`);
    // Who granted each role reads as such, not as a second role.
    const shownText = await rrs(['person', 'show', pid]);
    expect(shownText.stdout).toMatch(/roles: +admin \(granted by an administrator\)/);
    const shown = json(await rrs(['--json', 'person', 'show', pid]));
    expect(shown).toMatchObject({
      pid,
      nom: 'Lovelace',
      prenom: 'Ada',
      roles: [{ role: 'admin', source: 'admin' }],
    });
    expect(shown.permissions).toContain('managePeerNotifications');

    const again = await rrs(['person', 'create', '--pid', pid, '--nom', 'X', '--prenom', 'Y']);
    expect(again).toMatchObject({ code: 1, stdout: '' });
    expect(again.stderr).toBe(`rrs: A person with pid ${pid} exists already (use: npx rrs person update)\n`);

    const unknownRole = await rrs(['person', 'update', '--pid', pid, '--role', 'formateur', 'pape']);
    // The roles the configuration knows, so that the next try can be right.
    expect(unknownRole).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(
        /^rrs: Unknown role pape \(roles of the configuration: [^)]*\badmin\b[^)]*\bformateur\b[^)]*\)\n$/,
      ),
    });
    const wrongEmail = await rrs(['person', 'update', '--pid', pid, '--email', 'nowhere']);
    expect(wrongEmail).toMatchObject({ code: 1, stderr: 'rrs: email: not an e-mail address\n' });
    const updated = json(await rrs(['--json', 'person', 'update', '--pid', pid, '--role', 'formateur']));
    expect(updated).toMatchObject({ nom: 'Lovelace', roles: [{ role: 'formateur', source: 'admin' }] });
  });

  it('shows roles the development login granted as such, granting nothing while it is off', async () => {
    const development = await startApp({ ...config, apiTokens: [], devLogin: true });
    const pid = `dev/${unique()}`;
    try {
      const logged = await development
        .client()
        .post('/api/dev/connexion')
        .send({ pid, roles: ['admin'] });
      expect(logged.status, JSON.stringify(logged.body)).toBe(200);
    } finally {
      await development.close();
    }
    const whileOff = await rrs(['person', 'show', pid]);
    expect(whileOff.stdout).toMatch(
      /roles: +admin \(granted by the development login, which is off: grants nothing\)\n +permissions: +—\n/,
    );
    expect(json(await rrs(['--json', 'person', 'show', pid]))).toMatchObject({
      roles: [{ role: 'admin', source: 'devLogin', active: false }],
      permissions: [],
    });
    const whileOn = await rrs(['person', 'show', pid], { settings: { ...config, devLogin: true } });
    expect(whileOn.stdout).toMatch(
      /roles: +admin \(granted by the development login\)\n +permissions: +allRights, /,
    );
  });

  it('answers wrong usage with exit code 2 and the help of the command', async () => {
    const run = await rrs(['person', 'create', '--nom', 'Sans pid']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("required option '--pid <pid>' not specified");
    expect(run.stderr).toContain('Usage: rrs person create');
  });
});

describe('rrs token', () => {
  it('issues a token the service honours, lists it without its secret, and revokes it at once', async () => {
    const name = `ops-${unique()}`;
    const issued = json(await rrs(['--json', 'token', 'issue', '--name', name, '--expires', '30']));
    expect(issued).toMatchObject({ name, status: 'active' });
    const addPerson = () =>
      app
        .client()
        .post('/api/personne/add')
        .set('X-ApiToken', issued.token)
        .send({ origine: 'cli', idOrigine: unique(), nom: 'N', prenom: 'P' });
    expect((await addPerson()).status).toBe(200);

    const listed = await rrs(['token', 'list']);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(new RegExp(`${issued.id}\\s+${name}\\s+active`));
    const listedJson = await rrs(['--json', 'token', 'list']);
    expect(listedJson.stdout).not.toContain(issued.token.slice(4));
    expect(listed.stdout).not.toContain(issued.token.slice(4));

    const revoked = await rrs(['token', 'revoke', name]);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.stdout).toContain('revoked');
    expect((await addPerson()).status).toBe(401);
    expect(await rrs(['token', 'revoke', `nothing-${unique()}`])).toMatchObject({ code: 1 });
    expect(await rrs(['token', 'issue', '--name', `x-${unique()}`, '--expires', 'soon'])).toMatchObject({
      code: 2,
    });
  });
});

describe('rrs demo load', () => {
  it('loads a coherent data set through the services, and a second load changes nothing', async () => {
    const first = json(await rrs(['--json', 'demo', 'load']));
    expect(first.persons).toEqual(['demo/admin', 'demo/prof', 'demo/eleve1', 'demo/eleve2']);
    expect(first.resources).toHaveLength(5);
    const counts = async () => ({
      persons: await db.person.count({ where: { pid: { startsWith: 'demo/' } } }),
      groups: await db.group.count({ where: { nom: { startsWith: 'Démo' } } }),
      resources: await db.resource.count({ where: { origine: 'demo' } }),
      members: await db.groupMember.count({ where: { group: { nom: 'Démo 6e A' } } }),
      archives: await db.resourceArchive.count(),
    });
    const before = await counts();
    expect(before).toMatchObject({ persons: 4, groups: 2, resources: 5, members: 3 });
    const second = json(await rrs(['--json', 'demo', 'load']));
    expect(second.resources.map((r: { created: boolean }) => r.created)).toEqual([
      false,
      false,
      false,
      false,
      false,
    ]);
    expect(second.resources.map((r: { rid: string }) => r.rid)).toEqual(
      first.resources.map((r: { rid: string }) => r.rid),
    );
    expect(await counts()).toEqual(before);

    // The rules hold: the public resource is public, the draft is its author's only, the tree points at the others.
    const [publicRid, , groupRid, privateRid, treeRid] = first.resources.map((r: { rid: string }) => r.rid);
    const read = (rid: string) => app.client().get(`/api/public/${rid.split('/')[1]}`);
    expect((await read(publicRid)).status).toBe(200);
    expect((await read(privateRid)).status).not.toBe(200);
    expect((await read(groupRid)).status).not.toBe(200);
    const tree = await read(treeRid);
    expect(JSON.stringify(tree.body)).toContain(publicRid);
    const admin = await db.person.findUniqueOrThrow({
      where: { pid: 'demo/admin' },
      include: { roles: true },
    });
    expect(admin.roles.map((role) => role.role)).toEqual(['admin']);
  });
});

describe('rrs notifications', () => {
  it('lists failed notifications and retries them for the worker', async () => {
    const id = randomUUID();
    await db.outboxMessage.create({
      data: {
        id,
        kind: 'registerListener',
        peerBaseId: peer.baseId,
        payload: { action: 'add', baseId: 'cli', rids: [`${peer.baseId}/7`] },
        status: 'failed',
        attempts: 12,
        lastError: 'HTTP 500 : panne',
      },
    });
    const listed = await rrs(['notifications', 'list', '--status', 'failed']);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(`${id}  failed  registerListener → ${peer.baseId}  (${peer.baseId}/7)`);
    expect(listed.stdout).toContain('last error: HTTP 500 : panne');
    expect(await rrs(['notifications', 'retry'])).toMatchObject({ code: 2 });
    expect(await rrs(['notifications', 'list', '--status', 'lost'])).toMatchObject({ code: 2 });
    const retried = json(await rrs(['--json', 'notifications', 'retry', '--all-failed']));
    expect(retried.count).toBeGreaterThanOrEqual(1);
    expect(await db.outboxMessage.findUniqueOrThrow({ where: { id } })).toMatchObject({
      status: 'pending',
      attempts: 0,
    });
    const again = await rrs(['notifications', 'retry', id]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/^due now: /);
    const unknown = randomUUID();
    expect(await rrs(['notifications', 'retry', unknown])).toMatchObject({
      code: 1,
      stderr: `rrs: No notification ${unknown}\n`,
    });
    await db.outboxMessage.update({ where: { id }, data: { status: 'delivered' } });
    expect(await rrs(['notifications', 'retry', id])).toMatchObject({
      code: 1,
      stderr: `rrs: Notification ${id} was delivered already\n`,
    });
    expect(await rrs(['notifications', 'list', '--limit', '0'])).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/^rrs: --limit: between 1 and \d+\n$/),
    });
  });
});

describe('rrs on a database it cannot use', () => {
  it('ends with exit code 3 and one rrs: line, logs at their default level included', async () => {
    const folder = scratchDir('cli-unusable');
    const unusable =
      process.env.TEST_DATABASE === 'postgresql'
        ? 'postgresql://postgres@127.0.0.1:1/rrs'
        : `file:${join(folder, 'garbage.db')}`;
    writeFileSync(join(folder, 'garbage.db'), 'no database here\n'.repeat(50));
    const file = join(folder, 'transfer.jsonl');
    writeFileSync(file, '');
    // The commands that once printed a stack or exited 1, beside one that never did; in parallel.
    const runs = await Promise.all(
      [['audit'], ['import', file], ['export', file], ['token', 'list']].map(async (args) => ({
        args,
        run: await rrs(args, { env: { DATABASE_URL: unusable, LOG_LEVEL: 'warn' } }),
      })),
    );
    for (const { args, run } of runs) {
      expect(run, args.join(' ')).toMatchObject({ code: 3, stdout: '' });
      expect(run.stderr, args.join(' ')).toMatch(/^rrs: [^\n]+\n$/);
    }
  });
});

describe('rrs export and import', () => {
  it('print each progress line once: a short phase gives one line, its final count', async () => {
    await rrs(['demo', 'load']);
    const file = join(scratchDir('cli-transfer'), 'export.jsonl');
    const exported = await rrs(['export', file]);
    expect(exported.code, exported.stderr).toBe(0);
    const progress = (run: Run) => run.stdout.split('\n').filter((line) => /^[a-z ]+: \d+/.test(line));
    const resources = await db.resource.count();
    // A phase longer than the display's interval (a loaded machine) may show counts on the way:
    // what must never happen is a line shown twice, and the last one is the final count.
    const shown = progress(exported);
    expect(shown).toEqual([...new Set(shown)]);
    expect(shown.at(-1)).toMatch(new RegExp(`^resources: ${resources}/${resources} `));

    const imported = await rrs(['import', file]);
    expect(imported.code, imported.stderr).toBe(0);
    const lines = progress(imported);
    expect(lines).toEqual([...new Set(lines)]);
    const phases = lines.map((line) => line.split(':')[0]);
    expect([...new Set(phases)]).toEqual(['persons and groups', 'resources']);
    expect(imported.stdout).toContain('Nothing to change: the database holds everything the file describes.');
  });
});

describe('rrs config check', () => {
  it('lists every validation problem readably, with exit code 1', async () => {
    const run = await rrs(['config', 'check'], {
      settings: { baseId: 'a/b', baseUrl: 'http://no-slash', apiTokens: ['short'] },
    });
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('✗ configuration: baseId: must not contain "/" or spaces');
    expect(run.stdout).toContain('✗ configuration: baseUrl: must end with "/"');
    expect(run.stdout).toContain('✗ configuration: listeMax:');
    expect(run.stdout).toContain('✗ configuration: apiTokens.0: an API token needs at least 16 characters');
    expect(run.stdout).toMatch(/4 problems found\.\n$/);
  });

  it('names an environment variable given a wrong value, masking a secret', async () => {
    const run = await rrs(['config', 'check'], { env: { PORT: 'abc', METRICS_TOKEN: 'abc' } });
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('✗ configuration: PORT=abc: expected a port number 0-65535');
    expect(run.stdout).toContain(
      '✗ configuration: METRICS_TOKEN=*** (3 characters): expected a bearer token of at least 16 characters',
    );
    expect(run.stdout).toMatch(/2 problems found\.\n$/);
  });

  it('reports unreachable labs, a missing session secret and OAI-PMH contact in production and no usable token', async () => {
    const run = await rrs(['--json', 'config', 'check'], {
      settings: { ...config, labs: [{ baseId: 'gone', baseUrl: 'http://127.0.0.1:9/' }] },
      env: { NODE_ENV: 'production' },
    });
    expect(run.code).toBe(1);
    const { ok, checks } = JSON.parse(run.stdout);
    expect(ok).toBe(false);
    const bySubject = Object.fromEntries(checks.map((c: { subject: string }) => [c.subject, c]));
    expect(bySubject.database).toMatchObject({ ok: true });
    expect(bySubject['lab gone']).toMatchObject({
      ok: false,
      message: expect.stringContaining('unreachable'),
    });
    expect(bySubject[`peer ${peer.baseId}`]).toMatchObject({ ok: true });
    expect(bySubject.sessionSecret).toMatchObject({ ok: false });
    // cli.test is a domain name, so only the OAI-PMH contact is missing.
    expect(bySubject['oai.adminEmail']).toMatchObject({
      ok: false,
      message: expect.stringContaining('OAI_ADMIN_EMAIL'),
    });
    expect(bySubject['oai.repositoryIdentifier']).toBeUndefined();
    // baseUrl is configured here: nothing to say about it.
    expect(bySubject.baseUrl).toBeUndefined();
  });

  it('reports a baseUrl left to follow the listening address in production, and not elsewhere', async () => {
    const { baseUrl: _configured, ...unset } = config;
    const production = await rrs(['--json', 'config', 'check'], {
      settings: unset,
      env: { NODE_ENV: 'production', PORT: '8123' },
    });
    const checks = JSON.parse(production.stdout).checks as {
      subject: string;
      ok: boolean;
      message: string;
    }[];
    expect(checks.find((c) => c.subject === 'baseUrl')).toMatchObject({
      ok: false,
      message: expect.stringContaining('http://localhost:8123/'),
    });
    const development = await rrs(['--json', 'config', 'check'], { settings: unset, env: { PORT: '8123' } });
    const quiet = JSON.parse(development.stdout).checks as { subject: string }[];
    expect(quiet.find((c) => c.subject === 'baseUrl')).toBeUndefined();
  });

  it('notes the development login, and whether it answers other machines', async () => {
    const local = await rrs(['config', 'check'], { settings: { ...config, devLogin: true } });
    expect(local.stdout).toContain('• devLogin: on, for callers on this machine only');
    const open = await rrs(['config', 'check'], {
      settings: { ...config, devLogin: true },
      env: { DEV_LOGIN_ALLOW_REMOTE: '1' },
    });
    expect(open.stdout).toContain('• devLogin: on, for every address (devLoginAllowRemote)');
  });

  it('passes a sound configuration, and the other commands refuse an invalid one with exit code 3', async () => {
    const sound = await rrs(['config', 'check'], {
      settings: { ...config, apiTokens: ['a-configured-token-0123456789'] },
    });
    expect(sound.code, sound.stdout).toBe(0);
    expect(sound.stdout).toMatch(/No problem found\.\n$/);
    const refused = await rrs(['token', 'list'], { settings: { baseId: 'x' } });
    expect(refused.code).toBe(3);
    // baseUrl may be left out (it follows the listening address); listeMax may not.
    expect(refused.stderr).toMatch(/^rrs: Invalid configuration:\n {2}- listeMax: /);
  });
});
