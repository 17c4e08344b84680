/**
 * docs/privacy.md's inventory against the Prisma model: every column of every model (relation
 * fields are not columns) has a row saying whether it is personal, why it is kept, for how long,
 * and how it is exported and erased; a row naming a column the model no longer has fails too. The
 * model is read from the generated client's datamodel (the one Pothos is built with), so a column
 * added to prisma/schema.prisma fails here by name once the clients are generated.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { getDatamodel } from '../../src/generated/pothos-types.ts';

const PRIVACY_FILE = new URL('../../docs/privacy.md', import.meta.url);
const PERSONAL = ['yes', 'link', 'no'];

/** Every column of the model, as `Model.column`. */
function modelColumns(): string[] {
  const { models } = getDatamodel().datamodel;
  return Object.entries(models).flatMap(([model, { fields }]) =>
    fields.filter((field) => field.kind !== 'object').map((field) => `${model}.${field.name}`),
  );
}

interface InventoryRow {
  column: string;
  cells: string[];
}

/** The rows of the table under "## Inventory", by their first cell (`Model.column`). */
function inventoryRows(): InventoryRow[] {
  const text = readFileSync(PRIVACY_FILE, 'utf8');
  const section = /^## Inventory\n([\s\S]*?)(?=^## )/m.exec(text)?.[1];
  if (!section) throw new Error('docs/privacy.md has no "## Inventory" section');
  return section
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => {
      const cells = line
        .slice(1, line.endsWith('|') ? -1 : undefined)
        .split('|')
        .map((cell) => cell.trim());
      return { column: cells[0]!.replace(/^`|`$/g, ''), cells };
    });
}

describe('docs/privacy.md inventory', () => {
  const columns = modelColumns();
  const rows = inventoryRows();
  const documented = rows.map((row) => row.column);

  it('classifies every column of every model', () => {
    const unclassified = columns.filter((column) => !documented.includes(column));
    expect(unclassified, 'columns with no row in docs/privacy.md "Inventory"').toEqual([]);
  });

  it('names no column the model does not have, and each once', () => {
    expect(
      documented.filter((column) => !columns.includes(column)),
      'rows of docs/privacy.md "Inventory" naming no column of prisma/schema.prisma',
    ).toEqual([]);
    expect(documented.filter((column, index) => documented.indexOf(column) !== index)).toEqual([]);
  });

  it('fills every cell, with a known answer to "Personal"', () => {
    const incomplete = rows
      .filter((row) => row.cells.length !== 6 || row.cells.some((cell) => cell === ''))
      .map((row) => row.column);
    expect(incomplete, 'rows with an empty or missing cell').toEqual([]);
    const unknown = rows.filter((row) => !PERSONAL.includes(row.cells[1]!)).map((row) => row.column);
    expect(unknown, `rows whose "Personal" is not one of ${PERSONAL.join(', ')}`).toEqual([]);
  });
});
