/**
 * The README is a map: short, and every link of it, of docs/ and of bench/README.md leads to a file
 * of this repository (a fresh clone has nothing beside it, so a link out of the repository is dead)
 * and, when it names a section, to a heading of that file, since moved text keeps its links.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** The README's limit: past it, text belongs in docs/ or bench/README.md, linked from the map. */
const README_MAX_LINES = 350;

const guides = readdirSync(join(root, 'docs'))
  .filter((name) => name.endsWith('.md'))
  .map((name) => `docs/${name}`);
const documents = ['README.md', ...guides, 'bench/README.md'];

interface Link {
  path: string;
  anchor?: string;
}

function relativeLinks(file: string): Link[] {
  const text = readFileSync(join(root, file), 'utf8');
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((match) => match[1]!)
    .filter((target) => !/^[a-z]+:/i.test(target))
    .map((target) => {
      const [path, anchor] = target.split('#');
      return { path: path === '' ? file : join(dirname(file), path!), anchor };
    });
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchorsOf(file: string): Set<string> {
  const text = readFileSync(join(root, file), 'utf8').replace(/```[\s\S]*?```/g, '');
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((match) => slug(match[1]!)));
}

describe.each(documents)('%s', (file) => {
  it('exists', () => {
    expect(existsSync(join(root, file))).toBe(true);
  });

  it('links only to files inside the repository, and to sections they have', () => {
    for (const { path, anchor } of relativeLinks(file)) {
      const target = `${path}${anchor === undefined ? '' : `#${anchor}`}`;
      expect(
        relative(root, resolve(root, path)).startsWith('..'),
        `${file} → ${target} leaves the repository`,
      ).toBe(false);
      expect(existsSync(join(root, path)), `${file} → ${target} does not exist`).toBe(true);
      if (anchor !== undefined && path.endsWith('.md')) {
        expect(anchorsOf(path).has(anchor), `${file} → ${target}: no such heading`).toBe(true);
      }
    }
  });
});

it(`the README is a map of at most ${README_MAX_LINES} lines`, () => {
  const lines = readFileSync(join(root, 'README.md'), 'utf8').replace(/\n$/, '').split('\n');
  expect(lines.length).toBeLessThanOrEqual(README_MAX_LINES);
});

it('the README links to every guide of docs/ and to bench/README.md', () => {
  const linked = new Set(relativeLinks('README.md').map((link) => link.path));
  for (const file of [...guides, 'bench/README.md']) {
    expect(linked.has(file), `README.md does not link to ${file}`).toBe(true);
  }
});

it('the README links to the API document and the compatibility notes in docs/', () => {
  const linked = relativeLinks('README.md').map((link) => link.path);
  expect(linked).toContain('docs/api.md');
  expect(linked).toContain('docs/compatibility.md');
});
