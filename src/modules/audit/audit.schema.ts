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

const described = <T extends string>(values: readonly T[], descriptions: Record<T, string>) =>
  Object.fromEntries(values.map((value) => [value, { description: descriptions[value] }])) as Record<
    T,
    { description: string }
  >;

const AuditActionEnum = builder.enumType('AuditAction', {
  description: 'What was done.',
  values: described(AUDIT_ACTIONS, {
    created: 'Created.',
    updated: 'Changed (`changes` holds each field before and after).',
    deleted: 'Deleted (`changes` holds the state deleted).',
    erased:
      'A person’s personal data erased (GDPR art. 17): `changes` holds the pseudonym and the rows of each kind.',
  }),
});
const AuditEntityKindEnum = builder.enumType('AuditEntityKind', {
  description: 'What kind of thing changed.',
  values: described(AUDIT_ENTITY_KINDS, {
    resource: 'A resource.',
    group: 'A group.',
    person: 'A person (an erasure: `entityId` 0, the person named by pseudonym only).',
  }),
});
const AuditActorKindEnum = builder.enumType('AuditActorKind', {
  description: 'Who made the change.',
  values: described(AUDIT_ACTOR_KINDS, {
    person: 'A logged-in person (`actorOid`, `actorPid`).',
    token: 'An API-token caller (`actorLabel` for an issued token).',
    anonymous: 'Nobody logged in.',
  }),
});

const AuditEntryType = builder.prismaObject('AuditEntry', {
  description: 'Who created, changed or deleted a resource or a group, and what changed.',
  fields: (t) => ({
    id: t.exposeInt('id', { description: 'Id of the entry (increasing).' }),
    at: t.expose('at', { description: 'When the change was committed.', type: 'DateTime' }),
    actorKind: t.field({
      description: 'Who made the change.',
      type: AuditActorKindEnum,
      resolve: (entry) => entry.actorKind as 'person',
    }),
    actorOid: t.exposeInt('actorOid', { description: 'The person’s oid.', nullable: true }),
    actorPid: t.exposeString('actorPid', { description: 'The person’s pid.', nullable: true }),
    actorLabel: t.exposeString('actorLabel', { nullable: true, description: 'The API token label, if any.' }),
    action: t.field({
      description: 'What was done.',
      type: AuditActionEnum,
      resolve: (entry) => entry.action as 'created',
    }),
    entityKind: t.field({
      description: 'What changed: a resource or a group.',
      type: AuditEntityKindEnum,
      resolve: (entry) => entry.entityKind as 'resource',
    }),
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
  description: 'A page of audit entries, newest first.',
  fields: (t) => ({
    entries: t.field({
      description: 'The entries of the page.',
      type: [AuditEntryType],
      resolve: (page) => page.entries,
    }),
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
      entityKind: t.arg({
        description: 'Only entries about this kind of thing.',
        type: AuditEntityKindEnum,
        required: false,
      }),
      entityId: t.arg.int({ required: false, description: 'With entityKind.' }),
      actorPid: t.arg.string({ description: 'Only changes by this person.', required: false }),
      actorKind: t.arg({
        description: 'Only changes by this kind of caller.',
        type: AuditActorKindEnum,
        required: false,
      }),
      action: t.arg({ description: 'Only this action.', type: AuditActionEnum, required: false }),
      from: t.arg({ type: 'DateTime', required: false, description: 'Entries at or after.' }),
      to: t.arg({ type: 'DateTime', required: false, description: 'Entries before.' }),
      first: t.arg.int({ description: 'Page size (default 50, at most 500).', required: false }),
      after: t.arg.int({ required: false, description: 'A `nextCursor`.' }),
    },
    resolve: (_root, args) => listAuditEntries(args),
  }),
}));
