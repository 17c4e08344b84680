/**
 * GraphQL: the protocol between peer repositories (all rights: peers call with an API token) and
 * the configuration checks labs and peers run against this repository (public).
 */
import { InvalidInputError, NotFoundError } from '../../errors.ts';
import { builder } from '../../graphql/builder.ts';
import {
  baseIdOf,
  baseUrlOf,
  type ConfigCheck,
  checkLab,
  checkRepo,
  type KnownBase,
} from './config-checks.service.ts';
import {
  type ExternalUpdateResult,
  externalUpdate,
  type ListenerResult,
  registerListener,
} from './peers.service.ts';

const ListenerResultType = builder.objectRef<ListenerResult>('PeerListenerResult').implement({
  fields: (t) => ({
    warnings: t.exposeStringList('warnings', { description: 'rids ignored: not local, or unknown.' }),
  }),
});

const ExternalUpdateResultType = builder.objectRef<ExternalUpdateResult>('ExternalUpdateResult').implement({
  fields: (t) => ({
    updatedTrees: t.exposeStringList('updatedTrees', { description: 'rids of the local trees changed.' }),
    duplicate: t.exposeBoolean('duplicate', { description: 'The event id was seen before: nothing done.' }),
  }),
});

const ConfigCheckType = builder.objectRef<ConfigCheck>('ConfigCheck').implement({
  fields: (t) => ({
    success: t.exposeBoolean('success'),
    message: t.exposeString('message', { nullable: true }),
    baseId: t.exposeString('baseId', {
      nullable: true,
      description: 'checkLab: the baseId this repository knows the calling lab by.',
    }),
    errors: t.exposeStringList('errors'),
    warnings: t.exposeStringList('warnings'),
  }),
});

const BaseTypeEnum = builder.enumType('BaseType', { values: ['sesalab', 'sesatheque'] as const });

const KnownBaseType = builder.objectRef<KnownBase>('KnownBase').implement({
  fields: (t) => ({
    baseId: t.exposeString('baseId'),
    type: t.field({ type: BaseTypeEnum, resolve: (base) => base.type }),
  }),
});

builder.queryFields((t) => ({
  checkLabConfiguration: t.field({
    type: ConfigCheckType,
    description: 'A lab’s configuration (`{baseUrl, sesatheques}`) compared with this repository’s.',
    authScopes: { public: true },
    args: { input: t.arg({ type: 'JSON', required: true }) },
    resolve: (_root, args, context) => checkLab(context, args.input),
  }),
  checkRepositoryConfiguration: t.field({
    type: ConfigCheckType,
    description: 'A peer repository’s configuration (`{sesatheques, sesalabs?}`) compared with this one’s.',
    authScopes: { public: true },
    args: { input: t.arg({ type: 'JSON', required: true }) },
    resolve: (_root, args, context) => checkRepo(context, args.input),
  }),
  baseIdOfUrl: t.field({
    type: KnownBaseType,
    description: 'The baseId (and kind) of a lab or repository base URL known here.',
    authScopes: { public: true },
    errors: { types: [InvalidInputError, NotFoundError] },
    args: { baseUrl: t.arg.string({ required: true }) },
    resolve: (_root, args, context) => baseIdOf(context, args.baseUrl),
  }),
  repositoryBaseUrl: t.string({
    description: 'The base URL of this repository or of a peer, by baseId.',
    authScopes: { public: true },
    errors: { types: [NotFoundError], directResult: false },
    args: { baseId: t.arg.string({ required: true }) },
    resolve: (_root, args, context) => baseUrlOf(context, args.baseId),
  }),
}));

builder.mutationFields((t) => ({
  registerPeerListener: t.field({
    type: ListenerResultType,
    description:
      'A peer (`baseId`) starts (`action: "add"`) or stops (`"remove"`) listening to local `rids`.',
    authScopes: { allRights: true },
    errors: { types: [InvalidInputError] },
    args: { input: t.arg({ type: 'JSON', required: true }) },
    resolve: (_root, args, context) => registerListener(context, args.input),
  }),
  applyExternalUpdate: t.field({
    type: ExternalUpdateResultType,
    description:
      'A peer’s resource changed (`{ref, eventId?}`): every local tree containing `ref.aliasOf` gets that child replaced.',
    authScopes: { allRights: true },
    errors: { types: [InvalidInputError] },
    args: { input: t.arg({ type: 'JSON', required: true }) },
    resolve: (_root, args, context) => externalUpdate(context, args.input),
  }),
}));
