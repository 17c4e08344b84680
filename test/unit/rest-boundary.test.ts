/**
 * The REST layer maps legacy requests onto GraphQL and nothing else: it imports nothing from
 * src/modules/ (issue 24, "One vocabulary"), so a domain rule cannot be applied to REST clients
 * only. Wire checks of the legacy format are written in src/legacy/; domain rules stay in the
 * services, which GraphQL clients reach too. And REST is a surface, not a library: nothing but the
 * application's assembly (src/app.ts) imports it (issue 33), so the OAI provider, the transfer
 * files and the peer client share the legacy format (src/legacy/) and the operation runner
 * (src/gateway/) instead. Type-only and dynamic imports count.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { expect, it } from 'vitest';

const SRC = resolve(import.meta.dirname, '../../src');
const REST = join(SRC, 'rest');
const MODULES = join(SRC, 'modules') + sep;

/**
 * Files still allowed to import src/modules/ while they are being rewritten: none now (the last
 * test fails once an entry is no longer needed).
 */
const BEING_REWRITTEN = new Set<string>();

/** Static, side-effect, re-export and dynamic imports, multi-line ones included. */
const SPECIFIER =
  /(?:^|[;\s])(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]|\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/gm;

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return files(path);
    return /\.(?:ts|mts|js|mjs)$/.test(entry.name) ? [path] : [];
  });
}

/** Each file of `dir` (relative to it) with what it imports (files as absolute paths). */
function importsOf(dir: string): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const file of files(dir)) {
    const specifiers = [...readFileSync(file, 'utf8').matchAll(SPECIFIER)].map((m) => m[1] ?? m[2]!);
    found.set(
      relative(dir, file),
      specifiers.map((specifier) =>
        specifier.startsWith('.') ? resolve(dirname(file), specifier) : specifier,
      ),
    );
  }
  return found;
}

const importsOfRest = () => importsOf(REST);

const intoModules = (targets: string[]) =>
  targets
    .filter((target) => target.startsWith(MODULES) || /(^|\/)src\/modules\//.test(target))
    .map((target) => relative(dirname(SRC), target));

it('reads the imports of src/rest/', () => {
  const imports = importsOfRest();
  expect(imports.size).toBeGreaterThan(10);
  // A multi-line import, a type-only one and a package: the reader sees each kind.
  expect(imports.get('router.ts')).toEqual(
    expect.arrayContaining([
      join(REST, 'route-table.ts'),
      join(SRC, 'gateway/operation-runner.ts'),
      'express',
    ]),
  );
});

it('src/rest/ imports nothing from src/modules/', () => {
  const offending = [...importsOfRest()]
    .filter(([file, targets]) => intoModules(targets).length > 0 && !BEING_REWRITTEN.has(file))
    .map(([file, targets]) => `src/rest/${file} imports ${intoModules(targets).join(', ')}`);
  expect(offending, `the REST layer must not import src/modules/:\n${offending.join('\n')}`).toEqual([]);
});

it('allows no file that no longer needs it', () => {
  const imports = importsOfRest();
  const stale = [...BEING_REWRITTEN].filter((file) => intoModules(imports.get(file) ?? []).length === 0);
  expect(stale, 'remove these from BEING_REWRITTEN: they import nothing from src/modules/').toEqual([]);
});

/** The application's assembly: the one file that mounts REST beside the other surfaces. */
const ASSEMBLY = 'app.ts';

it('nothing but the assembly imports src/rest/', () => {
  const offending = [...importsOf(SRC)]
    .filter(([file]) => !file.startsWith(`rest${sep}`) && file !== ASSEMBLY)
    .flatMap(([file, targets]) =>
      targets
        .filter((target) => target.startsWith(REST + sep))
        .map((target) => `src/${file} imports ${relative(dirname(SRC), target)}`),
    );
  expect(offending, `only ${ASSEMBLY} may import src/rest/:\n${offending.join('\n')}`).toEqual([]);
  // The reader sees the assembly's imports of REST, so the filter above is not vacuous.
  expect(importsOf(SRC).get(ASSEMBLY)).toEqual(expect.arrayContaining([join(REST, 'router.ts')]));
});
