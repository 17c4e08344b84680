/**
 * Swagger UI at /api/docs in a real browser (Debian's Chromium, playwright-core): served from the
 * service under its own Content-Security-Policy, it loads without a violation or a script error
 * and renders every route of the OpenAPI document.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../support/app.ts';
import { browserAvailable, launchChromium, screenshotPath, watchProblems } from '../support/chromium.ts';

let app: TestApp;
let server: Server;
let browser: Browser;
let base: string;

describe.runIf(browserAvailable)('Swagger UI in Chromium', () => {
  beforeAll(async () => {
    app = await startApp();
    server = createServer(app.app);
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((done) => server?.close(done));
    await app?.close();
  });

  it('renders every documented route, without a CSP violation or a script error', async () => {
    const { body: document } = await app.client().get('/api/openapi.json');
    const operations = Object.values(document.paths as Record<string, object>).flatMap((item) =>
      Object.keys(item),
    ).length;
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    const problems = await watchProblems(page);
    const requested: string[] = [];
    page.on('request', (request) => requested.push(request.url()));
    await page.goto(`${base}/api/docs`);
    const rendered = page.locator('.opblock');
    await expect.poll(() => rendered.count(), { timeout: 30_000 }).toBe(operations);
    expect(await page.locator('.opblock-summary-path').first().isVisible()).toBe(true);
    expect(await page.locator('.info .title').innerText()).toContain('Resource Repository');
    await page.screenshot({ path: screenshotPath('api-docs') });
    // One route opened: its parameters and responses are shown.
    await page
      .locator('.opblock', { hasText: '/api/ressource/{oid}' })
      .first()
      .locator('.opblock-summary')
      .click();
    await page.locator('.responses-table').first().waitFor({ state: 'visible', timeout: 10_000 });
    await page.screenshot({ path: screenshotPath('api-docs-route') });
    // Nothing was loaded from anywhere else.
    expect(requested.filter((url) => !url.startsWith(base) && !url.startsWith('data:'))).toEqual([]);
    expect(problems).toEqual([]);
    await page.close();
  }, 90_000);
});
