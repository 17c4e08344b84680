/**
 * What an import run tells its caller: the counts of each kind of record, the records skipped and
 * the warnings (each with its line in the file), and its progress while it runs.
 */
import { InvalidInputError } from '../errors.ts';
import type { RecordKind } from './format.ts';

export interface ImportProgress {
  phase: 'persons and groups' | 'resources';
  /** Records of the phase handled so far. */
  done: number;
  /** Records of the phase in the file (known for resources once the first reading is over). */
  total?: number;
}

export interface Counts {
  created: number;
  updated: number;
  unchanged: number;
  skipped: number;
}

export interface Problem {
  /** Line of the file (1 is the header). */
  line: number;
  kind: RecordKind | 'line';
  /** pid, group name or oid, when the record has one. */
  id?: string;
  message: string;
}

export interface ImportReport {
  dryRun: boolean;
  persons: Counts;
  groups: Counts;
  resources: Counts;
  /** Records not imported, and why. */
  skipped: Problem[];
  /** Records imported without some of their content (unknown references, unknown properties). */
  warnings: Problem[];
  durationMs: number;
}

export type Outcome = 'created' | 'updated' | 'unchanged';

/** One line: Prisma's messages start with the call and end with the cause. */
export const messageOf = (error: unknown) =>
  error instanceof InvalidInputError
    ? error.problems.join('; ')
    : ((error as Error).message.trim().split('\n').filter(Boolean).at(-1) ?? String(error));

/** In file order (the passes meet records in another). */
const byLine = (problems: Problem[]) => [...problems].sort((a, b) => a.line - b.line);

/** The report a run fills as it goes. */
export class RunReport {
  readonly counts = {
    person: { created: 0, updated: 0, unchanged: 0, skipped: 0 },
    group: { created: 0, updated: 0, unchanged: 0, skipped: 0 },
    resource: { created: 0, updated: 0, unchanged: 0, skipped: 0 },
  };
  /** Person outcomes by pid: memberships (second pass) may turn `unchanged` into `updated`. */
  readonly personOutcomes = new Map<string, Outcome>();
  private readonly skipped: Problem[] = [];
  private readonly warnings: Problem[] = [];

  constructor(private readonly onProgress?: (progress: ImportProgress) => void) {}

  skip(line: number, kind: Problem['kind'], id: string | undefined, message: string) {
    this.skipped.push({ line, kind, ...(id !== undefined ? { id } : {}), message });
    if (kind !== 'line') this.counts[kind].skipped += 1;
  }

  warn(line: number, kind: RecordKind, id: string, message: string) {
    this.warnings.push({ line, kind, id, message });
  }

  progress(phase: ImportProgress['phase'], done: number, total?: number) {
    this.onProgress?.({ phase, done, ...(total !== undefined ? { total } : {}) });
  }

  /** Once, at the end of the run. */
  finish(dryRun: boolean, durationMs: number): ImportReport {
    // Persons are counted at the end: their memberships are compared in the second pass.
    for (const outcome of this.personOutcomes.values()) this.counts.person[outcome] += 1;
    return {
      dryRun,
      persons: this.counts.person,
      groups: this.counts.group,
      resources: this.counts.resource,
      skipped: byLine(this.skipped),
      warnings: byLine(this.warnings),
      durationMs: Math.round(durationMs),
    };
  }
}
