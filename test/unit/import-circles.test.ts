/**
 * No module of src/ imports itself back through others (type-only imports count: a circle of types
 * still ties the modules together), and no folder of src/ does either: the folders stack in layers
 * (the gateway above the modules, the modules above the GraphQL kit they build with, logging at the
 * bottom), so no import runs back up. A circle found here is named, file by file or folder by folder.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { expect, it } from 'vitest';

const SRC = resolve(import.meta.dirname, '../../src');
const IMPORT = /^\s*(?:import|export)\s(?:[^;]*?\sfrom\s+)?'(\.{1,2}\/[^']+)'/gm;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'generated' ? [] : sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(SRC)) {
    const text = readFileSync(file, 'utf8');
    const targets = [...text.matchAll(IMPORT)].map((match) => resolve(dirname(file), match[1]!));
    graph.set(
      file,
      targets.filter((target) => target.endsWith('.ts')),
    );
  }
  return graph;
}

/** Strongly connected components of more than one file (Tarjan). */
function circles(graph: Map<string, string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string) => {
    index.set(node, counter);
    low.set(node, counter++);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!graph.has(next)) continue;
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, index.get(next)!));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member.slice(SRC.length + 1));
      } while (member !== node);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

it('finds the modules src/ is made of', () => {
  const graph = importGraph();
  expect(graph.size).toBeGreaterThan(100);
  // The walker reads imports at all: app.ts imports the GraphQL server.
  expect(graph.get(join(SRC, 'app.ts'))).toContain(join(SRC, 'gateway/yoga.ts'));
});

it('has no import circle in src/', () => {
  expect(circles(importGraph())).toEqual([]);
});

/** The folder of src/ a file belongs to (its first level), or the file itself at the top. */
const roomOf = (file: string) => join(SRC, file.slice(SRC.length + 1).split('/')[0]!);

it('has no circle between the folders of src/ (no import runs back up a layer)', () => {
  const rooms = new Map<string, Set<string>>();
  for (const [file, targets] of importGraph()) {
    const room = roomOf(file);
    const arrows = rooms.get(room) ?? new Set<string>();
    for (const target of targets) if (roomOf(target) !== room) arrows.add(roomOf(target));
    rooms.set(room, arrows);
  }
  expect(rooms.size).toBeGreaterThan(15);
  // The walker sees side-effect imports: the gateway's schema loads the modules.
  expect(rooms.get(join(SRC, 'gateway'))).toContain(join(SRC, 'modules'));
  const graph = new Map([...rooms].map(([room, arrows]) => [room, [...arrows]]));
  expect(circles(graph)).toEqual([]);
});
