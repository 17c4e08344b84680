/**
 * The development login never reaches production: the real service (`node dist/server.js`) refuses
 * to start with it when NODE_ENV=production, in one line, and serves it otherwise.
 */
import { describe, expect, it } from 'vitest';
import { configFile, startServer } from '../support/server-process.ts';

const settings = { baseId: 'dev', baseUrl: 'http://dev.test/', listeMax: 100 };

describe('devLogin and NODE_ENV', () => {
  it('refuses to start in production with devLogin on (file or DEV_LOGIN), one line, exit code 1', async () => {
    for (const env of <Record<string, string>[]>[
      { CONFIG_FILE: configFile({ ...settings, devLogin: true }) },
      { CONFIG_FILE: configFile(settings), DEV_LOGIN: '1' },
    ]) {
      const server = startServer({
        ...env,
        NODE_ENV: 'production',
        DATABASE_URL: 'file:/nonexistent/never.db',
      });
      expect(await server.exited).toBe(1);
      expect(server.output().stderr).toBe(
        'devLogin logs anyone in without a lab: turn it off (configuration "devLogin", or DEV_LOGIN) when NODE_ENV=production\n',
      );
    }
  });

  it('serves it in development', async () => {
    const server = startServer({
      CONFIG_FILE: configFile(settings),
      DEV_LOGIN: 'true',
      NODE_ENV: 'development',
      DATABASE_URL: process.env.DATABASE_URL as string,
    });
    const port = await server.serving;
    const response = await fetch(`http://127.0.0.1:${port}/api/dev/connexion`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ pid: 'dev/process', roles: ['formateur'] }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('set-cookie')).toMatch(/^connect\.sid=/);
    expect(await server.stop()).toBe(0);
  });

  it('says at start that it is on, and for whom: callers on this machine, or any when remote is allowed', async () => {
    const start = (env: Record<string, string>) =>
      startServer({
        CONFIG_FILE: configFile(settings),
        NODE_ENV: 'development',
        DATABASE_URL: process.env.DATABASE_URL as string,
        ...env,
      });
    const announced = (server: ReturnType<typeof start>) =>
      server.waitForLog((line) => line.devLogin !== undefined, 10_000);

    const loopback = start({ DEV_LOGIN: '1' });
    await loopback.serving;
    const local = await announced(loopback);
    expect(local).toMatchObject({ level: 40, devLogin: 'loopback' });
    expect(local.msg).toMatch(/development login on: anyone on this machine .*as any person/);
    expect(local.msg).toContain('/api/dev/connexion');
    expect(await loopback.stop()).toBe(0);

    const remote = start({ DEV_LOGIN: '1', DEV_LOGIN_ALLOW_REMOTE: '1' });
    await remote.serving;
    const anywhere = await announced(remote);
    expect(anywhere).toMatchObject({ level: 40, devLogin: 'remote' });
    expect(anywhere.msg).toMatch(/development login on: anyone who reaches the service .*as any person/);
    expect(await remote.stop()).toBe(0);

    // Off, nothing is said: the line is there only when someone may log in that way.
    const off = start({});
    await off.serving;
    expect(await off.stop()).toBe(0);
    expect(off.logLines().filter((line) => line.devLogin !== undefined)).toEqual([]);
  });
});
