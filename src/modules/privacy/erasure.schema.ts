/** GraphQL: `erasePerson`, the erasure of a person's personal data (GDPR art. 17), and its report. */
import { InvalidInputError, NotFoundError } from '../../errors.ts';
import { builder } from '../../graphql/builder.ts';
import { type ErasureCounts, type ErasureReport, erasePerson } from './erasure.service.ts';

const COUNT_DESCRIPTIONS: Record<keyof ErasureCounts, string> = {
  persons: 'Person rows deleted (1).',
  roles: 'Roles deleted.',
  groupMemberships: 'Group memberships deleted.',
  groupManagements: 'Group managements deleted.',
  groupFollows: 'Groups followed, no longer.',
  sessions: 'Sessions ended (their rows deleted).',
  authorships: 'Resources of which the person is no longer an author.',
  contributions: 'Resources of which the person is no longer a contributor.',
  parentAuthorships: 'Resources of which the person is no longer a parent author.',
  auditEntriesAsActor: 'Audit entries the person made, now naming the pseudonym.',
  auditEntriesRewritten: 'Audit entries whose changes named the person, now naming the pseudonym.',
  archivesRewritten: 'Archived resource states that named the person, now naming the pseudonym.',
  outboxMessagesRewritten: 'Undelivered peer messages that named the person, now naming the pseudonym.',
  peerNotifications: 'Peer messages queued for resources whose authors changed.',
};

const ErasureCountsType = builder.objectRef<ErasureCounts>('ErasureCounts').implement({
  description: 'Rows of each kind an erasure deletes or rewrites (or would, in a dry run).',
  fields: (t) =>
    Object.fromEntries(
      Object.entries(COUNT_DESCRIPTIONS).map(([name, description]) => [
        name,
        t.exposeInt(name as keyof ErasureCounts, { description }),
      ]),
    ),
});

const GroupWithoutManagerType = builder
  .objectRef<ErasureReport['groupsWithoutManager'][number]>('GroupWithoutManager')
  .implement({
    description: 'A group the erased person was the only manager of: kept, for someone to take over.',
    fields: (t) => ({
      oid: t.exposeInt('oid', { description: 'Id of the group.' }),
      nom: t.exposeString('nom', { description: 'Name of the group.' }),
    }),
  });

const ErasureReportType = builder.objectRef<ErasureReport>('ErasureReport').implement({
  description: 'What an erasure changed, or, in a dry run, would change (docs/privacy.md, "Erasure").',
  fields: (t) => ({
    dryRun: t.exposeBoolean('dryRun', { description: 'True: nothing was changed.' }),
    pseudonym: t.exposeString('pseudonym', {
      nullable: true,
      description:
        'How the audit log names the person from now on (`erased:<hex>`); null in a dry run before the first erasure.',
    }),
    counts: t.field({
      type: ErasureCountsType,
      description: 'Rows of each kind.',
      resolve: (report) => report.counts,
    }),
    resourcesKept: t.exposeIntList('resourcesKept', {
      description: 'Oids of the resources that stay, without the person among their authors.',
    }),
    resourcesHandedOver: t.exposeIntList('resourcesHandedOver', {
      description: 'Oids of the resources only the person could read or change, given to `successorPid`.',
    }),
    resourcesDeleted: t.exposeIntList('resourcesDeleted', {
      description:
        'Oids of the resources only the person could read or change, deleted (no successor configured).',
    }),
    successorPid: t.exposeString('successorPid', {
      nullable: true,
      description: 'The configured `privacy.erasure.successorPid`, if any.',
    }),
    groupsWithoutManager: t.field({
      type: [GroupWithoutManagerType],
      description: 'Groups the person was the only manager of.',
      resolve: (report) => report.groupsWithoutManager,
    }),
  }),
});

builder.mutationFields((t) => ({
  erasePerson: t.field({
    type: ErasureReportType,
    description:
      'Erases a person’s personal data (GDPR art. 17) in one transaction: the person, roles, memberships and ' +
      'sessions go, resources stay without them, the audit log names them by a pseudonym. `dryRun` reports ' +
      'what would change and changes nothing. Needs `managePersonalData` (administrators, API tokens).',
    authScopes: { permission: 'managePersonalData' },
    errors: { types: [InvalidInputError, NotFoundError] },
    args: {
      pid: t.arg.string({ description: 'The person’s pid.', required: true }),
      dryRun: t.arg.boolean({ description: 'Report only, change nothing.', required: false }),
    },
    resolve: (_root, args, context) => erasePerson(context, args.pid, { dryRun: args.dryRun ?? false }),
  }),
}));
