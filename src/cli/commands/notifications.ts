/** `rrs notifications list|retry`: peer notifications (the outbox) still pending or given up on. */
import type { Command } from 'commander';
import {
  listPeerNotifications,
  NOTIFICATION_STATUSES,
  type NotificationStatus,
  type PeerNotification,
  retryFailedPeerNotifications,
  retryPeerNotification,
  ridsOfNotification,
} from '../../modules/peers/notifications.service.ts';
import { output, usage, withService } from '../context.ts';

const when = (date: Date | null) => (date ? date.toISOString().slice(0, 19).replace('T', ' ') : '—');

function describe(message: PeerNotification): string {
  return [
    `${message.id}  ${message.status.padEnd(7)} ${message.kind} → ${message.peerBaseId}  (${ridsOfNotification(message.payload).join(', ') || 'no rid'})`,
    `    attempts ${message.attempts}, created ${when(message.createdAt)}, next attempt ${when(message.nextAttemptAt)}`,
    ...(message.lastError ? [`    last error: ${message.lastError}`] : []),
  ].join('\n');
}

export function registerNotificationsCommands(program: Command): void {
  const notifications = program
    .command('notifications')
    .description('list and retry notifications to peer repositories');

  notifications
    .command('list')
    .description('notifications not delivered yet (pending) or given up on (failed), oldest first')
    .option('--status <status>', `only ${NOTIFICATION_STATUSES.join(' or ')}`)
    .option('--limit <n>', 'at most this many', '100')
    .action(async (options: { status?: string; limit: string }, command: Command) => {
      if (!/^\d+$/.test(options.limit)) usage(command, `--limit ${options.limit}: a number`);
      if (
        options.status !== undefined &&
        !NOTIFICATION_STATUSES.includes(options.status as NotificationStatus)
      ) {
        usage(command, `--status ${options.status}: ${NOTIFICATION_STATUSES.join(' or ')}`);
      }
      await withService(async () => {
        const listed = await listPeerNotifications({
          status: options.status as NotificationStatus | undefined,
          limit: Number(options.limit),
        });
        output(command, listed, () =>
          listed.length === 0 ? 'No notification waiting or failed.' : listed.map(describe).join('\n'),
        );
      });
    });

  notifications
    .command('retry')
    .description('make a notification (or every failed one) due now; the running service delivers it')
    .argument('[id]', 'the notification’s id (its eventId)')
    .option('--all-failed', 'retry every failed notification')
    .action(async (id: string | undefined, options: { allFailed?: boolean }, command: Command) => {
      if ((id === undefined) === !options.allFailed)
        usage(command, 'give either a notification id or --all-failed');
      await withService(async () => {
        if (id !== undefined) {
          const retried = await retryPeerNotification(id);
          output(command, retried, () => `due now: ${describe(retried)}`);
          return;
        }
        const count = await retryFailedPeerNotifications();
        output(command, { count }, () => `${count} failed notification${count === 1 ? '' : 's'} due again`);
      });
    });
}
