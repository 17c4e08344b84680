/**
 * The OAI-PMH 2.0 data provider at `/oai` (GET, and POST of a form, §3.1.1): six verbs over a
 * HarvestSource, in the MetadataFormats given. Protocol errors are answered with HTTP 200 and
 * `<error>` elements (§3.1.2.1, §3.6); HTTP statuses are kept for what is not OAI-PMH at all (a
 * method other than GET and POST, a POST body that is not a form, a body too large).
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
import express, { type ErrorRequestHandler, type Request, type Response, type Router } from 'express';
import { type OaiRequest, parseArguments, type Selection } from './arguments.ts';
import { echoesArguments, type OaiError, oaiError } from './errors.ts';
import type { HarvestSource, MetadataFormat } from './harvest-source.ts';
import { parseIdentifier, REPOSITORY_IDENTIFIER } from './identifier.ts';
import {
  envelope,
  errorsXml,
  headerXml,
  identifyXml,
  metadataFormatsXml,
  recordXml,
  resumptionTokenXml,
  setsXml,
} from './responses.ts';
import { type ListVerb, ResumptionTokens, type TokenState } from './resumption-token.ts';
import type { OaiSettings } from './settings.ts';

export interface OaiRouterOptions {
  /**
   * The records, or what gives them for one request (the service's source runs GraphQL operations
   * in the request's own server context, as REST does).
   */
  source: HarvestSource | ((req: Request, res: Response) => HarvestSource);
  formats: readonly MetadataFormat[];
  settings: OaiSettings;
}

export const OAI_PATH = '/oai';
const CONTENT_TYPE = 'text/xml; charset=utf-8';
const FORM = /^application\/x-www-form-urlencoded\s*(;|$)/i;
/** OAI-PMH arguments are a few short values; a larger form is not a harvester's. */
const FORM_LIMIT = '16kb';

type Outcome = { body: string } | { errors: OaiError[] };

const pairsOf = (text: string): [string, string][] => [...new URLSearchParams(text)];

/** The query string of a request as sent (Express's parsed `req.query` merges repeated names). */
const queryOf = (req: Request) => {
  const at = req.originalUrl.indexOf('?');
  return at < 0 ? '' : req.originalUrl.slice(at + 1);
};

const hasBody = (req: Request) =>
  req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;

function checkOptions({ formats, settings }: OaiRouterOptions): void {
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
}

export function createOaiRouter(options: OaiRouterOptions): Router {
  checkOptions(options);
  const { settings } = options;
  const sourceOf = (req: Request, res: Response): HarvestSource =>
    typeof options.source === 'function' ? options.source(req, res) : options.source;
  const formats = new Map(options.formats.map((format) => [format.metadataPrefix, format]));
  const tokens = new ResumptionTokens(settings.secret);
  const clock = settings.now ?? (() => new Date());
  const lifetimeMs = settings.tokenLifetimeSeconds * 1000;
  const { repositoryIdentifier } = settings;

  async function list(
    source: HarvestSource,
    request: Extract<OaiRequest, { verb: ListVerb }>,
    now: Date,
  ): Promise<Outcome> {
    let state: Omit<TokenState, 'expires'>;
    let selection: Selection;
    let resumed = false;
    if (request.resumptionToken !== undefined) {
      const read = tokens.read(request.resumptionToken, now);
      if ('refused' in read) return { errors: [oaiError('badResumptionToken', read.refused)] };
      if (read.state.verb !== request.verb) {
        return {
          errors: [
            oaiError(
              'badResumptionToken',
              `The resumptionToken continues a ${read.state.verb}, not a ${request.verb}.`,
            ),
          ],
        };
      }
      if (!formats.has(read.state.metadataPrefix)) {
        return {
          errors: [
            oaiError('badResumptionToken', 'The resumptionToken names a format no longer disseminated.'),
          ],
        };
      }
      state = read.state;
      selection = {
        ...(state.from === undefined ? {} : { from: new Date(state.from) }),
        ...(state.until === undefined ? {} : { until: new Date(state.until) }),
        ...(state.set === undefined ? {} : { set: state.set }),
      };
      resumed = true;
    } else {
      const prefix = request.metadataPrefix!;
      if (!formats.has(prefix)) {
        return {
          errors: [oaiError('cannotDisseminateFormat', `"${prefix}" is not a format of this repository.`)],
        };
      }
      selection = request.selection;
      const completeListSize = await source.count(selection);
      if (completeListSize === 0) {
        return { errors: [oaiError('noRecordsMatch', 'No record matches these arguments.')] };
      }
      state = {
        verb: request.verb,
        metadataPrefix: prefix,
        ...(selection.from ? { from: selection.from.getTime() } : {}),
        ...(selection.until ? { until: selection.until.getTime() } : {}),
        ...(selection.set === undefined ? {} : { set: selection.set }),
        afterOid: 0,
        cursor: 0,
        completeListSize,
      };
    }
    const format = formats.get(state.metadataPrefix)!;
    const withMetadata = request.verb === 'ListRecords';
    const page = await source.page({
      ...selection,
      ...(state.afterOid > 0 ? { afterOid: state.afterOid } : {}),
      limit: settings.pageSize,
      withMetadata,
    });
    if (page.records.length === 0) {
      return { errors: [oaiError('noRecordsMatch', 'No record matches these arguments any more.')] };
    }
    const items = page.records.map((record) =>
      withMetadata
        ? recordXml(repositoryIdentifier, record, format)
        : headerXml(repositoryIdentifier, record.header),
    );
    let token = '';
    if (page.hasMore) {
      const expires = now.getTime() + lifetimeMs;
      token = resumptionTokenXml({
        token: tokens.issue({
          ...state,
          afterOid: page.records.at(-1)!.header.oid,
          cursor: state.cursor + page.records.length,
          expires,
        }),
        expirationDate: new Date(expires),
        completeListSize: state.completeListSize,
        cursor: state.cursor,
      });
    } else if (resumed) {
      // §3.5: the response that completes an incomplete list carries an empty token.
      token = resumptionTokenXml({
        token: '',
        completeListSize: state.completeListSize,
        cursor: state.cursor,
      });
    }
    return { body: `<${request.verb}>${items.join('')}${token}</${request.verb}>` };
  }

  async function execute(source: HarvestSource, request: OaiRequest, now: Date): Promise<Outcome> {
    switch (request.verb) {
      case 'Identify':
        return {
          body: identifyXml({
            repositoryName: settings.repositoryName,
            baseUrl: settings.baseUrl,
            adminEmails: settings.adminEmails,
            earliestDatestamp: (await source.earliestDatestamp()) ?? new Date(0),
            compression: settings.compression ?? [],
            repositoryIdentifier,
            sampleOid: 1,
          }),
        };
      case 'ListMetadataFormats': {
        if (request.identifier !== undefined) {
          const oid = parseIdentifier(repositoryIdentifier, request.identifier);
          if (oid === null || !(await source.record(oid))) {
            return {
              errors: [
                oaiError('idDoesNotExist', `"${request.identifier}" is not an item of this repository.`),
              ],
            };
          }
        }
        return { body: metadataFormatsXml([...formats.values()]) };
      }
      case 'ListSets': {
        if (request.resumptionToken !== undefined) {
          return {
            errors: [
              oaiError(
                'badResumptionToken',
                'ListSets is answered whole: this repository issues no token for it.',
              ),
            ],
          };
        }
        const sets = await source.sets();
        if (sets.length === 0) return { errors: [oaiError('noSetHierarchy', 'This repository has no set.')] };
        return { body: setsXml(sets) };
      }
      case 'GetRecord': {
        const errors: OaiError[] = [];
        const format = formats.get(request.metadataPrefix);
        if (!format) {
          errors.push(
            oaiError(
              'cannotDisseminateFormat',
              `"${request.metadataPrefix}" is not a format of this repository.`,
            ),
          );
        }
        const oid = parseIdentifier(repositoryIdentifier, request.identifier);
        const record = oid === null ? null : await source.record(oid);
        if (!record) {
          errors.push(
            oaiError('idDoesNotExist', `"${request.identifier}" is not an item of this repository.`),
          );
        }
        if (errors.length > 0 || !format || !record) return { errors };
        return { body: `<GetRecord>${recordXml(repositoryIdentifier, record, format)}</GetRecord>` };
      }
      default:
        return list(source, request, now);
    }
  }

  /** Every OAI-PMH answer, errors included, is HTTP 200 (§3.1.2.1, §3.6). */
  async function answer(source: HarvestSource, pairs: [string, string][], res: Response): Promise<void> {
    const now = clock();
    const parsed = parseArguments(pairs);
    const outcome: Outcome =
      'errors' in parsed ? { errors: parsed.errors } : await execute(source, parsed.request, now);
    const echo = 'errors' in outcome && !echoesArguments(outcome.errors) ? [] : parsed.echo;
    const body = 'body' in outcome ? outcome.body : errorsXml(outcome.errors);
    res
      .status(200)
      .type(CONTENT_TYPE)
      .send(envelope({ responseDate: now, baseUrl: settings.baseUrl, echo }, body));
  }

  /** Not a request OAI-PMH can read: its HTTP status, and an OAI-PMH badArgument saying why. */
  function refuse(res: Response, status: number, message: string): void {
    res
      .status(status)
      .type(CONTENT_TYPE)
      .send(
        envelope(
          { responseDate: clock(), baseUrl: settings.baseUrl, echo: [] },
          errorsXml([oaiError('badArgument', message)]),
        ),
      );
  }

  const readForm = express.text({
    type: (req) => FORM.test(req.headers['content-type'] ?? ''),
    limit: FORM_LIMIT,
  });
  const router = express.Router();
  router
    .route(OAI_PATH)
    .get(async (req, res) => {
      await answer(sourceOf(req, res), pairsOf(queryOf(req)), res);
    })
    .post(
      (req, res, next) => {
        if (!hasBody(req) || FORM.test(req.headers['content-type'] ?? '')) return next();
        res.setHeader('Accept-Post', 'application/x-www-form-urlencoded');
        refuse(res, 415, 'A POST request carries its arguments as application/x-www-form-urlencoded.');
      },
      readForm,
      async (req, res) => {
        // Arguments of the query string count too: a value given in both is a repeated argument.
        const body = typeof req.body === 'string' ? req.body : '';
        await answer(sourceOf(req, res), [...pairsOf(queryOf(req)), ...pairsOf(body)], res);
      },
    )
    .all((_req, res) => {
      res.setHeader('Allow', 'GET, HEAD, POST');
      refuse(res, 405, 'OAI-PMH requests are GET or POST.');
    });
  const bodyErrors: ErrorRequestHandler = (error, _req, res, next) => {
    const status = (error as { status?: unknown })?.status;
    if (typeof status !== 'number' || status < 400 || status >= 500 || res.headersSent) return next(error);
    refuse(res, status, `The request body could not be read: ${(error as Error).message}.`);
  };
  router.use(OAI_PATH, bodyErrors);
  return router;
}
