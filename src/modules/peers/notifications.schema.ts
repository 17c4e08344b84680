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
  values: NOTIFICATION_STATUSES,
});

const PeerNotificationType = builder.objectRef<PeerNotification>('PeerNotification').implement({
  description: 'A message to a peer repository (outbox), delivered by the outbox worker.',
  fields: (t) => ({
    id: t.exposeString('id', { description: 'Also the `eventId` the peer receives.' }),
    kind: t.exposeString('kind', { description: '`externalUpdate` or `registerListener`.' }),
    peerBaseId: t.exposeString('peerBaseId'),
    status: t.exposeString('status', { description: '`pending`, `delivered` or `failed`.' }),
    attempts: t.exposeInt('attempts'),
    nextAttemptAt: t.expose('nextAttemptAt', { type: 'DateTime' }),
    lastError: t.exposeString('lastError', { nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    deliveredAt: t.expose('deliveredAt', { type: 'DateTime', nullable: true }),
    rids: t.stringList({
      description: 'The resources the notification is about.',
      resolve: (message) => ridsOfNotification(message.payload),
    }),
    payload: t.field({ type: 'JSON', resolve: (message) => message.payload }),
  }),
});

const RetriedCountType = builder.simpleObject('RetriedPeerNotifications', {
  fields: (t) => ({ count: t.int() }),
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
    args: { id: t.arg.string({ required: true }) },
    resolve: (_root, args) => retryPeerNotification(args.id),
  }),
  retryFailedPeerNotifications: t.field({
    type: RetriedCountType,
    description: 'Makes every failed notification due now, with a fresh set of attempts.',
    authScopes: { permission: 'managePeerNotifications' },
    resolve: async () => ({ count: await retryFailedPeerNotifications() }),
  }),
}));
