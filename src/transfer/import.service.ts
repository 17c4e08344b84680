/**
 * Import of a transfer file (format.ts, docs/import-export.md) into this repository: the entry of
 * the CLI's `import` command. The steps, each in a module of its own:
 *
 *   import-passes.ts      the two readings of the file and the batches they make
 *   import-records.ts     reading the lines and validating each record
 *   import-identities.ts  identities between the file and this database, references resolved
 *   import-rows.ts        what a record becomes here, and whether the database holds it already
 *   import-writes.ts      the transactional writes, a batch at a time
 *   import-report.ts      the report and the progress
 *
 * Identifiers stay what they were: a resource keeps its oid (so its rid and every link to it), a
 * person its pid (and its oid when free), a group its name (and its oid when free). The import is
 * idempotent: each record is compared with what the database holds and written only when it
 * differs; a second run of the same file counts every record unchanged (or skipped again, for the
 * same reasons). A record that cannot be imported is skipped and reported without stopping the
 * rest; a reference that names nothing (an author, a group, a manager) is dropped and reported.
 *
 * Not transferred: archives of previous versions, peer listeners, sessions (see the document).
 */
import { createReadStream } from 'node:fs';
import { moveSequencesPastImportedIds } from '../db/sequences.ts';
import { readMembershipsAndResources, readPersonsAndGroups } from './import-passes.ts';
import type { ImportReport } from './import-report.ts';
import { type ImportOptions, startRun } from './import-run.ts';

export { TransferFormatError } from './import-records.ts';
export type { Counts, ImportProgress, ImportReport, Problem } from './import-report.ts';
export type { ImportOptions } from './import-run.ts';

export async function importFile(path: string, options: ImportOptions): Promise<ImportReport> {
  return importTransfer(() => createReadStream(path), options);
}

/** Imports the records `open()` streams (called twice: the file is read in two passes). */
export async function importTransfer(
  open: () => AsyncIterable<Buffer | string>,
  options: ImportOptions,
): Promise<ImportReport> {
  const run = startRun(options);
  const started = performance.now();
  const resourceLines = await readPersonsAndGroups(run, open());
  await readMembershipsAndResources(run, open(), resourceLines);
  if (!run.dryRun) await moveSequencesPastImportedIds();
  return run.report.finish(run.dryRun, performance.now() - started);
}
