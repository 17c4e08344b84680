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
  description: 'What became of a listening request.',
  fields: (t) => ({
    warnings: t.exposeStringList('warnings', { description: 'rids ignored: not local, or unknown.' }),
  }),
});

const ExternalUpdateResultType = builder.objectRef<ExternalUpdateResult>('ExternalUpdateResult').implement({
  description: 'What a peer’s change did here.',
  fields: (t) => ({
    updatedTrees: t.exposeStringList('updatedTrees', { description: 'rids of the local trees changed.' }),
    duplicate: t.exposeBoolean('duplicate', { description: 'The event id was seen before: nothing done.' }),
  }),
});

const ConfigCheckType = builder.objectRef<ConfigCheck>('ConfigCheck').implement({
  description:
    'The outcome of a configuration check. REST: `{success: true, message, warnings}`, or 400 with ' +
    '`{success: false, errors, warnings}`.',
  fields: (t) => ({
    success: t.exposeBoolean('success', { description: 'The configurations agree.' }),
    message: t.exposeString('message', { description: 'On success, a message to show.', nullable: true }),
    baseId: t.exposeString('baseId', {
      nullable: true,
      description: 'checkLab: the baseId this repository knows the calling lab by.',
    }),
    errors: t.exposeStringList('errors', { description: 'Disagreements: each one fails the check.' }),
    warnings: t.exposeStringList('warnings', {
      description: 'Repositories or labs unknown here: they do not fail the check.',
    }),
  }),
});

const PeerListenerActionEnum = builder.enumType('PeerListenerAction', {
  description: 'What a peer asks of `registerPeerListener`.',
  values: {
    add: { description: 'Start listening: the peer is notified when the resources change.' },
    remove: { description: 'Stop listening.' },
  } as const,
});

const PeerListenerInputType = builder.inputType('PeerListenerInput', {
  description: 'A peer’s listening request (REST: the body of `POST /api/ressource/registerListener`).',
  fields: (t) => ({
    action: t.field({ type: PeerListenerActionEnum, required: true, description: 'Start or stop.' }),
    baseId: t.string({ required: true, description: 'The peer repository asking (a configured peer).' }),
    rids: t.stringList({ required: true, description: 'Local resources, `<baseId>/<oid>`.' }),
  }),
});

const ExternalUpdateInputType = builder.inputType('ExternalUpdateInput', {
  description: 'A peer’s changed resource (REST: the body of `POST /api/ressource/externalUpdate`).',
  fields: (t) => ({
    ref: t.field({
      type: 'JSON',
      required: true,
      description:
        'The peer’s Ref of the changed resource (`aliasOf` its rid, `titre`, `type` required). Kept as JSON: ' +
        'it is the peer’s opaque payload, copied as it is into the trees that hold it.',
    }),
    eventId: t.string({ description: 'Id of the notification; a repeated one is ignored.' }),
  }),
});

const DeclaredListEnum = builder.enumType('DeclaredList', {
  description: 'A list of a configuration check.',
  values: {
    repositories: { description: 'The repositories (REST: `sesatheques`).' },
    labs: { description: 'The labs (REST: `sesalabs`).' },
  } as const,
});

const DeclaredBaseInputType = builder.inputType('DeclaredBaseInput', {
  description: 'A repository or lab as the caller knows it. Both fields are required by the check.',
  fields: (t) => ({
    baseId: t.string({ description: 'Its baseId.' }),
    baseUrl: t.string({ description: 'Its base URL (a final `/` is added when missing).' }),
  }),
});

const malformedListsDescription =
  'Legacy REST bodies only: the lists that were sent but are not lists; each is reported as an error, as the ' +
  'legacy check did.';

const LabConfigurationInputType = builder.inputType('LabConfigurationInput', {
  description: 'A lab’s configuration (REST: the body of `POST /api/checkLab`).',
  fields: (t) => ({
    baseUrl: t.string({ description: 'The calling lab’s base URL (required by the check).' }),
    repositories: t.field({
      type: [DeclaredBaseInputType],
      required: { list: false, items: false },
      description: 'The repositories the lab knows (required by the check). REST: `sesatheques`.',
    }),
    malformedLists: t.field({ type: [DeclaredListEnum], description: malformedListsDescription }),
  }),
});

const RepositoryConfigurationInputType = builder.inputType('RepositoryConfigurationInput', {
  description: 'A peer repository’s configuration (REST: the body of `POST /api/checkRepo`).',
  fields: (t) => ({
    repositories: t.field({
      type: [DeclaredBaseInputType],
      required: { list: false, items: false },
      description: 'The repositories the peer knows (required by the check). REST: `sesatheques`.',
    }),
    labs: t.field({
      type: [DeclaredBaseInputType],
      required: { list: false, items: false },
      description: 'The labs the peer knows. REST: `sesalabs`.',
    }),
    malformedLists: t.field({ type: [DeclaredListEnum], description: malformedListsDescription }),
  }),
});

const BaseTypeEnum = builder.enumType('BaseType', {
  description: 'What a known base URL is.',
  values: {
    sesalab: { description: 'A lab (a learning platform that logs users in).' },
    sesatheque: { description: 'A resource repository: this one or a peer.' },
  } as const,
});

const KnownBaseType = builder.objectRef<KnownBase>('KnownBase').implement({
  description: 'A lab or repository known to this repository.',
  fields: (t) => ({
    baseId: t.exposeString('baseId', { description: 'Its baseId.' }),
    type: t.field({
      description: 'A lab or a repository.',
      type: BaseTypeEnum,
      resolve: (base) => base.type,
    }),
  }),
});

builder.queryFields((t) => ({
  checkLabConfiguration: t.field({
    type: ConfigCheckType,
    description: 'A lab’s configuration (`{baseUrl, sesatheques}`) compared with this repository’s.',
    authScopes: { public: true },
    args: {
      input: t.arg({
        description: 'The lab’s configuration.',
        type: LabConfigurationInputType,
        required: true,
      }),
    },
    resolve: (_root, args, context) => checkLab(context, args.input),
  }),
  checkRepositoryConfiguration: t.field({
    type: ConfigCheckType,
    description: 'A peer repository’s configuration (`{sesatheques, sesalabs?}`) compared with this one’s.',
    authScopes: { public: true },
    args: {
      input: t.arg({
        description: 'The peer’s configuration.',
        type: RepositoryConfigurationInputType,
        required: true,
      }),
    },
    resolve: (_root, args, context) => checkRepo(context, args.input),
  }),
  baseIdOfUrl: t.field({
    type: KnownBaseType,
    description: 'The baseId (and kind) of a lab or repository base URL known here.',
    authScopes: { public: true },
    errors: { types: [InvalidInputError, NotFoundError] },
    args: {
      baseUrl: t.arg.string({ description: 'The base URL (a final `/` may be left out).', required: true }),
    },
    resolve: (_root, args, context) => baseIdOf(context, args.baseUrl),
  }),
  repositoryBaseUrl: t.string({
    description: 'The base URL of this repository or of a peer, by baseId.',
    authScopes: { public: true },
    errors: { types: [NotFoundError], directResult: false },
    args: { baseId: t.arg.string({ description: 'The repository’s baseId.', required: true }) },
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
    args: {
      input: t.arg({ description: 'The peer’s request.', type: PeerListenerInputType, required: true }),
    },
    resolve: (_root, args, context) => registerListener(context, args.input),
  }),
  applyExternalUpdate: t.field({
    type: ExternalUpdateResultType,
    description:
      'A peer’s resource changed (`{ref, eventId?}`): every local tree containing `ref.aliasOf` gets that child replaced.',
    authScopes: { allRights: true },
    errors: { types: [InvalidInputError] },
    args: {
      input: t.arg({ description: 'The peer’s change.', type: ExternalUpdateInputType, required: true }),
    },
    resolve: (_root, args, context) => externalUpdate(context, args.input),
  }),
}));
