/** GraphQL: helpers for lab pages (forwarding a deferred post, recording a client's error). */
import { ForbiddenError, InvalidInputError, UpstreamError } from '../../errors.ts';
import { builder } from '../../graphql/builder.ts';
import { deferPost, notifyError } from './lab-helpers.service.ts';

builder.mutationFields((t) => ({
  deferPost: t.boolean({
    description:
      'Posts `input` (an object, or a string holding JSON) without its `deferUrl` to `deferUrl`, which must ' +
      'lie under a configured lab’s baseUrl; anything else is refused before any network call.',
    authScopes: { public: true },
    errors: { types: [InvalidInputError, ForbiddenError, UpstreamError], directResult: false },
    args: { input: t.arg({ type: 'JSON', required: true }) },
    resolve: (_root, args, context) => deferPost(context, args.input),
  }),
  notifyError: t.boolean({
    description: 'Logs an error a client reports (on the data-error stream when it has a `rid`).',
    authScopes: { public: true },
    args: { input: t.arg({ type: 'JSON', required: true }) },
    resolve: (_root, args, context) => notifyError(context, args.input),
  }),
}));
