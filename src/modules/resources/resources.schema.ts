/**
 * GraphQL: the Resource type (legacy field names, the viewer's rights, resolved authors, groups
 * and relations), its Ref form, reads by every kind of id, and the writes. A Resource is a
 * document loaded in one statement (src/read-model/documents.ts); its fields only read it.
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
import { resourceFields } from '../../catalogue/resource-fields.ts';
import type { Context } from '../../context.ts';
import {
  AuthenticationRequiredError,
  ForbiddenError,
  InvalidInputError,
  UpstreamError,
} from '../../errors.ts';
import { type BuilderTypes, builder } from '../../graphql/builder.ts';
import { errorType } from '../../graphql/errors.ts';
import { SCALAR_OF_KIND } from '../../graphql/scalars.ts';
import {
  type DocumentParts,
  type GroupSummary,
  loadDocument,
  type PersonSummary,
  type ResourceDocument,
  SUMMARY_COLUMNS,
} from '../../read-model/documents.ts';
import { GroupType } from '../groups/groups.schema.ts';
import { PersonType } from '../persons/persons.schema.ts';
import { cloneResource, createAlias, forkAlias } from './copies.service.ts';
import { type RefShape, refFields } from './ref.ts';
import { ResourceInputType, ResourceRelationsInputType } from './resource-inputs.schema.ts';
import { ResourceConflictError, ResourceNotFoundError } from './resources.errors.ts';
import { canRead, rightsString } from './resources.policy.ts';
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
  fields: (t) => ({
    predicate: t.int({ description: 'The relation type (a key of the relation vocabulary).' }),
    rid: t.string({ description: 'The target resource, `<baseId>/<oid>`.' }),
  }),
});

const ResolvedRelationType = builder.simpleObject('ResolvedRelation', {
  description: 'A relation with the title and type of its target.',
  fields: (t) => ({
    predicate: t.int({ description: 'The relation type (a key of the relation vocabulary).' }),
    rid: t.string({ description: 'The target resource, `<baseId>/<oid>`.' }),
    titre: t.string({
      nullable: true,
      description: 'Null when the target is not local or not readable by the viewer.',
    }),
    type: t.string({ description: 'The target’s type; null as `titre` is.', nullable: true }),
  }),
});

export const RefType = builder.objectRef<RefShape>('Ref').implement({
  description: 'The reduced form of a resource used in lists and trees. It has no oid.',
  fields: (t) => ({
    aliasOf: t.exposeString('aliasOf', {
      description: 'The source’s rid for an alias, else the resource’s own rid.',
    }),
    titre: t.exposeString('titre', { description: 'Title.' }),
    resume: t.exposeString('resume', { description: 'Summary.' }),
    description: t.exposeString('description', { description: 'Description.' }),
    commentaires: t.exposeString('commentaires', { description: 'Comments for editors.' }),
    type: t.exposeString('type', { description: 'Resource type (`arbre`, `url`, `em`, …).' }),
    categories: t.exposeIntList('categories', { description: 'Category keys.' }),
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

const personLink = (name: string, description: string) =>
  builder.objectRef<Positioned<PersonSummary>>(name).implement({
    description,
    fields: (t) => ({
      position: t.exposeInt('position', { description: 'Rank in the list, from 0.' }),
      // The summary holds pid and names; other person fields are loaded when asked.
      person: t.field({
        type: PersonType,
        description: 'The person.',
        resolve: ({ value }) => value,
      }),
    }),
  });
const groupLink = (name: string, description: string) =>
  builder.objectRef<Positioned<GroupSummary>>(name).implement({
    description,
    fields: (t) => ({
      position: t.exposeInt('position', { description: 'Rank in the list, from 0.' }),
      group: t.field({ type: GroupType, description: 'The group.', resolve: ({ value }) => value }),
    }),
  });
const ResourceAuthorType = personLink('ResourceAuthor', 'An author of a resource, with its rank.');
const ResourceContributorType = personLink(
  'ResourceContributor',
  'A contributor to a resource, with its rank.',
);
const ResourceGroupType = groupLink(
  'ResourceGroup',
  'A group whose members may read a resource, with its rank.',
);
const ResourceAuthorGroupType = groupLink(
  'ResourceAuthorGroup',
  'A group whose members may update a resource, with its rank.',
);

/** The Ref form of a resource, with the viewer's rights. */
export function refOf(context: Context, document: ResourceDocument): RefShape {
  return {
    ...refFields(document, loaded(document.categories, 'links'), context.config.baseId),
    droits: rightsString(rightsSubject(context, document.oid), document.facts),
  };
}

type ResourceFieldBuilder = PothosSchemaTypes.ObjectFieldBuilder<BuilderTypes, ResourceDocument>;

/**
 * The catalogue's fields (src/catalogue/resource-fields.ts) on the Resource type, each read off the
 * document and typed by its kind: a field added there is a field here. Exposed, so the schema
 * gives them no resolver: the compiled executor reads each property in line, where a resolver
 * costs a call with its info, path and closures per field and item (a light list of 500 allocated
 * 2.7 MB per request, 1.1 MB of it in those calls: docs/performance.md).
 */
function catalogueFields(t: ResourceFieldBuilder) {
  return Object.fromEntries(
    resourceFields.map(([name, field]) => [
      name,
      // The document holds the field as its kind says (test/schema/resource-fields.test.ts).
      t.expose(name as never, {
        type: SCALAR_OF_KIND[field.kind],
        nullable: field.nullable as never,
        description: field.description,
      }),
    ]),
  );
}

export const ResourceType = builder.objectRef<ResourceDocument>('Resource').implement({
  description:
    'An educational resource, with the viewer’s rights. Field names are the legacy ones except where a ' +
    'concept has a richer GraphQL form (see README, GraphQL and REST names).',
  fields: (t) => ({
    ...catalogueFields(t),
    rid: t.string({
      description: 'Id across repositories: `<baseId>/<oid>`.',
      resolve: (resource, _args, context) => ridOf(context.config.baseId, resource.oid),
    }),
    categories: t.intList({
      description: 'Category keys.',
      resolve: (resource) => loaded(resource.categories, 'links'),
    }),
    niveaux: t.stringList({
      description: 'School level keys.',
      resolve: (resource) => loaded(resource.niveaux, 'links'),
    }),
    typePedagogiques: t.intList({
      description: 'Pedagogical type keys.',
      resolve: (resource) => loaded(resource.typePedagogiques, 'links'),
    }),
    typeDocumentaires: t.intList({
      description: 'Documentary type keys.',
      resolve: (resource) => loaded(resource.typeDocumentaires, 'links'),
    }),
    relations: t.field({
      description: 'Relations to other resources. REST: `[predicate, rid]` pairs.',
      type: [RelationType],
      resolve: (resource) =>
        loaded(resource.relations, 'links').map((r) => ({ predicate: r.predicate, rid: r.targetRid })),
    }),
    resolvedRelations: t.field({
      type: [ResolvedRelationType],
      description: 'Relations with their targets’ title and type (legacy `_relations`).',
      // Synchronous (see `droits`): the targets came with the document.
      resolve: (resource, _args, context) => {
        const targets = loaded(resource.targets, 'targets');
        return loaded(resource.relations, 'links').map(({ predicate, targetRid }) => {
          const oid = localOid(context.config.baseId, targetRid);
          const target = oid === undefined ? undefined : targets.get(oid);
          // A relation never discloses what a target the viewer may not read is.
          const shown = target && canRead(rightsSubject(context), target.facts) ? target : null;
          return { predicate, rid: targetRid, titre: shown?.titre ?? null, type: shown?.type ?? null };
        });
      },
    }),
    droits: t.string({
      description: 'The viewer’s rights: R, then W (update), then D (delete).',
      // Synchronous, like every field of a list item: an item with a promise among its fields
      // makes the executor wait on each one, which cost lists of 500 more than the rights did.
      resolve: (resource, _args, context) =>
        rightsString(rightsSubject(context, resource.oid), resource.facts),
    }),
    ref: t.field({
      description: 'The reduced form used in lists and trees.',
      type: RefType,
      resolve: (resource, _args, context) => refOf(context, resource),
    }),
  }),
});

/** The people and groups a resource names, each in its order (the `people` and `groups` parts). */
builder.objectFields(ResourceType, (t) => ({
  auteursParents: t.stringList({
    description: 'Pids of the authors of the resource this one derives from.',
    resolve: (resource) => loaded(resource.parentAuthors, 'people').map((a) => a.pid),
  }),
  authors: t.field({
    description:
      'The authors, in order. REST: `auteurs` (their pids), `_auteurs` (their names, `format=full`).',
    type: [ResourceAuthorType],
    resolve: (resource) => positioned(loaded(resource.authors, 'people')),
  }),
  contributors: t.field({
    description:
      'The contributors, in order. REST: `contributeurs` (pids), `_contributeurs` (names, `format=full`).',
    type: [ResourceContributorType],
    resolve: (resource) => positioned(loaded(resource.contributors, 'people')),
  }),
  readerGroups: t.field({
    description: 'Groups whose members may read it (restriction 2), in order. REST: `groupes` (their names).',
    type: [ResourceGroupType],
    resolve: (resource) => positioned(loaded(resource.readerGroups, 'groups')),
  }),
  authorGroups: t.field({
    description: 'Groups whose members may update it, in order. REST: `groupesAuteurs` (their names).',
    type: [ResourceAuthorGroupType],
    resolve: (resource) => positioned(loaded(resource.authorGroups, 'groups')),
  }),
}));

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
  description: 'A resource written by a save, a copy or an alias.',
  fields: (t) => ({
    oid: t.exposeInt('oid', { description: 'The resource saved. REST: `oid`.' }),
    rid: t.exposeString('rid', { description: 'Its rid.' }),
    created: t.exposeBoolean('created', { description: 'Created by this call (rather than updated).' }),
    warnings: t.exposeStringList('warnings', {
      description: 'Inconsistencies that did not justify a rejection (unknown property, author or group).',
    }),
    resource: t.field({
      description: 'The resource as stored now.',
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
  description: 'A resource that was deleted.',
  fields: (t) => ({
    oid: t.int({ description: 'The oid the resource had.' }),
    rid: t.string({ description: 'The rid the resource had.' }),
  }),
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
    args: { oid: t.arg.int({ description: 'The resource’s oid.', required: true }) },
    resolve: (_root, args, context) => readResource(context, byOid(args.oid)),
  }),
  resourceByOrigin: t.field({
    type: ResourceType,
    description:
      'A resource by origin pair; also a local rid (`<baseId>`, `<oid>`) or a read key (`cle`, `<key>`).',
    authScopes: { public: true },
    errors: { types: readErrors },
    args: {
      origine: t.arg.string({ description: 'The origin, or a baseId, or `cle`.', required: true }),
      idOrigine: t.arg.string({
        description: 'The id in that origin, or an oid, or a read key.',
        required: true,
      }),
    },
    resolve: (_root, args, context) =>
      readResource(context, identifyByPair(context, args.origine, args.idOrigine)),
  }),
  resourceById: t.field({
    type: ResourceType,
    description: 'A resource by any id: oid, rid, `origine/idOrigine` or `cle/<key>`.',
    authScopes: { public: true },
    errors: { types: readErrors },
    args: {
      id: t.arg.string({ description: 'An oid, a rid, `origine/idOrigine` or `cle/<key>`.', required: true }),
    },
    resolve: (_root, args, context) => readResource(context, identifyAny(context, args.id)),
  }),
  publicResource: t.field({
    type: ResourceType,
    description: 'A public and published resource by oid (anything else: not found).',
    authScopes: { public: true },
    errors: { types: [ResourceNotFoundError] },
    args: { oid: t.arg.int({ description: 'The resource’s oid.', required: true }) },
    resolve: (_root, args, context) => readResource(context, byOid(args.oid), { publicOnly: true }),
  }),
  publicResourceByOrigin: t.field({
    type: ResourceType,
    description: 'A public and published resource by origin pair or rid (anything else: not found).',
    authScopes: { public: true },
    errors: { types: [ResourceNotFoundError] },
    args: {
      origine: t.arg.string({ description: 'The origin (or a baseId).', required: true }),
      idOrigine: t.arg.string({ description: 'The id in that origin (or an oid).', required: true }),
    },
    resolve: (_root, args, context) =>
      readResource(context, identifyByPair(context, args.origine, args.idOrigine), { publicOnly: true }),
  }),
  resourceRid: t.string({
    description:
      'The rid of a resource, even a private one: maps an origin pair to a rid, or checks an id exists.',
    authScopes: { public: true },
    errors: { types: [InvalidInputError, ResourceNotFoundError], directResult: false },
    args: { id: t.arg.string({ description: 'An oid, a rid or `origine/idOrigine`.', required: true }) },
    resolve: (_root, args, context) => findRid(context, args.id),
  }),
}));

/** Writes of a resource: save (create, overwrite, merge), relations added, deletion. */
builder.mutationFields((t) => ({
  saveResource: t.field({
    type: SaveResultType,
    description:
      'Creates, overwrites, or merges (`merge`, or when neither `titre` nor `categories` is given) a resource; ' +
      'every problem is reported at once. REST: `POST /api/ressource`.',
    authScopes: { person: true, allRights: true },
    errors: { types: writeErrors },
    args: {
      input: t.arg({
        description: 'The resource: its id to update, and the fields to write.',
        type: ResourceInputType,
        required: true,
      }),
      merge: t.arg.boolean({
        defaultValue: false,
        description: 'Merge into the stored resource instead of overwriting it. REST: `merge` or `partial`.',
      }),
      ignoredProperties: t.arg.stringList({
        required: false,
        description:
          'Properties the client had that no field of `input` holds, each returned as a warning (first): REST ' +
          'passes a legacy body’s unknown properties here.',
      }),
    },
    resolve: (_root, args, context) =>
      saveResource(context, args.input, args.merge ?? false, {
        ignoredProperties: args.ignoredProperties ?? [],
      }),
  }),
  addResourceRelations: t.field({
    type: SaveResultType,
    description: 'Appends `relations` to the resource named by `oid`, `origine` + `idOrigine`, or `ref`.',
    authScopes: { person: true, allRights: true },
    errors: { types: writeErrors },
    args: {
      input: t.arg({
        description: 'The resource and the relations to append.',
        type: ResourceRelationsInputType,
        required: true,
      }),
    },
    resolve: (_root, args, context) => addRelations(context, args.input),
  }),
  deleteResource: t.field({
    type: DeletedResourceType,
    description: 'Deletes a resource by any id (oid, rid, `origine/idOrigine`).',
    authScopes: { person: true, allRights: true },
    errors: { types: [ResourceNotFoundError, ForbiddenError] },
    args: { id: t.arg.string({ description: 'An oid, a rid or `origine/idOrigine`.', required: true }) },
    resolve: (_root, args, context) => deleteResource(context, identifyAny(context, args.id)),
  }),
}));

/** Copies of a resource: a clone, an alias, an alias made a copy of its own. */
builder.mutationFields((t) => ({
  cloneResource: t.field({
    type: SaveResultType,
    description:
      'Copies an editable resource (the caller becomes its author), or makes the caller’s alias of another.',
    authScopes: { person: true },
    errors: { types: writeErrors },
    args: { oid: t.arg.int({ description: 'The resource to copy.', required: true }) },
    resolve: (_root, args, context) => cloneResource(context, args.oid),
  }),
  createResourceAlias: t.field({
    type: SaveResultType,
    description: 'Makes (or reuses) the caller’s alias of a resource, of this repository or of a peer.',
    authScopes: { person: true },
    errors: { types: [...writeErrors, UpstreamError] },
    args: {
      baseId: t.arg.string({
        description: 'The repository of the resource: this one or a configured peer.',
        required: true,
      }),
      oid: t.arg.int({ description: 'The resource’s oid in that repository.', required: true }),
    },
    resolve: (_root, args, context) => createAlias(context, args.baseId, args.oid),
  }),
  forkResourceAlias: t.field({
    type: SaveResultType,
    description: 'Turns an alias into a real copy of its source, keeping the alias oid.',
    authScopes: { person: true, allRights: true },
    errors: { types: writeErrors },
    args: { oid: t.arg.int({ description: 'The alias.', required: true }) },
    resolve: (_root, args, context) => forkAlias(context, args.oid),
  }),
}));
