/**
 * GraphiQL in a real browser (Debian's Chromium, driven by playwright-core) under its strict
 * Content-Security-Policy: the page loads without a single violation or script error, runs an
 * operation and shows its result, and refuses to be framed by another site.
 *
 * Needs Chromium (`apt-get install chromium`; `.ci/run` installs it). Without it the file is
 * skipped with a message, unless REQUIRE_BROWSER=1 (CI), where a missing browser fails.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../support/app.ts';

const executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const available = existsSync(executablePath);
if (!available && process.env.REQUIRE_BROWSER === '1') {
  throw new Error(`No browser at ${executablePath}: install Debian's chromium (apt-get install chromium)`);
}
if (!available) console.warn(`browser tests skipped: no ${executablePath} (apt-get install chromium)`);

let app: TestApp;
let server: Server;
let other: Server;
let browser: Browser;
let base: string;

const listen = async (target: Server) => {
  await new Promise<void>((done) => target.listen(0, '127.0.0.1', done));
  return `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
};

describe.runIf(available)('GraphiQL in Chromium', () => {
  beforeAll(async () => {
    app = await startApp();
    server = createServer(app.app);
    base = await listen(server);
    // Another site (another origin) that tries to frame the page.
    other = createServer((_req, res) => {
      res.setHeader('Content-Type', 'text/html');
      res.end(`<iframe id="framed" src="${base}/graphql"></iframe>`);
    });
    browser = await chromium.launch({
      executablePath,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((done) => server?.close(done));
    await new Promise((done) => other?.close(done));
    await app?.close();
  });

  it('loads without any CSP violation, runs an operation and shows its result', async () => {
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('console', (message) => {
      if (/Content.Security.Policy|Refused to/i.test(message.text())) problems.push(message.text());
    });
    await page.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (event) => {
        console.error(`Refused to load: CSP ${event.violatedDirective} blocked ${event.blockedURI}`);
      });
    });
    // GraphiQL's own introspection query must pass the introspection limits.
    const introspection = page.waitForResponse(
      (response) =>
        response.url().endsWith('/graphql') && /__schema/.test(response.request().postData() ?? ''),
    );
    await page.goto(`${base}/graphql?query=${encodeURIComponent('{ viewer { kind } }')}`);
    const schema = await (await introspection).json();
    expect(schema.errors).toBeUndefined();
    expect(schema.data.__schema.queryType.name).toBe('Query');
    await page.locator('.graphiql-execute-button').click({ timeout: 30_000 });
    await expect
      .poll(() => page.locator('.graphiql-response').innerText(), { timeout: 30_000 })
      .toContain('anonymous');
    mkdirSync('data/test-artifacts', { recursive: true });
    await page.screenshot({
      path: `data/test-artifacts/graphiql-${process.env.TEST_DATABASE ?? 'sqlite'}.png`,
    });
    expect(problems).toEqual([]);
    await page.close();
  }, 90_000);

  it('cannot be framed by another site', async () => {
    const otherBase = await listen(other);
    const page = await browser.newPage();
    const refused: string[] = [];
    page.on('console', (message) => {
      if (/frame-ancestors|X-Frame-Options/i.test(message.text())) refused.push(message.text());
    });
    await page.goto(otherBase);
    await expect.poll(() => refused.length, { timeout: 15_000 }).toBeGreaterThan(0);
    const framed = page.frames().find((frame) => frame !== page.mainFrame());
    expect(
      await framed
        ?.locator('.graphiql-container')
        .count()
        .catch(() => 0),
    ).toBe(0);
    await page.close();
  }, 60_000);
});
