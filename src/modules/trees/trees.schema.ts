/** GraphQL: a tree in jstree format. */
import { AuthenticationRequiredError, ForbiddenError, InvalidInputError } from '../../errors.ts';
import { builder } from '../../graphql/builder.ts';
import { ResourceNotFoundError } from '../resources/resources.errors.ts';
import { jstree } from './trees.service.ts';

builder.queryFields((t) => ({
  tree: t.field({
    type: ['JSON'],
    description:
      'The tree `ref` (oid, rid or `origine/idOrigine`) as jstree nodes; with `childrenOnly`, its children only. ' +
      'A child tree not given inline has `children: true` and the URL to load it in `data.url`.',
    authScopes: { public: true },
    errors: {
      types: [InvalidInputError, ResourceNotFoundError, AuthenticationRequiredError, ForbiddenError],
      directResult: false,
    },
    args: {
      ref: t.arg.string({ description: 'The tree: oid, rid or `origine/idOrigine`.', required: true }),
      childrenOnly: t.arg.boolean({
        description: 'Only the children of the tree, not the tree node itself.',
        defaultValue: false,
      }),
    },
    resolve: (_root, args, context) => jstree(context, args.ref, args.childrenOnly ?? false),
  }),
}));
