/** `rrs token issue|list|revoke`: API tokens kept in the database, beside configured `apiTokens`. */
import type { Command } from 'commander';
import { type ApiTokenSummary, issueApiToken, listApiTokens, revokeApiToken } from '../../auth/api-tokens.ts';
import { output, usage, withService } from '../context.ts';

const day = (date: Date | null) => (date ? date.toISOString().slice(0, 16).replace('T', ' ') : '—');

function line(token: ApiTokenSummary): string {
  return `${String(token.id).padStart(4)}  ${token.name.padEnd(24)} ${token.status.padEnd(8)} created ${day(token.createdAt)}  expires ${day(token.expiresAt)}${token.revokedAt ? `  revoked ${day(token.revokedAt)}` : ''}`;
}

export function registerTokenCommands(program: Command): void {
  const token = program.command('token').description('issue, list and revoke API tokens (X-ApiToken)');

  token
    .command('issue')
    .description('issue a token with all rights; it is printed once and stored only as a digest')
    .requiredOption('--name <label>', 'what the token is for (unique), e.g. ci or admin-laptop')
    .option('--expires <days>', 'expires after this many days (never by default)')
    .action(async (options: { name: string; expires?: string }, command: Command) => {
      if (options.expires !== undefined && !/^\d+$/.test(options.expires)) {
        usage(command, `--expires ${options.expires}: a whole number of days`);
      }
      await withService(async () => {
        const issued = await issueApiToken({
          name: options.name,
          expiresInDays: options.expires === undefined ? undefined : Number(options.expires),
        });
        output(command, issued, () =>
          [
            `Issued token ${issued.id} "${issued.name}"${issued.expiresAt ? `, expires ${day(issued.expiresAt)} UTC` : ''}.`,
            'Copy it now, it will not be shown again:',
            '',
            `  ${issued.token}`,
            '',
            `Send it as the X-ApiToken header. Revoke it with: npx rrs token revoke ${issued.name}`,
          ].join('\n'),
        );
      });
    });

  token
    .command('list')
    .description('list issued tokens (never their secrets)')
    .action(async (_options: unknown, command: Command) =>
      withService(async () => {
        const tokens = await listApiTokens();
        output(command, tokens, () =>
          tokens.length === 0
            ? 'No issued token (npx rrs token issue --name <label>).'
            : tokens.map(line).join('\n'),
        );
      }),
    );

  token
    .command('revoke')
    .description('revoke a token by id or name: refused at once by every instance')
    .argument('<id|name>', 'the token’s id or name')
    .action(async (idOrName: string, _options: unknown, command: Command) =>
      withService(async () => {
        const revoked = await revokeApiToken(idOrName);
        output(command, revoked, () => `revoked ${line(revoked).trim()}`);
      }),
    );
}
