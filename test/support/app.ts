/** A service instance on the test file's database, driven in process through supertest. */
import request from 'supertest';
import { type AppOptions, createApp } from '../../src/app.ts';
import { type Config, type ConfigInput, parseConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logging/logger.ts';

export const API_TOKEN = 'test-api-token-0123456789';

export function testConfig(overrides: Partial<ConfigInput> = {}): Config {
  return parseConfig({
    baseId: 'repo',
    baseUrl: 'http://repo.test/',
    listeMax: 1000,
    apiTokens: [API_TOKEN],
    sessionSecret: 'test-session-secret-0123456789',
    databaseUrl: process.env.DATABASE_URL,
    logLevel: 'silent',
    ...overrides,
    // Tests stop their instances themselves; no background sweep left running.
    session: { sweepIntervalSeconds: 0, ...overrides.session },
    // Long enough for a fake lab on loopback while the whole suite loads both cores (500 ms gave a
    // 504 to a login in CI now and then); the tests of a lab that never answers wait this long.
    http: { labTimeoutMs: 2000, ...overrides.http },
  });
}

export async function startApp(overrides: Partial<ConfigInput> = {}, options: AppOptions = {}) {
  const config = testConfig(overrides);
  const instance = await createApp(config, {
    logger: createLogger(process.env.TEST_LOG_LEVEL ?? 'silent'),
    ...options,
  });
  return {
    ...instance,
    config,
    /** A client without cookies. */
    client: () => request(instance.app),
    /** A client that keeps cookies between calls, like a browser. */
    browser: () => request.agent(instance.app),
  };
}

export type TestApp = Awaited<ReturnType<typeof startApp>>;
