/**
 * GraphQL input types of the resource writes. Fields are typed as the service validates them; the
 * service still checks what a type cannot say (ranges, rid forms, vocabularies) and reports every
 * problem at once.
 */
import { builder } from '../../graphql/builder.ts';
import type { Relation } from './resource-input.ts';

export const RelationInputType = builder.inputRef<Relation>('RelationInput').implement({
  description: 'A relation of a resource to another (REST: a `[predicate, rid]` pair).',
  fields: (t) => ({
    predicate: t.int({
      required: true,
      description: 'The relation type (a key of the relation vocabulary, see `autocomplete`).',
    }),
    rid: t.string({ required: true, description: 'The target resource, `<baseId>/<oid>`.' }),
  }),
});

export const ResourceInputType = builder.inputType('ResourceInput', {
  description:
    'A resource to create, overwrite or merge (REST: the body of `POST /api/ressource`). Give `oid`, `rid` or ' +
    '`origine` + `idOrigine` to designate an existing resource; fields left out keep or reset their value ' +
    'depending on `merge`.',
  fields: (t) => ({
    oid: t.int({ description: 'The resource to update.' }),
    rid: t.string({ description: 'The resource to update, `<baseId>/<oid>`.' }),
    origine: t.string({ description: 'Origin of the resource (with `idOrigine`: its id there).' }),
    idOrigine: t.string({
      description: 'Id in the origin. REST also accepts a non-negative integer (sent here as text).',
    }),
    titre: t.string({ description: 'Title; required to create.' }),
    resume: t.string({ description: 'Summary.' }),
    description: t.string({ description: 'Description.' }),
    commentaires: t.string({ description: 'Comments for editors.' }),
    type: t.string({ description: 'Resource type (`arbre`, `url`, `em`, …); `error` is reserved.' }),
    categories: t.intList({ description: 'Category keys.' }),
    niveaux: t.stringList({ description: 'School level keys.' }),
    typePedagogiques: t.intList({ description: 'Pedagogical type keys.' }),
    typeDocumentaires: t.intList({ description: 'Documentary type keys.' }),
    authors: t.stringList({
      description: 'Pids of the authors, in order; unknown pids are ignored with a warning. REST: `auteurs`.',
    }),
    auteursParents: t.stringList({
      description: 'Pids of the authors of the resource this one derives from.',
    }),
    contributors: t.stringList({
      description: 'Pids of the contributors, in order. REST: `contributeurs`.',
    }),
    readerGroups: t.stringList({
      description:
        'Names of the groups whose members may read it (restriction 2); unknown ones are ignored with a ' +
        'warning. REST: `groupes`.',
    }),
    authorGroups: t.stringList({
      description: 'Names of the groups whose members may update it. REST: `groupesAuteurs`.',
    }),
    langue: t.string({ description: 'Language code (`fra`, …).' }),
    publie: t.boolean({ description: 'Published.' }),
    restriction: t.int({
      description: '0 public, 1 correction, 2 the groups of `readerGroups`, 3 private (authors only).',
    }),
    indexable: t.boolean({
      description:
        'Listed by searches and harvested (default true); false for a resource replaced by another but still used: searches then list it to its authors only, and it stays readable by id.',
    }),
    parametres: t.field({
      type: 'JSON',
      description:
        'Free-form: each resource type (exercise engines, models) defines its own parameters, so no schema ' +
        'can describe them here.',
    }),
    enfants: t.field({
      type: ['JSON'],
      description:
        'Trees only: the children, Ref-like objects nested through their own `enfants`. Kept as JSON ' +
        'because children carry any Ref property and the tree validation reports each bad child by position.',
    }),
    aliasOf: t.string({ description: 'The rid this resource is an alias of; null: none.' }),
    relations: t.field({
      type: [RelationInputType],
      description: 'Relations to other resources. REST: `[predicate, rid]` pairs.',
    }),
  }),
});

export const ResourceRelationsInputType = builder.inputType('ResourceRelationsInput', {
  description:
    'Relations to append to a resource designated by `ref`, `oid`, or `origine` + `idOrigine` ' +
    '(REST: the body of `POST /api/ressource/addRelations`).',
  fields: (t) => ({
    ref: t.string({ description: 'Any id of the resource: oid, rid or `origine/idOrigine`.' }),
    oid: t.int({ description: 'The resource, by oid.' }),
    origine: t.string({ description: 'The resource, by origin (with `idOrigine`).' }),
    idOrigine: t.string({ description: 'The resource’s id in its origin.' }),
    relations: t.field({
      type: [RelationInputType],
      description: 'The relations to append (required). REST: `[predicate, rid]` pairs.',
    }),
  }),
});
