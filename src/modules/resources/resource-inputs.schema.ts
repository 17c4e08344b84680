/**
 * GraphQL input types of the resource writes. Fields are typed as the service validates them; the
 * service still checks what a type cannot say (ranges, rid forms, vocabularies) and reports every
 * problem at once.
 */
import { BODY_FIELDS, RESOURCE_FIELDS, type ResourceFieldSpec } from '../../catalogue/resource-fields.ts';
import { type BuilderTypes, builder } from '../../graphql/builder.ts';
import { SCALAR_OF_KIND } from '../../graphql/scalars.ts';
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

type ResourceInputFieldBuilder = PothosSchemaTypes.InputFieldBuilder<BuilderTypes, 'InputObject'>;

/**
 * The catalogue's fields a caller writes (src/catalogue/resource-fields.ts), and the oid that
 * designates the resource, each typed by its kind; a tree's children are a list of JSON objects.
 */
function catalogueInputFields(t: ResourceInputFieldBuilder) {
  return Object.fromEntries(
    BODY_FIELDS.map((name) => {
      const field: ResourceFieldSpec = RESOURCE_FIELDS[name];
      return [
        name,
        t.field({
          type: name === 'enfants' ? ['JSON'] : SCALAR_OF_KIND[field.kind],
          description: field.input ?? field.description,
        }),
      ];
    }),
  );
}

export const ResourceInputType = builder.inputType('ResourceInput', {
  description:
    'A resource to create, overwrite or merge (REST: the body of `POST /api/ressource`). Give `oid`, `rid` or ' +
    '`origine` + `idOrigine` to designate an existing resource; fields left out keep or reset their value ' +
    'depending on `merge`.',
  fields: (t) => ({
    ...catalogueInputFields(t),
    rid: t.string({ description: 'The resource to update, `<baseId>/<oid>`.' }),
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
