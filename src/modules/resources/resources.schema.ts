/**
 * GraphQL: the Resource type (legacy field names, the viewer's rights, resolved authors, groups
 * and relations), its Ref form, reads by every kind of id, and the writes.
 */
import { queryFromInfo } from '@pothos/plugin-prisma';
import DataLoader from 'dataloader';
import { type Context, memo } from '../../context.ts';
import { db } from '../../db/client.ts';
import {
  AuthenticationRequiredError,
  ForbiddenError,
  InvalidInputError,
  UpstreamError,
} from '../../errors.ts';
import { builder } from '../../graphql/builder.ts';
import { errorType } from '../../graphql/errors.ts';
import { cloneResource, createAlias, forkAlias } from './copies.service.ts';
import { ResourceConflictError, ResourceNotFoundError } from './resources.errors.ts';
import { isPublicAndPublished, readableWhere, rightsString } from './resources.policy.ts';
import { factsOf, relationSelections, ridOf, rightsSelection } from './resources.repository.ts';
import {
  addRelations,
  deleteResource,
  findRid,
  type Identified,
  identifyAny,
  identifyByPair,
  type ResourceQuery,
  readResource,
  rightsSubject,
  type SaveResult,
  saveResource,
} from './resources.service.ts';

errorType(ResourceNotFoundError);
errorType(ResourceConflictError);

const label = (person: { nom: string; prenom: string }) => `${person.prenom} ${person.nom}`.trim();

/**
 * Title and type of local resources by oid, batched over a request (resolved relations); null for
 * a target the viewer may not read, so relations never disclose what a resource is.
 */
function summaries(context: Context) {
  return memo(
    context,
    'resources:summaries',
    () =>
      new DataLoader<number, { titre: string; type: string } | null>(async (oids) => {
        const rows = await db.resource.findMany({
          where: { AND: [{ oid: { in: [...oids] } }, readableWhere(await rightsSubject(context))] },
          select: { oid: true, titre: true, type: true },
        });
        const readable = new Map(rows.map((row) => [row.oid, row]));
        return oids.map((oid) => readable.get(oid) ?? null);
      }),
  );
}

const RelationType = builder.simpleObject('ResourceRelation', {
  description: 'A `[predicate, rid]` pair of `relations`.',
  fields: (t) => ({ predicate: t.int(), rid: t.string() }),
});

const ResolvedRelationType = builder.simpleObject('ResolvedRelation', {
  description: 'A relation with the title and type of its target.',
  fields: (t) => ({
    predicate: t.int(),
    rid: t.string(),
    titre: t.string({
      nullable: true,
      description: 'Null when the target is not local or not readable by the viewer.',
    }),
    type: t.string({ nullable: true }),
  }),
});

export interface RefShape {
  aliasOf: string;
  titre: string;
  resume: string;
  description: string;
  commentaires: string;
  type: string;
  categories: number[];
  public: boolean;
  cle: string | null;
  enfants: unknown;
  parametres: unknown;
  droits: string;
}

export const RefType = builder.objectRef<RefShape>('Ref').implement({
  description: 'The reduced form of a resource used in lists and trees. It has no oid.',
  fields: (t) => ({
    aliasOf: t.exposeString('aliasOf', {
      description: 'The source’s rid for an alias, else the resource’s own rid.',
    }),
    titre: t.exposeString('titre'),
    resume: t.exposeString('resume'),
    description: t.exposeString('description'),
    commentaires: t.exposeString('commentaires'),
    type: t.exposeString('type'),
    categories: t.exposeIntList('categories'),
    public: t.exposeBoolean('public', { description: 'Public and published.' }),
    cle: t.exposeString('cle', {
      nullable: true,
      description: 'Read key; only on resources that are not public.',
    }),
    enfants: t.field({
      type: 'JSON',
      nullable: true,
      description: 'Trees only.',
      resolve: (ref) => ref.enfants,
    }),
    parametres: t.field({
      type: 'JSON',
      nullable: true,
      description: '`sequenceModele` only.',
      resolve: (ref) => ref.parametres,
    }),
    droits: t.exposeString('droits', { description: 'R, W, D: read, update, delete.' }),
  }),
});

builder.prismaObject('ResourceAuthor', {
  fields: (t) => ({ position: t.exposeInt('position'), person: t.relation('person') }),
});
builder.prismaObject('ResourceContributor', {
  fields: (t) => ({ position: t.exposeInt('position'), person: t.relation('person') }),
});
builder.prismaObject('ResourceGroup', {
  fields: (t) => ({ position: t.exposeInt('position'), group: t.relation('group') }),
});
builder.prismaObject('ResourceAuthorGroup', {
  fields: (t) => ({ position: t.exposeInt('position'), group: t.relation('group') }),
});

const byPosition = { orderBy: { position: 'asc' } } as const;

export const ResourceType = builder.prismaObject('Resource', {
  fields: (t) => ({
    oid: t.exposeInt('oid'),
    rid: t.string({ resolve: (resource, _args, context) => ridOf(context.config.baseId, resource.oid) }),
    origine: t.exposeString('origine'),
    idOrigine: t.exposeString('idOrigine'),
    aliasOf: t.exposeString('aliasOf', { nullable: true }),
    cle: t.exposeString('cle', { nullable: true }),
    type: t.exposeString('type'),
    titre: t.exposeString('titre'),
    resume: t.exposeString('resume'),
    description: t.exposeString('description'),
    commentaires: t.exposeString('commentaires'),
    parametres: t.expose('parametres', { type: 'JSON', nullable: true }),
    enfants: t.expose('enfants', { type: 'JSON', nullable: true }),
    langue: t.exposeString('langue'),
    publie: t.exposeBoolean('publie'),
    restriction: t.exposeInt('restriction'),
    indexable: t.exposeBoolean('indexable'),
    version: t.exposeInt('version'),
    inc: t.exposeInt('inc'),
    archiveOid: t.exposeInt('archiveOid', { nullable: true }),
    dateCreation: t.expose('dateCreation', { type: 'DateTime' }),
    dateMiseAJour: t.expose('dateMiseAJour', { type: 'DateTime' }),
    categories: t.intList({
      select: relationSelections.categories,
      resolve: (resource) => resource.categories.map((c) => c.categoryId),
    }),
    niveaux: t.stringList({
      select: relationSelections.levels,
      resolve: (resource) => resource.levels.map((l) => l.level),
    }),
    typePedagogiques: t.intList({
      select: relationSelections.pedagogicTypes,
      resolve: (resource) => resource.pedagogicTypes.map((p) => p.typeId),
    }),
    typeDocumentaires: t.intList({
      select: relationSelections.documentaryTypes,
      resolve: (resource) => resource.documentaryTypes.map((d) => d.typeId),
    }),
    auteurs: t.stringList({
      description: 'Pids of the authors, in order.',
      select: relationSelections.authors,
      resolve: (resource) => resource.authors.map((a) => a.person.pid),
    }),
    auteursParents: t.stringList({
      select: relationSelections.parentAuthors,
      resolve: (resource) => resource.parentAuthors.map((a) => a.person.pid),
    }),
    contributeurs: t.stringList({
      select: relationSelections.contributors,
      resolve: (resource) => resource.contributors.map((c) => c.person.pid),
    }),
    groupes: t.stringList({
      description: 'Names of the groups whose members may read it (restriction 2).',
      select: relationSelections.readerGroups,
      resolve: (resource) => resource.readerGroups.map((g) => g.group.nom),
    }),
    groupesAuteurs: t.stringList({
      description: 'Names of the groups whose members may update it.',
      select: relationSelections.authorGroups,
      resolve: (resource) => resource.authorGroups.map((g) => g.group.nom),
    }),
    relations: t.field({
      type: [RelationType],
      select: relationSelections.relations,
      resolve: (resource) => resource.relations.map((r) => ({ predicate: r.predicate, rid: r.targetRid })),
    }),
    authorNames: t.stringList({
      description: '"Prénom Nom" of each author (legacy `_auteurs`).',
      select: relationSelections.authors,
      resolve: (resource) => resource.authors.map((a) => label(a.person)),
    }),
    contributorNames: t.stringList({
      description: '"Prénom Nom" of each contributor (legacy `_contributeurs`).',
      select: relationSelections.contributors,
      resolve: (resource) => resource.contributors.map((c) => label(c.person)),
    }),
    resolvedRelations: t.field({
      type: [ResolvedRelationType],
      description: 'Relations with their targets’ title and type (legacy `_relations`).',
      select: relationSelections.relations,
      resolve: async (resource, _args, context) => {
        const prefix = `${context.config.baseId}/`;
        return Promise.all(
          resource.relations.map(async ({ predicate, targetRid }) => {
            const local = targetRid.startsWith(prefix) ? Number(targetRid.slice(prefix.length)) : Number.NaN;
            const target = Number.isInteger(local) ? await summaries(context).load(local) : null;
            return { predicate, rid: targetRid, titre: target?.titre ?? null, type: target?.type ?? null };
          }),
        );
      },
    }),
    authors: t.relation('authors', { query: byPosition }),
    contributors: t.relation('contributors', { query: byPosition }),
    readerGroups: t.relation('readerGroups', { query: byPosition }),
    authorGroups: t.relation('authorGroups', { query: byPosition }),
    droits: t.string({
      description: 'The viewer’s rights: R, then W (update), then D (delete).',
      select: { ...rightsSelection },
      resolve: async (resource, _args, context) =>
        rightsString(await rightsSubject(context, resource.oid), factsOf(resource)),
    }),
    ref: t.field({
      type: RefType,
      select: { ...rightsSelection, ...relationSelections.categories },
      resolve: async (resource, _args, context) => {
        const facts = factsOf(resource);
        const isPublic = isPublicAndPublished(facts);
        const row = resource as typeof resource & {
          oid: number;
          titre: string;
          resume: string;
          description: string;
          commentaires: string;
          cle: string | null;
          enfants: unknown;
          parametres: unknown;
        };
        return {
          aliasOf: resource.aliasOf ?? ridOf(context.config.baseId, row.oid),
          titre: row.titre,
          resume: row.resume,
          description: row.description,
          commentaires: row.commentaires,
          type: resource.type,
          categories: resource.categories.map((c) => c.categoryId),
          public: isPublic,
          cle: isPublic ? null : row.cle,
          enfants: resource.type === 'arbre' ? (row.enfants ?? []) : null,
          parametres: resource.type === 'sequenceModele' ? row.parametres : null,
          droits: rightsString(await rightsSubject(context, row.oid), facts),
        };
      },
    }),
  }),
});

const SaveResultType = builder.objectRef<SaveResult>('SaveResourceResult').implement({
  fields: (t) => ({
    oid: t.exposeInt('oid'),
    rid: t.exposeString('rid'),
    created: t.exposeBoolean('created'),
    warnings: t.exposeStringList('warnings', {
      description: 'Inconsistencies that did not justify a rejection (unknown property, author or group).',
    }),
    resource: t.prismaField({
      type: 'Resource',
      resolve: (query, result) => db.resource.findUniqueOrThrow({ ...query, where: { oid: result.oid } }),
    }),
  }),
});

const DeletedResourceType = builder.simpleObject('DeletedResource', {
  fields: (t) => ({ oid: t.int(), rid: t.string() }),
});

const readErrors = [ResourceNotFoundError, AuthenticationRequiredError, ForbiddenError];
const writeErrors = [
  InvalidInputError,
  ResourceNotFoundError,
  ResourceConflictError,
  AuthenticationRequiredError,
  ForbiddenError,
];
const planned = (context: Context, info: Parameters<typeof queryFromInfo>[0]['info']) =>
  queryFromInfo({ context, info, typeName: 'Resource' }) as ResourceQuery;
const byOid = (oid: number): Identified => ({ where: { oid }, label: String(oid), byKey: false });

builder.queryFields((t) => ({
  resource: t.field({
    type: ResourceType,
    description: 'A resource by oid. Anonymous callers see only public and published resources.',
    authScopes: { public: true },
    errors: { types: readErrors },
    args: { oid: t.arg.int({ required: true }) },
    resolve: (_root, args, context, info) => readResource(context, byOid(args.oid), planned(context, info)),
  }),
  resourceByOrigin: t.field({
    type: ResourceType,
    description:
      'A resource by origin pair; also a local rid (`<baseId>`, `<oid>`) or a read key (`cle`, `<key>`).',
    authScopes: { public: true },
    errors: { types: readErrors },
    args: { origine: t.arg.string({ required: true }), idOrigine: t.arg.string({ required: true }) },
    resolve: (_root, args, context, info) =>
      readResource(context, identifyByPair(context, args.origine, args.idOrigine), planned(context, info)),
  }),
  resourceById: t.field({
    type: ResourceType,
    description: 'A resource by any id: oid, rid, `origine/idOrigine` or `cle/<key>`.',
    authScopes: { public: true },
    errors: { types: readErrors },
    args: { id: t.arg.string({ required: true }) },
    resolve: (_root, args, context, info) =>
      readResource(context, identifyAny(context, args.id), planned(context, info)),
  }),
  publicResource: t.field({
    type: ResourceType,
    description: 'A public and published resource by oid (anything else: not found).',
    authScopes: { public: true },
    errors: { types: [ResourceNotFoundError] },
    args: { oid: t.arg.int({ required: true }) },
    resolve: (_root, args, context, info) =>
      readResource(context, byOid(args.oid), planned(context, info), { publicOnly: true }),
  }),
  publicResourceByOrigin: t.field({
    type: ResourceType,
    description: 'A public and published resource by origin pair or rid (anything else: not found).',
    authScopes: { public: true },
    errors: { types: [ResourceNotFoundError] },
    args: { origine: t.arg.string({ required: true }), idOrigine: t.arg.string({ required: true }) },
    resolve: (_root, args, context, info) =>
      readResource(context, identifyByPair(context, args.origine, args.idOrigine), planned(context, info), {
        publicOnly: true,
      }),
  }),
  resourceRid: t.string({
    description:
      'The rid of a resource, even a private one: maps an origin pair to a rid, or checks an id exists.',
    authScopes: { public: true },
    errors: { types: [InvalidInputError, ResourceNotFoundError], directResult: false },
    args: { id: t.arg.string({ required: true }) },
    resolve: (_root, args, context) => findRid(context, args.id),
  }),
}));

builder.mutationFields((t) => ({
  saveResource: t.field({
    type: SaveResultType,
    description:
      'Legacy save: creates, overwrites, or merges (`merge`, or when neither `titre` nor `categories` is given). ' +
      '`input` is the legacy resource object; every problem is reported at once.',
    authScopes: { person: true, allRights: true },
    errors: { types: writeErrors },
    args: { input: t.arg({ type: 'JSON', required: true }), merge: t.arg.boolean({ defaultValue: false }) },
    resolve: (_root, args, context) => saveResource(context, args.input, args.merge ?? false),
  }),
  addResourceRelations: t.field({
    type: SaveResultType,
    description: 'Appends `relations` to the resource named by `oid`, `origine` + `idOrigine`, or `ref`.',
    authScopes: { person: true, allRights: true },
    errors: { types: writeErrors },
    args: { input: t.arg({ type: 'JSON', required: true }) },
    resolve: (_root, args, context) => addRelations(context, args.input),
  }),
  deleteResource: t.field({
    type: DeletedResourceType,
    description: 'Deletes a resource by any id (oid, rid, `origine/idOrigine`).',
    authScopes: { person: true, allRights: true },
    errors: { types: [ResourceNotFoundError, ForbiddenError] },
    args: { id: t.arg.string({ required: true }) },
    resolve: (_root, args, context) => deleteResource(context, identifyAny(context, args.id)),
  }),
  cloneResource: t.field({
    type: SaveResultType,
    description:
      'Copies an editable resource (the caller becomes its author), or makes the caller’s alias of another.',
    authScopes: { person: true },
    errors: { types: writeErrors },
    args: { oid: t.arg.int({ required: true }) },
    resolve: (_root, args, context) => cloneResource(context, args.oid),
  }),
  createResourceAlias: t.field({
    type: SaveResultType,
    description: 'Makes (or reuses) the caller’s alias of a resource, of this repository or of a peer.',
    authScopes: { person: true },
    errors: { types: [...writeErrors, UpstreamError] },
    args: { baseId: t.arg.string({ required: true }), oid: t.arg.int({ required: true }) },
    resolve: (_root, args, context) => createAlias(context, args.baseId, args.oid),
  }),
  forkResourceAlias: t.field({
    type: SaveResultType,
    description: 'Turns an alias into a real copy of its source, keeping the alias oid.',
    authScopes: { person: true, allRights: true },
    errors: { types: writeErrors },
    args: { oid: t.arg.int({ required: true }) },
    resolve: (_root, args, context) => forkAlias(context, args.oid),
  }),
}));
