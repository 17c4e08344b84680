/**
 * GraphQL: `personalDataExport`, everything the service holds about one person (GDPR access and
 * portability; docs/privacy.md "Export"). The types mirror the service's document field by field,
 * so that REST and the command-line tool, which write the service's document as JSON, give the
 * same document.
 */
import { InvalidInputError, NotFoundError } from '../../errors.ts';
import { builder } from '../../graphql/builder.ts';
import { exportablePid } from './export.policy.ts';
import {
  type ExportedArchive,
  type ExportedAuditEntry,
  type ExportedGroup,
  type ExportedNotification,
  type ExportedResource,
  type ExportedRole,
  type ExportedSession,
  exportPersonalData,
  PERSONAL_DATA_FORMAT,
  type PersonalDataExport,
} from './export.service.ts';

const ExportedIdentityType = builder.objectRef<PersonalDataExport['person']>('ExportedIdentity').implement({
  description: 'Who the person is, as stored.',
  fields: (t) => ({
    oid: t.exposeInt('oid', { description: 'Id of the person here.' }),
    pid: t.exposeString('pid', { description: 'Id across services: `origin/id`.' }),
    nom: t.exposeString('nom', { description: 'Family name.' }),
    prenom: t.exposeString('prenom', { description: 'Given name.' }),
    email: t.exposeString('email', { nullable: true, description: 'E-mail, if known.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When the person was first stored.' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime', description: 'When the person was last changed.' }),
    lastLoginAt: t.expose('lastLoginAt', {
      type: 'DateTime',
      nullable: true,
      description: 'Their last login through a lab or the development login; null: never.',
    }),
  }),
});

const ExportedRoleType = builder.objectRef<ExportedRole>('ExportedRole').implement({
  description: 'A role the person holds, and who granted it.',
  fields: (t) => ({
    role: t.exposeString('role', { description: 'The role (a role of the configuration).' }),
    source: t.exposeString('source', {
      description: 'Who granted it: `admin` (an administrator), `lab` (a lab login) or `devLogin`.',
    }),
    grantedAt: t.expose('grantedAt', { type: 'DateTime', description: 'When it was granted.' }),
    active: t.exposeBoolean('active', {
      description: 'Whether it grants anything now (the development login’s only while it is on).',
    }),
  }),
});

const ExportedGroupType = builder.objectRef<ExportedGroup>('ExportedGroup').implement({
  description: 'A group the person manages, belongs to or follows.',
  fields: (t) => ({
    oid: t.exposeInt('oid', { description: 'Id of the group.' }),
    nom: t.exposeString('nom', { description: 'Name of the group.' }),
    since: t.expose('since', {
      type: 'DateTime',
      nullable: true,
      description: 'When they joined or followed it; null for managers (not recorded).',
    }),
    position: t.exposeInt('position', {
      nullable: true,
      description: 'Their rank among the managers; null for members and followers.',
    }),
  }),
});

const ExportedGroupsType = builder.objectRef<PersonalDataExport['groups']>('ExportedGroups').implement({
  description: 'The groups the person is linked to, by link.',
  fields: (t) => ({
    managed: t.field({
      type: [ExportedGroupType],
      description: 'Groups they manage.',
      resolve: (g) => g.managed,
    }),
    member: t.field({
      type: [ExportedGroupType],
      description: 'Groups they belong to.',
      resolve: (g) => g.member,
    }),
    followed: t.field({
      type: [ExportedGroupType],
      description: 'Groups they follow.',
      resolve: (g) => g.followed,
    }),
  }),
});

const ExportedResourceType = builder.objectRef<ExportedResource>('ExportedResource').implement({
  description: 'A resource naming the person, as a reference.',
  fields: (t) => ({
    oid: t.exposeInt('oid', { description: 'Id of the resource here.' }),
    rid: t.exposeString('rid', { description: 'Id across repositories: `baseId/oid`.' }),
    titre: t.exposeString('titre', { description: 'Title.' }),
    type: t.exposeString('type', { description: 'Type.' }),
    position: t.exposeInt('position', {
      nullable: true,
      description: 'Their rank in the resource’s list of persons; null for a resource that mentions them.',
    }),
  }),
});

const ExportedResourcesType = builder
  .objectRef<PersonalDataExport['resources']>('ExportedResources')
  .implement({
    description: 'The resources naming the person, by role.',
    fields: (t) => ({
      authored: t.field({
        type: [ExportedResourceType],
        description: 'Resources they are an author of (`auteurs`).',
        resolve: (r) => r.authored,
      }),
      contributed: t.field({
        type: [ExportedResourceType],
        description: 'Resources they contributed to (`contributeurs`).',
        resolve: (r) => r.contributed,
      }),
      parentAuthored: t.field({
        type: [ExportedResourceType],
        description: 'Copies of resources they authored (`auteursParents`).',
        resolve: (r) => r.parentAuthored,
      }),
      mentioned: t.field({
        type: [ExportedResourceType],
        description:
          'Resources whose `parametres` or `enfants` name them (e.g. a sequence listing its pupils).',
        resolve: (r) => r.mentioned,
      }),
    }),
  });

const ExportedArchiveType = builder.objectRef<ExportedArchive>('ExportedArchive').implement({
  description: 'A previous state of a resource (kept when its version changed) that names the person.',
  fields: (t) => ({
    oid: t.exposeInt('oid', { description: 'Id of the archive.' }),
    resourceOid: t.exposeInt('resourceOid', { description: 'Id of the resource.' }),
    rid: t.exposeString('rid', { description: 'Id of the resource across repositories.' }),
    version: t.exposeInt('version', { description: 'The version the archive holds.' }),
    archivedAt: t.expose('archivedAt', { type: 'DateTime', description: 'When it was archived.' }),
  }),
});

const ExportedSessionType = builder.objectRef<ExportedSession>('ExportedSession').implement({
  description: 'An open session of the person (never its secret id).',
  fields: (t) => ({
    digest: t.exposeString('digest', {
      description: 'SHA-256 of the session id, in hex: tells sessions apart, cannot be used as one.',
    }),
    expiresAt: t.expose('expiresAt', { type: 'DateTime', description: 'When it expires.' }),
    labBaseId: t.exposeString('labBaseId', {
      nullable: true,
      description: 'The lab they logged in through; null for the development login.',
    }),
  }),
});

const ExportedAuditEntryType = builder.objectRef<ExportedAuditEntry>('ExportedAuditEntry').implement({
  description: 'An audit entry of a change the person made, or that names them.',
  fields: (t) => ({
    id: t.exposeInt('id', { description: 'Id of the entry.' }),
    at: t.expose('at', { type: 'DateTime', description: 'When the change was committed.' }),
    asActor: t.exposeBoolean('asActor', { description: 'They made the change.' }),
    asSubject: t.exposeBoolean('asSubject', {
      description: 'The change names them (pid, e-mail or name; their oid as a group manager).',
    }),
    actorKind: t.exposeString('actorKind', { description: 'person, token or anonymous.' }),
    actorPid: t.exposeString('actorPid', { nullable: true, description: 'The acting person’s pid.' }),
    action: t.exposeString('action', { description: 'created, updated or deleted.' }),
    entityKind: t.exposeString('entityKind', { description: 'resource or group.' }),
    entityId: t.exposeInt('entityId', { description: 'The oid of the resource or group.' }),
    changes: t.expose('changes', {
      type: 'JSON',
      nullable: true,
      description: 'What changed, as the audit log keeps it (`{field: {before, after}}`).',
    }),
  }),
});

const ExportedNotificationType = builder
  .objectRef<ExportedNotification>('ExportedPeerNotification')
  .implement({
    description: 'A notification to a peer repository, not delivered yet, whose payload names the person.',
    fields: (t) => ({
      id: t.exposeString('id', { description: 'The event id.' }),
      kind: t.exposeString('kind', { description: 'externalUpdate or registerListener.' }),
      peerBaseId: t.exposeString('peerBaseId', { description: 'The peer repository it is for.' }),
      status: t.exposeString('status', { description: 'pending or failed.' }),
      createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was written.' }),
      payload: t.expose('payload', { type: 'JSON', description: 'What the peer receives.' }),
    }),
  });

const PersonalDataExportType = builder.objectRef<PersonalDataExport>('PersonalDataExport').implement({
  description: 'Everything the service holds about one person (docs/privacy.md, "Export").',
  fields: (t) => ({
    format: t.exposeString('format', {
      description: `The document’s format and version: \`${PERSONAL_DATA_FORMAT}\`.`,
    }),
    generatedAt: t.expose('generatedAt', { type: 'DateTime', description: 'When the export was read.' }),
    person: t.field({ type: ExportedIdentityType, description: 'Who they are.', resolve: (d) => d.person }),
    roles: t.field({
      type: [ExportedRoleType],
      description: 'Their roles, by name.',
      resolve: (d) => d.roles,
    }),
    groups: t.field({ type: ExportedGroupsType, description: 'Their groups.', resolve: (d) => d.groups }),
    resources: t.field({
      type: ExportedResourcesType,
      description: 'The resources naming them.',
      resolve: (d) => d.resources,
    }),
    resourceArchives: t.field({
      type: [ExportedArchiveType],
      description: 'Previous states of resources naming them.',
      resolve: (d) => d.resourceArchives,
    }),
    sessions: t.field({
      type: [ExportedSessionType],
      description: 'Their sessions.',
      resolve: (d) => d.sessions,
    }),
    auditEntries: t.field({
      type: [ExportedAuditEntryType],
      description: 'Audit entries of their changes, or naming them, oldest first.',
      resolve: (d) => d.auditEntries,
    }),
    peerNotifications: t.field({
      type: [ExportedNotificationType],
      description: 'Undelivered notifications to peers naming them.',
      resolve: (d) => d.peerNotifications,
    }),
  }),
});

builder.queryFields((t) => ({
  personalDataExport: t.field({
    type: PersonalDataExportType,
    description:
      'Everything the service holds about a person: the caller’s own without `pid` (a session person; an API token must give `pid`); another person’s with the permission `managePersonalData` (administrators, API tokens).',
    authScopes: { person: true, permission: 'managePersonalData' },
    errors: { types: [InvalidInputError, NotFoundError] },
    args: {
      pid: t.arg.string({
        required: false,
        description: 'The person’s pid; absent: the caller (a session person).',
      }),
    },
    resolve: (_root, args, context) =>
      exportPersonalData(exportablePid(context.viewer, args.pid), context.config),
  }),
}));
