/**
 * Files the database's content is written to that hold personal data (a person's export, the
 * transfer export, backups, an import's report): readable by their owner only (0600) from the
 * moment they exist, whatever the umask, and also when they replace an older file others could
 * read. docs/privacy.md, "Outside the database".
 */
import { chmodSync, closeSync, openSync } from 'node:fs';
import { rename, rm, writeFile } from 'node:fs/promises';

export const PRIVATE_MODE = 0o600;

/**
 * Writes `text` to `file`: a temporary file created with the private mode beside it, then renamed
 * over it, so the data is never in a file anyone else may read, and a failed write leaves no half
 * document. The temporary file has one name, `<file>.partial` as the transfer export's: what a
 * killed run left there is replaced, not kept beside under a new name each time.
 */
export async function writePrivateFile(file: string, text: string): Promise<void> {
  const temporary = `${file}.partial`;
  await rm(temporary, { force: true });
  try {
    await writeFile(temporary, text, { mode: PRIVATE_MODE, flag: 'wx' });
    await rename(temporary, file);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

/**
 * Makes `file` private before a tool writes into it (SQLite's backup, pg_dump, which create files
 * with the umask's mode): created empty with the private mode when missing, its mode narrowed when
 * it exists (a tool that truncates a file keeps its mode).
 */
export function claimPrivateFile(file: string): void {
  closeSync(openSync(file, 'a', PRIVATE_MODE));
  chmodSync(file, PRIVATE_MODE);
}
