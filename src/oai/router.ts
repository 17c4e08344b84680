/**
 * The OAI-PMH 2.0 data provider's HTTP side at `/oai` (GET, and POST of a form, §3.1.1): a request
 * becomes the arguments of a verb, the verb is the provider's (src/oai/provider.ts), and its answer
 * is rendered as XML (src/oai/responses.ts). Protocol errors are answered with HTTP 200 and `<error>`
 * elements (§3.1.2.1, §3.6); HTTP statuses are kept for what is not OAI-PMH at all (a method other
 * than GET and POST, a POST body that is not a form, a body too large).
 */
import express, { type ErrorRequestHandler, type Request, type Response, type Router } from 'express';
import { type OaiRequest, parseArguments } from './arguments.ts';
import { echoesArguments, oaiError } from './errors.ts';
import type { HarvestSource, MetadataFormat } from './harvest-source.ts';
import {
  createOaiProvider,
  describeRepository,
  isRefusal,
  type OaiAnswer,
  type OaiProvider,
  type OaiRefusal,
} from './provider.ts';
import {
  envelope,
  errorsXml,
  headerXml,
  identifyXml,
  listXml,
  metadataFormatsXml,
  recordXml,
  setsXml,
} from './responses.ts';
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

type Outcome = { body: string } | OaiRefusal;

const pairsOf = (text: string): [string, string][] => [...new URLSearchParams(text)];

/** The query string of a request as sent (Express's parsed `req.query` merges repeated names). */
const queryOf = (req: Request) => {
  const at = req.originalUrl.indexOf('?');
  return at < 0 ? '' : req.originalUrl.slice(at + 1);
};

const hasBody = (req: Request) =>
  req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;

const rendered = <Model extends object>(answer: OaiAnswer<Model>, xml: (model: Model) => string): Outcome =>
  isRefusal(answer) ? answer : { body: xml(answer) };

/** The verb's answer: the XML of its element, or the errors that replace it. */
async function answerVerb(
  provider: OaiProvider,
  request: OaiRequest,
  now: Date,
  repositoryIdentifier: string,
): Promise<Outcome> {
  switch (request.verb) {
    case 'Identify':
      return { body: identifyXml(await provider.identify()) };
    case 'ListMetadataFormats':
      return rendered(await provider.listMetadataFormats(request), ({ formats }) =>
        metadataFormatsXml(formats),
      );
    case 'ListSets':
      return rendered(await provider.listSets(request), ({ sets }) => setsXml(sets));
    case 'GetRecord':
      return rendered(
        await provider.getRecord(request),
        ({ record, format }) => `<GetRecord>${recordXml(repositoryIdentifier, record, format)}</GetRecord>`,
      );
    case 'ListIdentifiers':
      return rendered(await provider.listIdentifiers(request, now), ({ headers, resumptionToken }) =>
        listXml(
          'ListIdentifiers',
          headers.map((header) => headerXml(repositoryIdentifier, header)),
          resumptionToken,
        ),
      );
    case 'ListRecords':
      return rendered(await provider.listRecords(request, now), ({ records, format, resumptionToken }) =>
        listXml(
          'ListRecords',
          records.map((record) => recordXml(repositoryIdentifier, record, format)),
          resumptionToken,
        ),
      );
  }
}

/** The provider's router, to be mounted at OAI_PATH (its route is the mount point itself). */
export function createOaiRouter(options: OaiRouterOptions): Router {
  const repository = describeRepository(options.formats, options.settings);
  const { settings } = options;
  const providerFor = (req: Request, res: Response): OaiProvider =>
    createOaiProvider(
      typeof options.source === 'function' ? options.source(req, res) : options.source,
      repository,
    );
  const clock = settings.now ?? (() => new Date());
  const send = (res: Response, status: number, now: Date, echo: readonly [string, string][], body: string) =>
    res
      .status(status)
      .type(CONTENT_TYPE)
      .send(envelope({ responseDate: now, baseUrl: settings.baseUrl, echo }, body));

  /** Every OAI-PMH answer, errors included, is HTTP 200 (§3.1.2.1, §3.6). */
  async function answer(provider: OaiProvider, pairs: [string, string][], res: Response): Promise<void> {
    const now = clock();
    const parsed = parseArguments(pairs);
    const outcome: Outcome =
      'errors' in parsed
        ? { errors: parsed.errors }
        : await answerVerb(provider, parsed.request, now, settings.repositoryIdentifier);
    const echo = isRefusal(outcome) && !echoesArguments(outcome.errors) ? [] : parsed.echo;
    send(res, 200, now, echo, isRefusal(outcome) ? errorsXml(outcome.errors) : outcome.body);
  }

  /** Not a request OAI-PMH can read: its HTTP status, and an OAI-PMH badArgument saying why. */
  const refuse = (res: Response, status: number, message: string) =>
    send(res, status, clock(), [], errorsXml([oaiError('badArgument', message)]));

  const readForm = express.text({
    type: (req) => FORM.test(req.headers['content-type'] ?? ''),
    limit: FORM_LIMIT,
  });
  const router = express.Router();
  router
    .route('/')
    .get(async (req, res) => {
      await answer(providerFor(req, res), pairsOf(queryOf(req)), res);
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
        await answer(providerFor(req, res), [...pairsOf(queryOf(req)), ...pairsOf(body)], res);
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
  router.use(bodyErrors);
  return router;
}
