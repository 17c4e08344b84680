/**
 * Compiles src/ to dist/ (tsconfig.build.json) and copies the files the service reads at run time
 * (the REST layer's .graphql operations). `--if-stale` skips the work when dist/ is newer than every
 * source, so `npm start` costs no compilation after the first.
 *
 * Plain JavaScript run by node: it must work before anything else is built.
 */
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const stamp = join(root, 'dist', '.built');
const inputs = ['src', 'scripts/build.mjs', 'tsconfig.json', 'tsconfig.build.json', 'package-lock.json'];

function newestChange(path) {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(stat.mtimeMs, ...readdirSync(path).map((name) => newestChange(join(path, name))));
}

/**
 * `npx rrs` runs node_modules/.bin/rrs when it is there, and nothing is installed then. npm links
 * only the bins of dependencies, and a "bin" of the project itself makes npx install the whole
 * checkout into its cache (20 s, postinstall again): so the link is made here, at every install
 * (postinstall) and build, towards the launcher that is always in the checkout.
 */
function linkRrs() {
  const link = join(root, 'node_modules', '.bin', 'rrs');
  const target = join('..', '..', 'bin', 'rrs.js');
  try {
    if (lstatSync(link, { throwIfNoEntry: false })?.isSymbolicLink() && readlinkSync(link) === target) return;
    rmSync(link, { force: true });
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(target, link);
  } catch (error) {
    console.warn(`could not link node_modules/.bin/rrs (${error.message}): run node bin/rrs.js instead`);
  }
}

linkRrs();
const ifStale = process.argv.includes('--if-stale');
if (ifStale && existsSync(stamp)) {
  const sources = Math.max(...inputs.map((input) => newestChange(join(root, input))));
  if (sources < statSync(stamp).mtimeMs) process.exit(0);
}

// A clean build: a deleted source must not survive as a stale .js file.
rmSync(join(root, 'dist'), { recursive: true, force: true });
execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], {
  cwd: root,
  stdio: 'inherit',
});
cpSync(join(root, 'src'), join(root, 'dist'), {
  recursive: true,
  filter: (source) => statSync(source).isDirectory() || !/\.tsx?$/.test(source),
});
// Documented as a program of its own (./dist/cli/main.js), so it must be one.
chmodSync(join(root, 'dist/cli/main.js'), 0o755);
writeFileSync(stamp, `${new Date().toISOString()}\n`);
console.log(`built ${relative(process.cwd(), join(root, 'dist')) || 'dist'}/`);
