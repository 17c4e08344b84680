/** GraphQL: the audit log, for administrators (`readAudit`). */
import { builder } from '../../graphql/builder.ts';
import {
  AUDIT_ACTIONS,
  AUDIT_ACTOR_KINDS,
  AUDIT_ENTITY_KINDS,
  type AuditPage,
  DEFAULT_AUDIT_PAGE,
  listAuditEntries,
  MAX_AUDIT_PAGE,
} from './audit.service.ts';

const AuditActionEnum = builder.enumType('AuditAction', { values: AUDIT_ACTIONS });
const AuditEntityKindEnum = builder.enumType('AuditEntityKind', { values: AUDIT_ENTITY_KINDS });
const AuditActorKindEnum = builder.enumType('AuditActorKind', { values: AUDIT_ACTOR_KINDS });

const AuditEntryType = builder.prismaObject('AuditEntry', {
  description: 'Who created, changed or deleted a resource or a group, and what changed.',
  fields: (t) => ({
    id: t.exposeInt('id'),
    at: t.expose('at', { type: 'DateTime' }),
    actorKind: t.field({ type: AuditActorKindEnum, resolve: (entry) => entry.actorKind as 'person' }),
    actorOid: t.exposeInt('actorOid', { nullable: true }),
    actorPid: t.exposeString('actorPid', { nullable: true }),
    actorLabel: t.exposeString('actorLabel', { nullable: true, description: 'The API token label, if any.' }),
    action: t.field({ type: AuditActionEnum, resolve: (entry) => entry.action as 'created' }),
    entityKind: t.field({ type: AuditEntityKindEnum, resolve: (entry) => entry.entityKind as 'resource' }),
    entityId: t.exposeInt('entityId', { description: 'The oid of the resource or group.' }),
    changes: t.expose('changes', {
      type: 'JSON',
      nullable: true,
      description:
        'Updates: `{field: {before, after}}` per changed field; creations `{field: {after}}`, deletions `{field: {before}}`.',
    }),
    requestId: t.exposeString('requestId', {
      nullable: true,
      description: 'The X-Request-Id of the change.',
    }),
  }),
});

const AuditPageType = builder.objectRef<AuditPage>('AuditPage').implement({
  fields: (t) => ({
    entries: t.field({ type: [AuditEntryType], resolve: (page) => page.entries }),
    nextCursor: t.exposeInt('nextCursor', {
      nullable: true,
      description: 'Pass as `after` for the next, older page; null on the last page.',
    }),
  }),
});

builder.queryFields((t) => ({
  auditLog: t.field({
    type: AuditPageType,
    description: `The audit log, newest first, filtered by every argument given; pages of \`first\` (default ${DEFAULT_AUDIT_PAGE}, at most ${MAX_AUDIT_PAGE}) entries.`,
    authScopes: { permission: 'readAudit' },
    args: {
      entityKind: t.arg({ type: AuditEntityKindEnum, required: false }),
      entityId: t.arg.int({ required: false, description: 'With entityKind.' }),
      actorPid: t.arg.string({ required: false }),
      actorKind: t.arg({ type: AuditActorKindEnum, required: false }),
      action: t.arg({ type: AuditActionEnum, required: false }),
      from: t.arg({ type: 'DateTime', required: false, description: 'Entries at or after.' }),
      to: t.arg({ type: 'DateTime', required: false, description: 'Entries before.' }),
      first: t.arg.int({ required: false }),
      after: t.arg.int({ required: false, description: 'A `nextCursor`.' }),
    },
    resolve: (_root, args) => listAuditEntries(args),
  }),
}));
