/** GraphQL: helpers for lab pages (forwarding a deferred post, recording a client's error). */
import { ForbiddenError, InvalidInputError, UpstreamError } from '../../errors.ts';
import { builder } from '../../graphql/builder.ts';
import { deferPost, notifyError } from './lab-helpers.service.ts';

const DeferPostInputType = builder.inputType('DeferPostInput', {
  description: 'A post a lab page could not send itself (REST: the body of `POST /api/deferPost`).',
  fields: (t) => ({
    deferUrl: t.string({
      description: 'Where to post: under a configured lab’s baseUrl, or `/api/notifyError` (required).',
    }),
    payload: t.field({
      type: 'JSON',
      description:
        'The object posted as JSON to `deferUrl` (REST: every other property of the body). Free-form: it ' +
        'belongs to the lab page and the lab, not to this repository.',
    }),
  }),
});

const ClientErrorInputType = builder.inputType('ClientErrorInput', {
  description: 'An error a client reports (REST: the body of `POST /api/notifyError`).',
  fields: (t) => ({
    rid: t.string({ description: 'The resource concerned: the report goes to the data-error stream.' }),
    report: t.field({
      type: 'JSON',
      description: 'What the client reports, logged as it is: free-form by nature (any client, any error).',
    }),
  }),
});

builder.mutationFields((t) => ({
  deferPost: t.boolean({
    description:
      'Posts `payload` to `deferUrl`, which must lie under a configured lab’s baseUrl; anything else is ' +
      'refused before any network call.',
    authScopes: { public: true },
    errors: { types: [InvalidInputError, ForbiddenError, UpstreamError], directResult: false },
    args: {
      input: t.arg({ description: 'Where to post, and what.', type: DeferPostInputType, required: true }),
    },
    resolve: (_root, args, context) => deferPost(context, args.input),
  }),
  notifyError: t.boolean({
    description: 'Logs an error a client reports (on the data-error stream when it has a `rid`).',
    authScopes: { public: true },
    args: { input: t.arg({ description: 'The report.', type: ClientErrorInputType, required: true }) },
    resolve: (_root, args, context) => notifyError(context, args.input),
  }),
}));
