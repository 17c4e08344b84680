/**
 * Links of the README and of docs/ lead to files of this repository: a fresh clone has nothing
 * beside it, so a link out of the repository is dead.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

function relativeLinks(file: string): string[] {
  const text = readFileSync(join(root, file), 'utf8');
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((match) => match[1]!)
    .filter((target) => !/^([a-z]+:|#)/i.test(target))
    .map((target) => target.replace(/#.*$/, ''));
}

describe.each(['README.md', 'docs/api.md', 'docs/compatibility.md'])('%s', (file) => {
  it('exists', () => {
    expect(existsSync(join(root, file))).toBe(true);
  });

  it('links only to files inside the repository', () => {
    for (const target of relativeLinks(file)) {
      const path = resolve(root, dirname(file), target);
      expect(relative(root, path).startsWith('..'), `${file} → ${target} leaves the repository`).toBe(false);
      expect(existsSync(path), `${file} → ${target} does not exist`).toBe(true);
    }
  });
});

it('the README links to the API document and the compatibility notes in docs/', () => {
  const links = relativeLinks('README.md');
  expect(links).toContain('docs/api.md');
  expect(links).toContain('docs/compatibility.md');
});
