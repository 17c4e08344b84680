/**
 * GraphQL: the Resource type (legacy field names, the viewer's rights, resolved authors, groups
 * and relations), its Ref form, reads by every kind of id, and the writes. A Resource is a
 * document loaded in one statement (resource-documents.ts); its fields only read it.
 */
import {
  type FieldNode,
  type FragmentDefinitionNode,
  GraphQLIncludeDirective,
  type GraphQLResolveInfo,
  GraphQLSkipDirective,
  getDirectiveValues,
  Kind,
  type SelectionSetNode,
} from 'graphql';
import type { Context } from '../../context.ts';
import {
  AuthenticationRequiredError,
  ForbiddenError,
  InvalidInputError,
  UpstreamError,
} from '../../errors.ts';
import { builder } from '../../graphql/builder.ts';
import { errorType } from '../../graphql/errors.ts';
import { GroupType } from '../groups/groups.schema.ts';
import { PersonType } from '../persons/persons.schema.ts';
import { cloneResource, createAlias, forkAlias } from './copies.service.ts';
import {
  type DocumentParts,
  type GroupSummary,
  loadDocument,
  type PersonSummary,
  type ResourceDocument,
  SUMMARY_COLUMNS,
} from './resource-documents.ts';
import {
  legacyResourceBody,
  ResourceInputType,
  ResourceRelationsInputType,
} from './resource-inputs.schema.ts';
import { ResourceConflictError, ResourceNotFoundError } from './resources.errors.ts';
import { canRead, isPublicAndPublished, rightsString } from './resources.policy.ts';
import { localOid, ridOf } from './resources.repository.ts';
import {
  addRelations,
  deleteResource,
  findRid,
  type Identified,
  identifyAny,
  identifyByPair,
  readResource,
  rightsSubject,
  type SaveResult,
  saveResource,
} from './resources.service.ts';

errorType(ResourceNotFoundError);
errorType(ResourceConflictError);

/** A part of the document the fields of a request needed: loaded, or a loader forgot it (a bug). */
function loaded<T>(value: T | undefined, part: keyof DocumentParts): T {
  if (value === undefined) throw new Error(`resource document loaded without its ${part}`);
  return value;
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

interface Positioned<T> {
  position: number;
  value: T;
}
const positioned = <T>(values: T[]): Positioned<T>[] =>
  values.map((value, position) => ({ position, value }));

const personLink = (name: string) =>
  builder.objectRef<Positioned<PersonSummary>>(name).implement({
    fields: (t) => ({
      position: t.exposeInt('position'),
      // The summary holds pid and names; other person fields are loaded when asked.
      person: t.field({ type: PersonType, resolve: ({ value }) => value as never }),
    }),
  });
const groupLink = (name: string) =>
  builder.objectRef<Positioned<GroupSummary>>(name).implement({
    fields: (t) => ({
      position: t.exposeInt('position'),
      group: t.field({ type: GroupType, resolve: ({ value }) => value as never }),
    }),
  });
const ResourceAuthorType = personLink('ResourceAuthor');
const ResourceContributorType = personLink('ResourceContributor');
const ResourceGroupType = groupLink('ResourceGroup');
const ResourceAuthorGroupType = groupLink('ResourceAuthorGroup');

/** The Ref form of a resource, with the viewer's rights. */
export async function refOf(context: Context, document: ResourceDocument): Promise<RefShape> {
  const isPublic = isPublicAndPublished(document.facts);
  return {
    aliasOf: document.aliasOf ?? ridOf(context.config.baseId, document.oid),
    titre: document.titre,
    resume: document.resume,
    description: document.description,
    commentaires: document.commentaires,
    type: document.type,
    categories: loaded(document.categories, 'links'),
    public: isPublic,
    cle: isPublic ? null : document.cle,
    enfants: document.type === 'arbre' ? (document.enfants ?? []) : null,
    parametres: document.type === 'sequenceModele' ? document.parametres : null,
    droits: rightsString(await rightsSubject(context, document.oid), document.facts),
  };
}

export const ResourceType = builder.objectRef<ResourceDocument>('Resource').implement({
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
    parametres: t.field({ type: 'JSON', nullable: true, resolve: (resource) => resource.parametres }),
    enfants: t.field({ type: 'JSON', nullable: true, resolve: (resource) => resource.enfants }),
    langue: t.exposeString('langue'),
    publie: t.exposeBoolean('publie'),
    restriction: t.exposeInt('restriction'),
    indexable: t.exposeBoolean('indexable'),
    version: t.exposeInt('version'),
    inc: t.exposeInt('inc'),
    archiveOid: t.exposeInt('archiveOid', { nullable: true }),
    dateCreation: t.expose('dateCreation', { type: 'DateTime' }),
    dateMiseAJour: t.expose('dateMiseAJour', { type: 'DateTime' }),
    categories: t.intList({ resolve: (resource) => loaded(resource.categories, 'links') }),
    niveaux: t.stringList({ resolve: (resource) => loaded(resource.niveaux, 'links') }),
    typePedagogiques: t.intList({ resolve: (resource) => loaded(resource.typePedagogiques, 'links') }),
    typeDocumentaires: t.intList({ resolve: (resource) => loaded(resource.typeDocumentaires, 'links') }),
    auteursParents: t.stringList({
      resolve: (resource) => loaded(resource.parentAuthors, 'people').map((a) => a.pid),
    }),
    relations: t.field({
      type: [RelationType],
      resolve: (resource) =>
        loaded(resource.relations, 'links').map((r) => ({ predicate: r.predicate, rid: r.targetRid })),
    }),
    resolvedRelations: t.field({
      type: [ResolvedRelationType],
      description: 'Relations with their targets’ title and type (legacy `_relations`).',
      resolve: async (resource, _args, context) => {
        const targets = loaded(resource.targets, 'targets');
        return Promise.all(
          loaded(resource.relations, 'links').map(async ({ predicate, targetRid }) => {
            const oid = localOid(context.config.baseId, targetRid);
            const target = oid === undefined ? undefined : targets.get(oid);
            // A relation never discloses what a target the viewer may not read is.
            const shown = target && canRead(await rightsSubject(context), target.facts) ? target : null;
            return { predicate, rid: targetRid, titre: shown?.titre ?? null, type: shown?.type ?? null };
          }),
        );
      },
    }),
    authors: t.field({
      type: [ResourceAuthorType],
      resolve: (resource) => positioned(loaded(resource.authors, 'people')),
    }),
    contributors: t.field({
      type: [ResourceContributorType],
      resolve: (resource) => positioned(loaded(resource.contributors, 'people')),
    }),
    readerGroups: t.field({
      type: [ResourceGroupType],
      resolve: (resource) => positioned(loaded(resource.readerGroups, 'groups')),
    }),
    authorGroups: t.field({
      type: [ResourceAuthorGroupType],
      resolve: (resource) => positioned(loaded(resource.authorGroups, 'groups')),
    }),
    droits: t.string({
      description: 'The viewer’s rights: R, then W (update), then D (delete).',
      resolve: async (resource, _args, context) =>
        rightsString(await rightsSubject(context, resource.oid), resource.facts),
    }),
    ref: t.field({ type: RefType, resolve: (resource, _args, context) => refOf(context, resource) }),
  }),
});

/** Which document parts the Resource fields of a selection need. */
const PARTS_OF_FIELD: Record<string, DocumentParts> = {
  categories: { links: true },
  niveaux: { links: true },
  typePedagogiques: { links: true },
  typeDocumentaires: { links: true },
  relations: { links: true },
  // A Ref carries cle, enfants and parametres.
  ref: { links: true, detail: true },
  resolvedRelations: { links: true, targets: true },
  auteursParents: { people: true },
  authors: { people: true },
  contributors: { people: true },
  readerGroups: { groups: true },
  authorGroups: { groups: true },
};

/**
 * Resource fields a document's summary columns answer (fields of PARTS_OF_FIELD need their parts); any
 * other field asks for the `detail` part, so a field added later is never left without its column.
 */
const SUMMARY_FIELDS = new Set(['__typename', 'rid', 'droits', ...SUMMARY_COLUMNS]);

/**
 * The document parts the resources under `path` (e.g. `['items']`) need, from the fields the
 * operation selects there (through fragments, `@include` and `@skip`). A light list asks for none.
 */
export function documentPartsFor(info: GraphQLResolveInfo, path: readonly string[]): DocumentParts {
  const parts: DocumentParts = {};
  const variables = info.variableValues;
  const included = (node: FieldNode | { directives?: FieldNode['directives'] }) =>
    !getDirectiveValues(GraphQLSkipDirective, node as FieldNode, variables)?.if &&
    getDirectiveValues(GraphQLIncludeDirective, node as FieldNode, variables)?.if !== false;
  const visit = (selectionSet: SelectionSetNode | undefined, depth: number, seen: Set<string>) => {
    for (const selection of selectionSet?.selections ?? []) {
      if (!included(selection)) continue;
      if (selection.kind === Kind.INLINE_FRAGMENT) visit(selection.selectionSet, depth, seen);
      else if (selection.kind === Kind.FRAGMENT_SPREAD) {
        const fragment: FragmentDefinitionNode | undefined = info.fragments[selection.name.value];
        if (fragment && !seen.has(fragment.name.value))
          visit(fragment.selectionSet, depth, new Set([...seen, fragment.name.value]));
      } else if (depth < path.length) {
        if (selection.name.value === path[depth]) visit(selection.selectionSet, depth + 1, seen);
      } else {
        const name = selection.name.value;
        if (Object.hasOwn(PARTS_OF_FIELD, name)) Object.assign(parts, PARTS_OF_FIELD[name]);
        else if (!SUMMARY_FIELDS.has(name)) parts.detail = true;
      }
    }
  };
  for (const node of info.fieldNodes) visit(node.selectionSet, 0, new Set());
  return parts;
}

const SaveResultType = builder.objectRef<SaveResult>('SaveResourceResult').implement({
  fields: (t) => ({
    oid: t.exposeInt('oid'),
    rid: t.exposeString('rid'),
    created: t.exposeBoolean('created'),
    warnings: t.exposeStringList('warnings', {
      description: 'Inconsistencies that did not justify a rejection (unknown property, author or group).',
    }),
    resource: t.field({
      type: ResourceType,
      resolve: async (result, _args, context) => {
        const document = await loadDocument({ oid: result.oid }, context.config.baseId);
        if (!document) throw new ResourceNotFoundError(result.oid);
        return document;
      },
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
const byOid = (oid: number): Identified => ({ where: { oid }, label: String(oid), byKey: false });

builder.queryFields((t) => ({
  resource: t.field({
    type: ResourceType,
    description: 'A resource by oid. Anonymous callers see only public and published resources.',
    authScopes: { public: true },
    errors: { types: readErrors },
    args: { oid: t.arg.int({ required: true }) },
    resolve: (_root, args, context) => readResource(context, byOid(args.oid)),
  }),
  resourceByOrigin: t.field({
    type: ResourceType,
    description:
      'A resource by origin pair; also a local rid (`<baseId>`, `<oid>`) or a read key (`cle`, `<key>`).',
    authScopes: { public: true },
    errors: { types: readErrors },
    args: { origine: t.arg.string({ required: true }), idOrigine: t.arg.string({ required: true }) },
    resolve: (_root, args, context) =>
      readResource(context, identifyByPair(context, args.origine, args.idOrigine)),
  }),
  resourceById: t.field({
    type: ResourceType,
    description: 'A resource by any id: oid, rid, `origine/idOrigine` or `cle/<key>`.',
    authScopes: { public: true },
    errors: { types: readErrors },
    args: { id: t.arg.string({ required: true }) },
    resolve: (_root, args, context) => readResource(context, identifyAny(context, args.id)),
  }),
  publicResource: t.field({
    type: ResourceType,
    description: 'A public and published resource by oid (anything else: not found).',
    authScopes: { public: true },
    errors: { types: [ResourceNotFoundError] },
    args: { oid: t.arg.int({ required: true }) },
    resolve: (_root, args, context) => readResource(context, byOid(args.oid), { publicOnly: true }),
  }),
  publicResourceByOrigin: t.field({
    type: ResourceType,
    description: 'A public and published resource by origin pair or rid (anything else: not found).',
    authScopes: { public: true },
    errors: { types: [ResourceNotFoundError] },
    args: { origine: t.arg.string({ required: true }), idOrigine: t.arg.string({ required: true }) },
    resolve: (_root, args, context) =>
      readResource(context, identifyByPair(context, args.origine, args.idOrigine), { publicOnly: true }),
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
      'Creates, overwrites, or merges (`merge`, or when neither `titre` nor `categories` is given) a resource; ' +
      'every problem is reported at once. REST: `POST /api/ressource`.',
    authScopes: { person: true, allRights: true },
    errors: { types: writeErrors },
    args: {
      input: t.arg({ type: ResourceInputType, required: true }),
      merge: t.arg.boolean({
        defaultValue: false,
        description: 'Merge into the stored resource instead of overwriting it. REST: `merge` or `partial`.',
      }),
    },
    resolve: (_root, args, context) =>
      saveResource(context, legacyResourceBody(args.input), args.merge ?? false),
  }),
  addResourceRelations: t.field({
    type: SaveResultType,
    description: 'Appends `relations` to the resource named by `oid`, `origine` + `idOrigine`, or `ref`.',
    authScopes: { person: true, allRights: true },
    errors: { types: writeErrors },
    args: { input: t.arg({ type: ResourceRelationsInputType, required: true }) },
    resolve: (_root, args, context) => addRelations(context, legacyResourceBody(args.input)),
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
