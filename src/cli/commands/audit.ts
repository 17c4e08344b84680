/**
 * `audit`: prints the audit log (src/modules/audit/), newest first, filtered like the GraphQL
 * `auditLog` field: a line per entry, or with `--json` a JSON object per line (with the changed
 * values), so that a long log streams. Reads only: applies no migration.
 */
import type { Command } from 'commander';
import {
  AUDIT_ACTIONS,
  AUDIT_ENTITY_KINDS,
  type AuditAction,
  type AuditEntityKind,
  type AuditEntry,
  type AuditQuery,
  listAuditEntries,
  MAX_AUDIT_PAGE,
} from '../../modules/audit/audit.service.ts';
import { print, usage, wantsJson, withService } from '../context.ts';

interface AuditOptions {
  entity?: string;
  kind?: string;
  actor?: string;
  action?: string;
  since?: string;
  until?: string;
  limit: string;
}

/** The options as a query, or the first problem found. */
function queryOf(options: AuditOptions): AuditQuery | string {
  const query: AuditQuery = {};
  if (options.entity) {
    const match = /^(resource|group):(\d+)$/.exec(options.entity);
    if (!match) return `--entity: expected resource:<oid> or group:<oid>, got ${options.entity}`;
    query.entityKind = match[1] as AuditEntityKind;
    query.entityId = Number(match[2]);
  }
  if (options.kind) {
    if (!AUDIT_ENTITY_KINDS.includes(options.kind as AuditEntityKind)) {
      return `--kind: one of ${AUDIT_ENTITY_KINDS.join(', ')}`;
    }
    if (query.entityKind && query.entityKind !== options.kind) return '--kind contradicts --entity';
    query.entityKind = options.kind as AuditEntityKind;
  }
  if (options.action) {
    if (!AUDIT_ACTIONS.includes(options.action as AuditAction))
      return `--action: one of ${AUDIT_ACTIONS.join(', ')}`;
    query.action = options.action as AuditAction;
  }
  if (options.actor) query.actorPid = options.actor;
  for (const [name, value] of [
    ['since', options.since],
    ['until', options.until],
  ] as const) {
    if (value === undefined) continue;
    const date = new Date(value);
    if (Number.isNaN(date.getTime())) return `--${name}: not a date: ${value}`;
    if (name === 'since') query.from = date;
    else query.to = date;
  }
  return query;
}

const actorText = (entry: AuditEntry) =>
  entry.actorPid ?? (entry.actorLabel ? `${entry.actorKind}:${entry.actorLabel}` : entry.actorKind);

/** One line: when, who, what, on which entity, which fields. */
function line(entry: AuditEntry): string {
  const fields = Object.keys((entry.changes as Record<string, unknown> | null) ?? {});
  const what = entry.action === 'updated' ? ` ${fields.join(', ')}` : '';
  return `${entry.at.toISOString()}  ${actorText(entry)}  ${entry.action} ${entry.entityKind} ${entry.entityId}${what}`;
}

export function registerAuditCommands(program: Command): void {
  program
    .command('audit')
    .description(
      'print the audit log, newest first: who created, changed or deleted resources and groups (with --json, one JSON object per line, with the changed values)',
    )
    .option('--entity <kind:oid>', 'one resource or group, e.g. resource:42 or group:7')
    .option('--kind <kind>', 'resource or group')
    .option('--actor <pid>', 'changes made by this person (pid)')
    .option('--action <action>', 'created, updated or deleted')
    .option('--since <date>', 'entries at or after this ISO date or time')
    .option('--until <date>', 'entries before this ISO date or time')
    .option('--limit <n>', 'at most this many entries', '50')
    .action(async (options: AuditOptions, command: Command) => {
      const query = queryOf(options);
      if (typeof query === 'string') usage(command, query);
      const limit = Number(options.limit);
      if (!Number.isInteger(limit) || limit < 1)
        usage(command, `--limit: a positive integer, got ${options.limit}`);
      const json = wantsJson(command);
      await withService(
        async () => {
          let printed = 0;
          let after: number | null = null;
          do {
            const page = await listAuditEntries({
              ...query,
              first: Math.min(MAX_AUDIT_PAGE, limit - printed),
              after,
            });
            for (const entry of page.entries) print(command, json ? JSON.stringify(entry) : line(entry));
            printed += page.entries.length;
            after = page.nextCursor;
          } while (after !== null && printed < limit);
        },
        { access: 'read' },
      );
    });
}
