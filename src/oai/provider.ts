/**
 * The six verbs of OAI-PMH 2.0 (§4) over a HarvestSource: each a function from its checked
 * arguments (src/oai/arguments.ts) to the protocol's response model, or to the errors that answer
 * the request instead (§3.6). Nothing here knows HTTP or XML: src/oai/router.ts reads the request,
 * calls the verb and writes the model as XML (src/oai/responses.ts).
 *
 * Decisions (docs/oai-pmh.md):
 * - `resumptionToken` with any other argument but the verb is badArgument: it is an exclusive
 *   argument, and an argument illegal with another is what badArgument names (§3.6).
 * - A well-formed `set` no record is in is noRecordsMatch, as any selection matching nothing (a set
 *   may come to exist later: a new category); a malformed one is badArgument. noSetHierarchy only
 *   when the source has no set at all (ListSets cannot be empty, by the schema).
 * - noMetadataFormats is never answered: every format applies to every record, and a deleted
 *   record's header is disseminated in every format. The provider refuses to start without oai_dc,
 *   which the protocol requires of every item (§3.4).
 * - earliestDatestamp of an empty repository: the Unix epoch, a lower bound true on every instance
 *   and across restarts (a start time would differ between instances behind one address).
 * - A resumed page that finds nothing (the rest of the list left the selection meanwhile) is
 *   noRecordsMatch: the schema forbids an empty list.
 */
import type { OaiRequest, Selection } from './arguments.ts';
import { type OaiError, type OaiErrorCode, oaiError } from './errors.ts';
import type {
  HarvestHeader,
  HarvestRecord,
  HarvestSet,
  HarvestSource,
  MetadataFormat,
} from './harvest-source.ts';
import { parseIdentifier, REPOSITORY_IDENTIFIER } from './identifier.ts';
import type { IdentifyFields, TokenElement } from './responses.ts';
import { type ListVerb, ResumptionTokens, type TokenState } from './resumption-token.ts';
import type { OaiSettings } from './settings.ts';

/** The errors that answer a request in place of its verb's response. */
export interface OaiRefusal {
  errors: OaiError[];
}

export type OaiAnswer<Model extends object> = Model | OaiRefusal;

export const isRefusal = <Model extends object>(answer: OaiAnswer<Model>): answer is OaiRefusal =>
  'errors' in answer;

const refusal = (code: OaiErrorCode, message: string): OaiRefusal => ({ errors: [oaiError(code, message)] });

type ArgumentsOf<V extends OaiRequest['verb']> = Extract<OaiRequest, { verb: V }>;
/** ListIdentifiers and ListRecords take the same arguments. */
export type ListArguments = Extract<OaiRequest, { verb: ListVerb }>;

/** One page of a list: the resumptionToken element comes with every page of an incomplete list (§3.5). */
interface ListPage {
  resumptionToken?: TokenElement;
}
export interface HeadersPage extends ListPage {
  headers: HarvestHeader[];
}
export interface RecordsPage extends ListPage {
  records: HarvestRecord[];
  format: MetadataFormat;
}

export interface OaiProvider {
  identify(): Promise<IdentifyFields>;
  listMetadataFormats(
    args: ArgumentsOf<'ListMetadataFormats'>,
  ): Promise<OaiAnswer<{ formats: MetadataFormat[] }>>;
  listSets(args: ArgumentsOf<'ListSets'>): Promise<OaiAnswer<{ sets: HarvestSet[] }>>;
  getRecord(
    args: ArgumentsOf<'GetRecord'>,
  ): Promise<OaiAnswer<{ record: HarvestRecord; format: MetadataFormat }>>;
  /** `now` decides whether a resumption token has expired, and when the one issued will. */
  listIdentifiers(args: ListArguments, now: Date): Promise<OaiAnswer<HeadersPage>>;
  listRecords(args: ListArguments, now: Date): Promise<OaiAnswer<RecordsPage>>;
}

/** What the providers of every request share: the settings, the formats by prefix, the token signer. */
export interface OaiRepository {
  settings: OaiSettings;
  formats: ReadonlyMap<string, MetadataFormat>;
  tokens: ResumptionTokens;
}

/** The repository the provider describes, checked once: a setting the protocol forbids stops the service. */
export function describeRepository(formats: readonly MetadataFormat[], settings: OaiSettings): OaiRepository {
  const prefixes = formats.map((format) => format.metadataPrefix);
  if (!prefixes.includes('oai_dc')) throw new Error('OAI-PMH: the oai_dc format is required (§3.4)');
  if (new Set(prefixes).size !== prefixes.length)
    throw new Error('OAI-PMH: two formats share a metadataPrefix');
  if (!REPOSITORY_IDENTIFIER.test(settings.repositoryIdentifier)) {
    throw new Error(
      `OAI-PMH: "${settings.repositoryIdentifier}" is not a repository identifier (a domain name)`,
    );
  }
  if (settings.adminEmails.length === 0) throw new Error('OAI-PMH: Identify needs at least one adminEmail');
  if (!Number.isInteger(settings.pageSize) || settings.pageSize < 1)
    throw new Error('OAI-PMH: pageSize must be positive');
  return {
    settings,
    formats: new Map(formats.map((format) => [format.metadataPrefix, format])),
    tokens: new ResumptionTokens(settings.secret),
  };
}

/** The verbs over `source`, the records as one request may see them. */
export function createOaiProvider(source: HarvestSource, repository: OaiRepository): OaiProvider {
  const { settings, formats } = repository;
  const { repositoryIdentifier } = settings;
  const notAnItem = (identifier: string) =>
    oaiError('idDoesNotExist', `"${identifier}" is not an item of this repository.`);
  return {
    identify: async () => ({
      repositoryName: settings.repositoryName,
      baseUrl: settings.baseUrl,
      adminEmails: settings.adminEmails,
      earliestDatestamp: (await source.earliestDatestamp()) ?? new Date(0),
      compression: settings.compression ?? [],
      repositoryIdentifier,
      sampleOid: 1,
    }),
    async listMetadataFormats({ identifier }) {
      if (identifier !== undefined) {
        const oid = parseIdentifier(repositoryIdentifier, identifier);
        if (oid === null || !(await source.record(oid))) return { errors: [notAnItem(identifier)] };
      }
      return { formats: [...formats.values()] };
    },
    async listSets({ resumptionToken }) {
      if (resumptionToken !== undefined) {
        return refusal(
          'badResumptionToken',
          'ListSets is answered whole: this repository issues no token for it.',
        );
      }
      const sets = await source.sets();
      if (sets.length === 0) return refusal('noSetHierarchy', 'This repository has no set.');
      return { sets };
    },
    async getRecord({ identifier, metadataPrefix }) {
      // Both conditions are reported when both hold.
      const errors: OaiError[] = [];
      const format = formats.get(metadataPrefix);
      if (!format) {
        errors.push(
          oaiError('cannotDisseminateFormat', `"${metadataPrefix}" is not a format of this repository.`),
        );
      }
      const oid = parseIdentifier(repositoryIdentifier, identifier);
      const record = oid === null ? null : await source.record(oid);
      if (!record) errors.push(notAnItem(identifier));
      if (errors.length > 0 || !format || !record) return { errors };
      return { record, format };
    },
    async listIdentifiers(args, now) {
      const page = await listPage(source, repository, 'ListIdentifiers', args, now);
      if (isRefusal(page)) return page;
      return { headers: page.records.map((record) => record.header), resumptionToken: page.resumptionToken };
    },
    listRecords: (args, now) => listPage(source, repository, 'ListRecords', args, now),
  };
}

/** Where a page of a list starts. */
interface ListPosition {
  /** The harvest as its next token will carry it. */
  state: Omit<TokenState, 'expires'>;
  selection: Selection;
  /** Brought by a resumption token: the page that completes the list then carries an empty one. */
  resumed: boolean;
}

async function listPage(
  source: HarvestSource,
  repository: OaiRepository,
  verb: ListVerb,
  args: ListArguments,
  now: Date,
): Promise<OaiAnswer<RecordsPage>> {
  const position =
    args.resumptionToken === undefined
      ? await firstPosition(source, repository, verb, args)
      : resumedPosition(repository, verb, args.resumptionToken, now);
  if (isRefusal(position)) return position;
  const { state, selection } = position;
  const page = await source.page({
    ...selection,
    ...(state.afterOid > 0 ? { afterOid: state.afterOid } : {}),
    limit: repository.settings.pageSize,
    withMetadata: verb === 'ListRecords',
  });
  if (page.records.length === 0) {
    return refusal('noRecordsMatch', 'No record matches these arguments any more.');
  }
  const resumptionToken = tokenElement(repository, position, page, now);
  return {
    records: page.records,
    format: repository.formats.get(state.metadataPrefix)!,
    ...(resumptionToken ? { resumptionToken } : {}),
  };
}

/** A new harvest: the list is counted once, for every page's `completeListSize`. */
async function firstPosition(
  source: HarvestSource,
  repository: OaiRepository,
  verb: ListVerb,
  args: ListArguments,
): Promise<OaiAnswer<ListPosition>> {
  const prefix = args.metadataPrefix!;
  if (!repository.formats.has(prefix)) {
    return refusal('cannotDisseminateFormat', `"${prefix}" is not a format of this repository.`);
  }
  const { selection } = args;
  const completeListSize = await source.count(selection);
  if (completeListSize === 0) return refusal('noRecordsMatch', 'No record matches these arguments.');
  const state = {
    verb,
    metadataPrefix: prefix,
    ...(selection.from ? { from: selection.from.getTime() } : {}),
    ...(selection.until ? { until: selection.until.getTime() } : {}),
    ...(selection.set === undefined ? {} : { set: selection.set }),
    afterOid: 0,
    cursor: 0,
    completeListSize,
  };
  return { state, selection, resumed: false };
}

/** A harvest continued: the token holds its arguments and position, and must be of this verb. */
function resumedPosition(
  repository: OaiRepository,
  verb: ListVerb,
  token: string,
  now: Date,
): OaiAnswer<ListPosition> {
  const read = repository.tokens.read(token, now);
  if ('refused' in read) return refusal('badResumptionToken', read.refused);
  const { state } = read;
  if (state.verb !== verb) {
    return refusal('badResumptionToken', `The resumptionToken continues a ${state.verb}, not a ${verb}.`);
  }
  if (!repository.formats.has(state.metadataPrefix)) {
    return refusal('badResumptionToken', 'The resumptionToken names a format no longer disseminated.');
  }
  const selection: Selection = {
    ...(state.from === undefined ? {} : { from: new Date(state.from) }),
    ...(state.until === undefined ? {} : { until: new Date(state.until) }),
    ...(state.set === undefined ? {} : { set: state.set }),
  };
  return { state, selection, resumed: true };
}

/** The page's resumptionToken element, if it has one: the next page's token, or the list's end. */
function tokenElement(
  { settings, tokens }: OaiRepository,
  { state, resumed }: ListPosition,
  page: { records: HarvestRecord[]; hasMore: boolean },
  now: Date,
): TokenElement | undefined {
  const { completeListSize, cursor } = state;
  if (page.hasMore) {
    const expires = now.getTime() + settings.tokenLifetimeSeconds * 1000;
    const next = {
      ...state,
      afterOid: page.records.at(-1)!.header.oid,
      cursor: cursor + page.records.length,
    };
    return {
      token: tokens.issue({ ...next, expires }),
      expirationDate: new Date(expires),
      completeListSize,
      cursor,
    };
  }
  // §3.5: the response that completes an incomplete list carries an empty token.
  return resumed ? { token: '', completeListSize, cursor } : undefined;
}
