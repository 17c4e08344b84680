/**
 * Debian's Chromium driven by playwright-core, for test/browser/. Without it the browser tests are
 * skipped with a message, unless REQUIRE_BROWSER=1 (CI), where a missing browser fails.
 */
import { existsSync, mkdirSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { type Browser, chromium } from 'playwright-core';

export const executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const browserAvailable = existsSync(executablePath);
if (!browserAvailable && process.env.REQUIRE_BROWSER === '1') {
  throw new Error(`No browser at ${executablePath}: install Debian's chromium (apt-get install chromium)`);
}
if (!browserAvailable) console.warn(`browser tests skipped: no ${executablePath} (apt-get install chromium)`);

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** Collects CSP violations and script errors of `page` (call before the first navigation). */
export async function watchProblems(page: Page): Promise<string[]> {
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
  return problems;
}

/** Where screenshots go: test artifacts, one per database. */
export function screenshotPath(name: string): string {
  mkdirSync('data/test-results/screenshots', { recursive: true });
  return `data/test-results/screenshots/${name}-${process.env.TEST_DATABASE ?? 'sqlite'}.png`;
}
