/**
 * GraphiQL in a real browser (Debian's Chromium, driven by playwright-core) under its strict
 * Content-Security-Policy: the page loads without a single violation or script error, runs an
 * operation and shows its result, switches example tabs on a person's first click, completes the
 * fields of typed inputs as one types, and refuses to be framed by another site.
 *
 * Needs Chromium (`apt-get install chromium`; `.ci/run` installs it). Without it the file is
 * skipped with a message, unless REQUIRE_BROWSER=1 (CI), where a missing browser fails.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GRAPHIQL_EXAMPLES } from '../../src/gateway/graphiql-examples.ts';
import { API_TOKEN, startApp, type TestApp } from '../support/app.ts';
import { browserAvailable, launchChromium, screenshotPath, watchProblems } from '../support/chromium.ts';
import { graphiqlTabs, tabOperation } from '../support/graphiql-tabs.ts';

let app: TestApp;
let server: Server;
let other: Server;
let browser: Browser;
let base: string;

const listen = async (target: Server) => {
  await new Promise<void>((done) => target.listen(0, '127.0.0.1', done));
  return `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
};

describe.runIf(browserAvailable)('GraphiQL in Chromium', () => {
  beforeAll(async () => {
    app = await startApp();
    server = createServer(app.app);
    base = await listen(server);
    // Another site (another origin) that tries to frame the page.
    other = createServer((_req, res) => {
      res.setHeader('Content-Type', 'text/html');
      res.end(`<iframe id="framed" src="${base}/graphql"></iframe>`);
    });
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((done) => server?.close(done));
    await new Promise((done) => other?.close(done));
    await app?.close();
  });

  it('loads without any CSP violation, runs an operation and shows its result', async () => {
    const page = await browser.newPage();
    const problems = await watchProblems(page);
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
    await page.screenshot({ path: screenshotPath('graphiql-query') });
    expect(problems).toEqual([]);
    await page.close();
  }, 90_000);

  it('opens on example tabs from the named operations; one runs and shows its result', async () => {
    const saved = await app
      .client()
      .post('/api/ressource')
      .set('X-ApiToken', API_TOKEN)
      .send({ titre: 'Exemple pour GraphiQL', type: 'url', categories: [7], publie: true, restriction: 0 });
    expect(saved.status).toBe(200);
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const problems = await watchProblems(page);
    await page.goto(`${base}/graphql`);
    const tabs = page.locator('.graphiql-tab');
    await expect.poll(() => tabs.count(), { timeout: 30_000 }).toBe(GRAPHIQL_EXAMPLES.length);
    const names = await tabs.allInnerTexts();
    for (const { operation } of GRAPHIQL_EXAMPLES) {
      expect(names.some((name) => name.includes(operation))).toBe(true);
    }
    const example = page.getByRole('tab', { name: 'SearchResources' });
    await example.getByRole('button', { name: 'SearchResources' }).click();
    await expect.poll(() => example.getAttribute('aria-selected'), { timeout: 10_000 }).toBe('true');
    await expect
      .poll(() => page.locator('.graphiql-query-editor').innerText(), { timeout: 10_000 })
      .toContain('searchResources');
    // GraphiQL takes the operation to run from its store, which follows the editor a moment after a
    // tab switch (debounced); a click before that runs the previous tab's operation name against
    // this tab's text ("Cannot infer operation CurrentSession"). It stores the switched tab once
    // it has caught up: wait for that, as a person would wait for the page to settle.
    const storedActiveTab = () =>
      page.evaluate(() => {
        const stored = JSON.parse(localStorage.getItem('graphiql:tabState') ?? '{}');
        return stored.tabs?.[stored.activeTabIndex]?.operationName ?? null;
      });
    await expect.poll(storedActiveTab, { timeout: 10_000 }).toBe('SearchResources');
    await page.locator('.graphiql-execute-button').click({ timeout: 30_000 });
    // The editors draw spaces as no-break spaces.
    const text = async (selector: string) => (await page.locator(selector).innerText()).replace(/\s+/g, ' ');
    await expect
      .poll(() => text('.graphiql-response'), { timeout: 30_000 })
      .toContain('"titre": "Exemple pour GraphiQL"');
    // The headers editor shows how to send a token.
    await page.getByRole('button', { name: 'Headers' }).click();
    await expect.poll(() => text('.graphiql-editor-tool'), { timeout: 10_000 }).toContain('"X-ApiToken"');
    await page.screenshot({ path: screenshotPath('graphiql-example') });
    expect(problems).toEqual([]);
    await page.close();
  }, 90_000);

  it('switches example tabs on the first real mouse click, each showing its operation and variables', async () => {
    // Tall enough for the editors to draw every line of the longest example (they draw only what shows).
    const page = await browser.newPage({ viewport: { width: 1400, height: 2000 } });
    const problems = await watchProblems(page);
    // The tabs as the page about to be loaded holds them (their variables are the database's).
    const examples = await graphiqlTabs(app);
    await page.goto(`${base}/graphql`);
    const tabs = page.locator('.graphiql-tab');
    await expect.poll(() => tabs.count(), { timeout: 30_000 }).toBe(GRAPHIQL_EXAMPLES.length);
    await page.locator('.graphiql-query-editor .monaco-editor').first().waitFor({ timeout: 30_000 });
    // The editors draw spaces as no-break spaces.
    const text = async (selector: string) => (await page.locator(selector).innerText()).replace(/\s+/g, ' ');
    // The editor tools open on the headers (they hold the token hint): show the variables.
    await page.getByRole('button', { name: 'Variables' }).click();
    // Every tab but the first, then back to the first: each switch is a single trusted click.
    for (const { query, variables } of [...examples.slice(1), examples[0]!]) {
      const operation = tabOperation({ query, variables });
      await page.getByRole('tab', { name: operation }).getByRole('button', { name: operation }).click();
      await expect
        .poll(() => text('.graphiql-query-editor .view-lines'), { timeout: 5_000 })
        .toMatch(new RegExp(`query ${operation}\\b`));
      // The lines drawn in the variables editor (the headers editor beside it is hidden), without
      // the line numbers of the margin.
      const shown = page.locator('.graphiql-editor-tool .view-lines').filter({ visible: true });
      expect((await shown.innerText()).replace(/\s+/g, ' ')).toBe(variables.replace(/\s+/g, ' '));
    }
    expect(problems).toEqual([]);
    await page.close();
  }, 90_000);

  it.each([
    // A search filter: ResourceFilter's fields.
    ['a search filter', '{ searchResources(filters: [{ ', 'ind', 'index'],
    // A resource input: ResourceInput's fields, English where REST is French.
    ['a resource input', 'mutation { saveResource(input: { ', 'read', 'readerGroups'],
  ])(
    'completes the fields of %s as one types',
    async (_label, start, typed, expected) => {
      const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
      const problems = await watchProblems(page);
      const introspection = page.waitForResponse(
        (response) =>
          response.url().endsWith('/graphql') && /__schema/.test(response.request().postData() ?? ''),
      );
      await page.goto(`${base}/graphql?query=${encodeURIComponent(start)}`);
      // Completion needs the schema: wait for GraphiQL's introspection before typing.
      expect((await (await introspection).json()).errors).toBeUndefined();
      const editor = page.locator('.graphiql-query-editor .monaco-editor').first();
      await editor.waitFor({ timeout: 30_000 });
      await editor.click();
      await page.keyboard.press('Control+End');
      await page.keyboard.type(typed, { delay: 50 });
      const suggestions = page.locator('.graphiql-query-editor .suggest-widget .monaco-list-row');
      const labels = async () => (await suggestions.allInnerTexts()).join('\n');
      try {
        await expect.poll(labels, { timeout: 5_000 }).toContain(expected);
      } catch {
        // Quick suggestions did not open (typing too fast for the widget): ask for them.
        await page.keyboard.press('Control+Space');
        await expect.poll(labels, { timeout: 15_000 }).toContain(expected);
      }
      await page.screenshot({ path: screenshotPath(`graphiql-completion-${expected}`) });
      expect(problems).toEqual([]);
      await page.close();
    },
    90_000,
  );

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
