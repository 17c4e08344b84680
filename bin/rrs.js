#!/usr/bin/env node
/**
 * `rrs`, as `npx rrs` finds it: npm ci links node_modules/.bin/rrs here (scripts/build.mjs). Plain
 * JavaScript any Node.js can read, always in the checkout, so the link never points at nothing (npx
 * would then fetch an unrelated `rrs` package from the registry). The built tool (dist/cli/main.js)
 * checks the Node.js it runs on itself.
 *
 * package.json has no "bin": with one, npx installs the whole checkout into its cache to link it.
 */
import { existsSync } from 'node:fs';

const main = new URL('../dist/cli/main.js', import.meta.url);
if (!existsSync(main)) {
  console.error('rrs: the tool is not built (no dist/cli/main.js): run npm run build');
  process.exit(3);
}
await import(main.href);
