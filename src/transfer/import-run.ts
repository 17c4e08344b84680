/** One run of an import: its settings, what it learns of identities, and the report it fills. */
import { type Identities, noIdentities } from './import-identities.ts';
import { type ImportProgress, RunReport } from './import-report.ts';

export interface ImportOptions {
  /** This repository's baseId: the file's must be the same, or rids would change. */
  baseId: string;
  /** Role names this repository knows (configuration `roles`); others are dropped and reported. */
  roleNames: readonly string[];
  /** Compare and report, write nothing. */
  dryRun?: boolean;
  /** Resources (and persons) per transaction. */
  batchSize?: number;
  onProgress?: (progress: ImportProgress) => void;
}

export interface ImportRun {
  readonly baseId: string;
  readonly roleNames: ReadonlySet<string>;
  readonly dryRun: boolean;
  readonly batchSize: number;
  readonly ids: Identities;
  readonly report: RunReport;
}

const DEFAULT_BATCH = 500;

export function startRun(options: ImportOptions): ImportRun {
  return {
    baseId: options.baseId,
    roleNames: new Set(options.roleNames),
    dryRun: options.dryRun ?? false,
    batchSize: options.batchSize ?? DEFAULT_BATCH,
    ids: noIdentities(),
    report: new RunReport(options.onProgress),
  };
}
