/** GraphQL: what OAI-PMH harvesters read (src/oai/ runs these fields as named operations). */

import { fieldsWhere, RESOURCE_FIELDS } from '../../catalogue/resource-fields.ts';
import { InvalidInputError } from '../../errors.ts';
import { type BuilderTypes, builder } from '../../graphql/builder.ts';
import { SCALAR_OF_KIND } from '../../graphql/scalars.ts';
import type { HarvestPerson } from '../../read-model/harvest.ts';
import {
  DEFAULT_HARVEST_PAGE,
  type HarvestRecordView,
  type HarvestResourceView,
  type HarvestSetView,
  harvestCount,
  harvestEarliestDatestamp,
  harvestPage,
  harvestRecord,
  harvestSets,
  MAX_HARVEST_PAGE,
} from './harvest.service.ts';

const HarvestPersonType = builder.objectRef<HarvestPerson>('HarvestPerson').implement({
  description: 'An author or contributor as harvesters see them (no e-mail address).',
  fields: (t) => ({
    pid: t.exposeString('pid', { description: 'The person’s pid.' }),
    nom: t.exposeString('nom', { description: 'Family name.' }),
    prenom: t.exposeString('prenom', { description: 'Given name.' }),
  }),
});

/**
 * The catalogue's fields the formats are made from: those whose change gives a record a new
 * datestamp (a JSON one reaches harvesters through what they receive of it: `address`), and the
 * time of the last change. Read as properties (compiled execution runs no resolver for them).
 */
const RECEIVED_FIELDS = [
  ...fieldsWhere((field) => field.harvest === 'restamps' && field.kind !== 'json'),
  'dateMiseAJour' as const,
];

function receivedFields(t: PothosSchemaTypes.ObjectFieldBuilder<BuilderTypes, HarvestResourceView>) {
  return Object.fromEntries(
    RECEIVED_FIELDS.map((name) => {
      const { kind, nullable, description } = RESOURCE_FIELDS[name];
      return [name, t.expose(name as never, { type: SCALAR_OF_KIND[kind], nullable, description })];
    }),
  );
}

const HarvestResourceType = builder.objectRef<HarvestResourceView>('HarvestResource').implement({
  description: 'The metadata of a harvestable resource: what the OAI-PMH formats are made from.',
  fields: (t) => ({
    ...receivedFields(t),
    oid: t.exposeInt('oid', { description: 'The resource’s oid.' }),
    rid: t.exposeString('rid', { description: 'Id across repositories: `<baseId>/<oid>`.' }),
    publicUrl: t.exposeString('publicUrl', {
      description: 'Its public page in this service: `<baseUrl>/api/public/<oid>`.',
    }),
    niveaux: t.exposeStringList('niveaux', { description: 'School level keys, in order.' }),
    categories: t.exposeIntList('categories', { description: 'Category keys, in order.' }),
    typePedagogiques: t.exposeIntList('typePedagogiques', { description: 'Pedagogical type keys.' }),
    typeDocumentaires: t.exposeIntList('typeDocumentaires', { description: 'Documentary type keys.' }),
    address: t.exposeString('address', {
      nullable: true,
      description: 'The resource’s own address: an `url` resource’s http(s) `parametres.adresse`, else null.',
    }),
    authors: t.field({
      description: 'Authors, in order.',
      type: [HarvestPersonType],
      resolve: (resource) => resource.authors,
    }),
    contributors: t.field({
      description: 'Contributors, in order.',
      type: [HarvestPersonType],
      resolve: (resource) => resource.contributors,
    }),
  }),
});

const HarvestRecordType = builder.objectRef<HarvestRecordView>('HarvestRecord').implement({
  description:
    'A resource that is or was harvestable (public, published, indexable, not an alias): its header, and its metadata while it is.',
  fields: (t) => ({
    oid: t.exposeInt('oid', { description: 'The resource’s oid.' }),
    datestamp: t.expose('datestamp', {
      type: 'DateTime',
      description:
        'The last change that matters to a harvester (content, publication, visibility), to the second.',
    }),
    deleted: t.exposeBoolean('deleted', {
      description: 'No longer harvestable (deleted, unpublished, restricted, unlisted or made an alias).',
    }),
    setSpecs: t.exposeStringList('setSpecs', {
      description:
        'Its sets at their most specific (`type:<type>`, `niveau:<level>`, `categorie:<id>`; their parents are implied); a deleted record keeps those it was last in.',
    }),
    resource: t.field({
      type: HarvestResourceType,
      nullable: true,
      description: 'The metadata; null when deleted, or when only headers were asked for.',
      resolve: (record) => record.resource,
    }),
  }),
});

const HarvestPageType = builder
  .objectRef<{ records: HarvestRecordView[]; hasMore: boolean }>('HarvestPage')
  .implement({
    description: 'Records in oid order.',
    fields: (t) => ({
      records: t.field({
        description: 'The records of the page.',
        type: [HarvestRecordType],
        resolve: (page) => page.records,
      }),
      hasMore: t.exposeBoolean('hasMore', { description: 'Whether a record follows the page.' }),
    }),
  });

const HarvestCountType = builder.objectRef<{ total: number }>('HarvestCount').implement({
  description: 'How many records a selection holds.',
  fields: (t) => ({
    total: t.exposeInt('total', { description: 'The number of records, deleted ones included.' }),
  }),
});

const HarvestSetType = builder.objectRef<HarvestSetView>('HarvestSet').implement({
  description: 'A set of records harvesters may select.',
  fields: (t) => ({
    spec: t.exposeString('spec', {
      description:
        'A parent (`type`, `niveau`, `categorie`) or one of its children (`type:<type>`, `niveau:<level>`, `categorie:<id>`).',
    }),
    name: t.exposeString('name', { description: 'Its name, from the vocabularies.' }),
  }),
});

builder.queryFields((t) => {
  const selection = {
    from: t.arg({
      type: 'DateTime',
      required: false,
      description: 'Records stamped at or after this time (to the second).',
    }),
    until: t.arg({
      type: 'DateTime',
      required: false,
      description: 'Records stamped at or before this time (to the second).',
    }),
    set: t.arg.string({
      required: false,
      description:
        'Records of this set: `type:<type>`, `niveau:<level>`, `categorie:<id>`, or a parent (`type`, `niveau`, `categorie`: records in any of its children). A well-formed spec of no set selects nothing; a malformed one is invalid input.',
    }),
  };
  return {
    harvestPage: t.field({
      type: HarvestPageType,
      description: `Harvestable records and deleted ones, in oid order after \`after\`, filtered by every argument given; pages of \`limit\` (default ${DEFAULT_HARVEST_PAGE}, at most ${MAX_HARVEST_PAGE}).`,
      authScopes: { public: true },
      errors: { types: [InvalidInputError] },
      args: {
        ...selection,
        after: t.arg.int({ required: false, description: 'The page starts after this oid (default 0).' }),
        limit: t.arg.int({ required: false, description: `Records per page (1 to ${MAX_HARVEST_PAGE}).` }),
        withMetadata: t.arg.boolean({
          required: true,
          description: 'Read the metadata too (false: headers only, which costs less).',
        }),
      },
      resolve: (_root, args, context) => harvestPage(args, context.config),
    }),
    harvestCount: t.field({
      type: HarvestCountType,
      description: 'How many records (deleted ones included) the selection holds now.',
      authScopes: { public: true },
      errors: { types: [InvalidInputError] },
      args: selection,
      resolve: async (_root, args) => ({ total: await harvestCount(args) }),
    }),
    harvestRecord: t.field({
      type: HarvestRecordType,
      nullable: true,
      description: 'One record, deleted or not, with its metadata; null when this oid was never harvestable.',
      authScopes: { public: true },
      args: { oid: t.arg.int({ required: true, description: 'The resource’s oid.' }) },
      resolve: (_root, args, context) => harvestRecord(args.oid, context.config),
    }),
    harvestEarliestDatestamp: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'The oldest datestamp of all records (deleted ones included); null when there are none.',
      authScopes: { public: true },
      resolve: () => harvestEarliestDatestamp(),
    }),
    harvestSets: t.field({
      type: [HarvestSetType],
      description: 'Every set harvesters may select, named from the vocabularies.',
      authScopes: { public: true },
      resolve: () => harvestSets(),
    }),
  };
});
