/**
 * Temporary folders of a test file, removed when the file ends (test/setup/database.ts), so a run
 * leaves no rrs-* folder behind.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const folders = new Set<string>();

/** A new empty folder `rrs-<label>-…` under the system's temporary directory. */
export function scratchDir(label: string): string {
  const folder = mkdtempSync(join(tmpdir(), `rrs-${label}-`));
  folders.add(folder);
  return folder;
}

export function removeScratchDirs(): void {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
  folders.clear();
}
