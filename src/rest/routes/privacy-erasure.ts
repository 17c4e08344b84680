/** The legacy-style route of the erasure of a person's personal data (docs/privacy.md, "Erasure"). */
import type { LegacyRoute } from '../route-table.ts';

const count = { type: 'integer', minimum: 0 };
const oids = { type: 'array', items: { type: 'integer' } };
const COUNT_NAMES = [
  'persons',
  'roles',
  'groupMemberships',
  'groupManagements',
  'groupFollows',
  'sessions',
  'authorships',
  'contributions',
  'parentAuthorships',
  'auditEntriesAsActor',
  'auditEntriesRewritten',
  'archivesRewritten',
  'outboxMessagesRewritten',
  'peerNotifications',
];

export const erasureRoutes: LegacyRoute[] = [
  {
    // What a lab's back office calls when a pupil leaves.
    method: 'post',
    paths: ['/api/personne/erase'],
    operation: 'ErasePerson',
    // Passed as posted: GraphQL rejects wrong types, the service reports what is missing.
    variables: ({ body }) => ({ pid: body.pid ?? '', dryRun: body.dryRun }),
    shape: ({ __typename, ...report }) => report,
    doc: {
      summary: 'Erase a person’s personal data (GDPR art. 17), or with `dryRun` report what would change',
      description:
        'One transaction: the person, roles, memberships, managements, follows and sessions are deleted; ' +
        'resources stay without them (those only they could read or change go to `privacy.erasure.successorPid`, ' +
        'or are deleted when none is configured); the audit log, archives and undelivered peer messages name ' +
        'them by a pseudonym. Needs `managePersonalData` (administrators, API tokens). See docs/privacy.md.',
      body: {
        type: 'object',
        properties: {
          pid: { type: 'string', pattern: '\\S', description: 'the person’s pid' },
          dryRun: { type: 'boolean', description: 'report only, change nothing' },
        },
        required: ['pid'],
        examples: [{ pid: 'sesalab/42', dryRun: true }],
      },
      invalid: ['pid manquant'],
      payload: {
        properties: {
          dryRun: { type: 'boolean' },
          pseudonym: { type: ['string', 'null'] },
          counts: {
            type: 'object',
            properties: Object.fromEntries(COUNT_NAMES.map((name) => [name, count])),
            required: COUNT_NAMES,
          },
          resourcesKept: oids,
          resourcesHandedOver: oids,
          resourcesDeleted: oids,
          successorPid: { type: ['string', 'null'] },
          groupsWithoutManager: {
            type: 'array',
            items: {
              type: 'object',
              properties: { oid: { type: 'integer' }, nom: { type: 'string' } },
              required: ['oid', 'nom'],
            },
          },
        },
        required: [
          'dryRun',
          'pseudonym',
          'counts',
          'resourcesKept',
          'resourcesHandedOver',
          'resourcesDeleted',
          'successorPid',
          'groupsWithoutManager',
        ],
      },
    },
  },
];
