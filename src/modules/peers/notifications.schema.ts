/** GraphQL: peer notifications (the outbox) for operators, who list and retry them. */
import { ConflictError, InvalidInputError, NotFoundError } from '../../errors.ts';
import { builder } from '../../graphql/builder.ts';
import {
  listPeerNotifications,
  NOTIFICATION_STATUSES,
  type PeerNotification,
  retryFailedPeerNotifications,
  retryPeerNotification,
  ridsOfNotification,
} from './notifications.service.ts';

const NotificationStatusEnum = builder.enumType('PeerNotificationStatus', {
  description: 'The notifications an operator may look at.',
  values: Object.fromEntries(
    NOTIFICATION_STATUSES.map((status) => [
      status,
      { description: status === 'pending' ? 'Not delivered yet.' : 'Given up after every attempt failed.' },
    ]),
  ) as Record<(typeof NOTIFICATION_STATUSES)[number], { description: string }>,
});

const PeerNotificationType = builder.objectRef<PeerNotification>('PeerNotification').implement({
  description: 'A message to a peer repository (outbox), delivered by the outbox worker.',
  fields: (t) => ({
    id: t.exposeString('id', { description: 'Also the `eventId` the peer receives.' }),
    kind: t.exposeString('kind', { description: '`externalUpdate` or `registerListener`.' }),
    peerBaseId: t.exposeString('peerBaseId', { description: 'The peer repository it is for.' }),
    status: t.exposeString('status', { description: '`pending`, `delivered` or `failed`.' }),
    attempts: t.exposeInt('attempts', { description: 'Delivery attempts so far.' }),
    nextAttemptAt: t.expose('nextAttemptAt', {
      description: 'When the worker tries next.',
      type: 'DateTime',
    }),
    lastError: t.exposeString('lastError', { description: 'Why the last attempt failed.', nullable: true }),
    createdAt: t.expose('createdAt', { description: 'When the change was committed.', type: 'DateTime' }),
    deliveredAt: t.expose('deliveredAt', {
      description: 'When the peer acknowledged it.',
      type: 'DateTime',
      nullable: true,
    }),
    rids: t.stringList({
      description: 'The resources the notification is about.',
      resolve: (message) => ridsOfNotification(message.payload),
    }),
    payload: t.field({
      description:
        'The body sent to the peer, as it is: the peer protocol’s own payload (a Ref, or a listening request).',
      type: 'JSON',
      resolve: (message) => message.payload,
    }),
  }),
});

const RetriedCountType = builder.simpleObject('RetriedPeerNotifications', {
  description: 'How many notifications were made due again.',
  fields: (t) => ({ count: t.int({ description: 'Notifications made due now.' }) }),
});

builder.queryFields((t) => ({
  peerNotifications: t.field({
    type: [PeerNotificationType],
    description:
      'Notifications to peers not delivered yet (`pending`) or given up on (`failed`), oldest first.',
    authScopes: { permission: 'managePeerNotifications' },
    errors: { types: [InvalidInputError] },
    args: {
      status: t.arg({ type: NotificationStatusEnum, description: 'Both statuses when absent.' }),
      limit: t.arg.int({ description: 'At most this many (100 by default, 1000 at most).' }),
    },
    resolve: (_root, args) => listPeerNotifications({ status: args.status, limit: args.limit }),
  }),
}));

builder.mutationFields((t) => ({
  retryPeerNotification: t.field({
    type: PeerNotificationType,
    description:
      'Makes a failed or pending notification due now (a failed one gets a fresh set of attempts).',
    authScopes: { permission: 'managePeerNotifications' },
    errors: { types: [NotFoundError, ConflictError] },
    args: { id: t.arg.string({ description: 'The notification’s id.', required: true }) },
    resolve: (_root, args) => retryPeerNotification(args.id),
  }),
  retryFailedPeerNotifications: t.field({
    type: RetriedCountType,
    description: 'Makes every failed notification due now, with a fresh set of attempts.',
    authScopes: { permission: 'managePeerNotifications' },
    resolve: async () => ({ count: await retryFailedPeerNotifications() }),
  }),
}));
