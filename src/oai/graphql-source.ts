/**
 * The HarvestSource of the service: each method runs one named operation of operations.graphql
 * through the Yoga pipeline, as the REST layer runs its own (src/gateway/operation-runner.ts), so the harvest
 * root fields and their rules decide everything a harvester sees; this file only turns their
 * answers into the contract's types.
 */
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DocumentNode, ExecutionResult, GraphQLSchema } from 'graphql';
import { loadOperations } from '../gateway/operations.ts';
import type {
  HarvestPageRequest,
  HarvestPerson,
  HarvestRecord,
  HarvestResource,
  HarvestSelection,
  HarvestSet,
  HarvestSource,
} from './harvest-source.ts';

const operationsDir = dirname(fileURLToPath(import.meta.url));

/** The OAI operations (operations.graphql), validated against the schema as the REST ones are. */
export function loadHarvestOperations(schema: GraphQLSchema): Map<string, DocumentNode> {
  return loadOperations(schema, operationsDir);
}

/**
 * Runs one of the OAI operations for the request being answered (the caller binds its server
 * context: `(name, variables) => runOperation(name, variables, { req, res })`).
 */
export type HarvestOperationRunner = (
  name: string,
  variables: Record<string, unknown>,
) => Promise<ExecutionResult>;

/** An answer the operations never give to arguments the protocol layer has checked. */
export class HarvestSourceError extends Error {
  override name = 'HarvestSourceError';
  constructor(
    message: string,
    readonly code?: string,
  ) {
    super(message);
  }
}

interface HeaderFields {
  oid: number;
  datestamp: string;
  deleted: boolean;
  setSpecs: string[];
}

interface MetadataFields {
  oid: number;
  titre: string;
  resume: string;
  description: string;
  langue: string;
  type: string;
  niveaux: string[];
  categories: number[];
  typePedagogiques: number[];
  typeDocumentaires: number[];
  dateCreation: string;
  address: string | null;
  authors: HarvestPerson[];
  contributors: HarvestPerson[];
}

type RecordFields = HeaderFields & { resource?: MetadataFields | null };

type Union<T> = (T & { __typename: string }) | { __typename: string; code: string; message: string };

/** Where the repository is: a resource's `rid` and public page are made from it. */
interface RepositoryAddress {
  /** `baseUrl` without its trailing slashes. */
  base: string;
  baseId: string;
}

/** The success member of a result union, or the error it holds, thrown. */
function success<T>(name: string, value: Union<T>): T {
  if ('code' in value && 'message' in value && typeof value.code === 'string') {
    throw new HarvestSourceError(`${name}: ${value.message}`, value.code);
  }
  return value as T;
}

const selectionVariables = (selection: HarvestSelection) => ({
  from: selection.from?.toISOString() ?? null,
  until: selection.until?.toISOString() ?? null,
  set: selection.set ?? null,
});

const toResource = (fields: MetadataFields, { base, baseId }: RepositoryAddress): HarvestResource => ({
  oid: fields.oid,
  rid: `${baseId}/${fields.oid}`,
  titre: fields.titre,
  resume: fields.resume,
  description: fields.description,
  langue: fields.langue,
  type: fields.type,
  niveaux: fields.niveaux,
  categories: fields.categories,
  typePedagogiques: fields.typePedagogiques,
  typeDocumentaires: fields.typeDocumentaires,
  dateCreation: new Date(fields.dateCreation),
  adresse: fields.address,
  publicUrl: `${base}/api/public/${fields.oid}`,
  authors: fields.authors.map(({ pid, nom, prenom }) => ({ pid, nom, prenom })),
  contributors: fields.contributors.map(({ pid, nom, prenom }) => ({ pid, nom, prenom })),
});

const toRecord = (fields: RecordFields, address: RepositoryAddress): HarvestRecord => ({
  header: {
    oid: fields.oid,
    datestamp: new Date(fields.datestamp),
    deleted: fields.deleted,
    setSpecs: fields.setSpecs,
  },
  resource: fields.resource ? toResource(fields.resource, address) : null,
});

export function createGraphQLHarvestSource(
  runOperation: HarvestOperationRunner,
  { baseUrl, baseId }: { baseUrl: string; baseId: string },
): HarvestSource {
  const address: RepositoryAddress = { base: baseUrl.replace(/\/+$/, ''), baseId };

  async function result<T>(name: string, variables: Record<string, unknown> = {}): Promise<T> {
    const answer = await runOperation(name, variables);
    if (answer.errors?.length) {
      throw new HarvestSourceError(`${name}: ${answer.errors.map((error) => error.message).join('; ')}`);
    }
    return (answer.data as { result: T }).result;
  }

  return {
    async earliestDatestamp() {
      const value = await result<string | null>('OaiEarliestDatestamp');
      return value === null ? null : new Date(value);
    },

    sets: () => result<HarvestSet[]>('OaiSets'),

    async page(request: HarvestPageRequest) {
      const name = request.withMetadata ? 'OaiRecords' : 'OaiHeaders';
      const page = success(
        name,
        await result<Union<{ hasMore: boolean; records: RecordFields[] }>>(name, {
          ...selectionVariables(request),
          after: request.afterOid ?? null,
          limit: request.limit,
        }),
      );
      return { records: page.records.map((fields) => toRecord(fields, address)), hasMore: page.hasMore };
    },

    async count(selection: HarvestSelection) {
      const answer = await result<Union<{ total: number }>>('OaiCount', selectionVariables(selection));
      return success('OaiCount', answer).total;
    },

    async record(oid: number) {
      const fields = await result<RecordFields | null>('OaiRecord', { oid });
      return fields && toRecord(fields, address);
    },
  };
}
