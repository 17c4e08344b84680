/**
 * `/oai` in the OpenAPI document: the OAI-PMH 2.0 data provider (src/oai/router.ts). It is not a
 * row of the route table (no GraphQL operation of its own, XML answers), so it is described here,
 * beside the provider, and handed to the document's builder (src/rest/openapi.ts) by src/app.ts.
 * Its arguments depend on the verb, which OpenAPI cannot say of one path: each parameter names the
 * verbs that take it, and an argument given to another verb is answered with badArgument, like
 * every protocol error with HTTP 200 and an `<error>` element.
 */
import { ref } from '../legacy/json-schemas.ts';
import { VERBS } from './arguments.ts';

/** An outage or a fault met by the source goes to the service's shared handlers, which answer JSON. */
const sharedFailure = (description: string) => ({
  description,
  content: { 'application/json': { schema: ref('Failure') } },
});

const xml = (description: string) => ({
  description,
  content: { 'text/xml': { schema: { type: 'string' } } },
});

/** The schema's patterns (OAI-PMH.xsd), as the router checks them. */
const DATESTAMP = {
  type: 'string',
  pattern: '^\\d{4}-\\d{2}-\\d{2}(T\\d{2}:\\d{2}:\\d{2}Z)?$',
  examples: ['2026-01-01', '2026-01-01T00:00:00Z'],
};

function argumentSchemas(repositoryIdentifier: string) {
  return {
    verb: {
      schema: { type: 'string', enum: [...VERBS] },
      description: 'The request. A missing, unknown or repeated verb is badVerb.',
    },
    identifier: {
      schema: { type: 'string', examples: [`oai:${repositoryIdentifier}:1`] },
      description:
        'GetRecord (required), ListMetadataFormats: `oai:<repositoryIdentifier>:<oid>`; one this repository has not is idDoesNotExist.',
    },
    metadataPrefix: {
      schema: { type: 'string', pattern: "^[A-Za-z0-9\\-_.!~*'()]+$", examples: ['oai_dc'] },
      description:
        'GetRecord, ListIdentifiers, ListRecords (required): a format ListMetadataFormats lists; another is cannotDisseminateFormat.',
    },
    from: {
      schema: DATESTAMP,
      description:
        'ListIdentifiers, ListRecords: records changed at or after it (a day: from 00:00:00Z). Same granularity as `until`, and not after it.',
    },
    until: {
      schema: DATESTAMP,
      description: 'ListIdentifiers, ListRecords: records changed at or before it (a day: to 23:59:59Z).',
    },
    set: {
      schema: {
        type: 'string',
        pattern: "^[A-Za-z0-9\\-_.!~*'()]+(:[A-Za-z0-9\\-_.!~*'()]+)*$",
        examples: ['type:url'],
      },
      description:
        'ListIdentifiers, ListRecords: a setSpec ListSets lists (`type:<type>`, `niveau:<level>`, `categorie:<id>`).',
    },
    resumptionToken: {
      schema: { type: 'string' },
      description:
        'ListIdentifiers, ListRecords: the token of the previous page, alone with the verb (an exclusive argument). A token altered, expired or of another verb is badResumptionToken.',
    },
  };
}

const DESCRIPTION =
  'OAI-PMH 2.0 (http://www.openarchives.org/OAI/openarchivesprotocol.html): Identify, ListMetadataFormats, ListSets, ListIdentifiers, ListRecords, GetRecord over every public, published resource, with deleted records (`deletedRecord: persistent`). Answers are XML (`text/xml; charset=utf-8`); a protocol error (badArgument, badResumptionToken, badVerb, cannotDisseminateFormat, idDoesNotExist, noRecordsMatch, noSetHierarchy) is an `<error code>` element in an HTTP 200 answer, as the protocol requires. Lists come in pages with a `resumptionToken`. See docs/oai-pmh.md.';

/** The path item of `/oai`. */
export function oaiPathItem(repositoryIdentifier: string): Record<string, unknown> {
  const schemas = argumentSchemas(repositoryIdentifier);
  const ok = xml("The OAI-PMH response: the verb's element, or one `<error>` per error condition");
  return {
    get: {
      tags: ['OAI-PMH'],
      summary: 'OAI-PMH 2.0 request',
      description: DESCRIPTION,
      operationId: 'getOai',
      parameters: Object.entries(schemas).map(([name, { schema, description }]) => ({
        name,
        in: 'query',
        ...(name === 'verb' ? { required: true } : {}),
        schema,
        description,
      })),
      responses: {
        200: ok,
        500: sharedFailure('Internal error (masked)'),
        503: sharedFailure('Database unavailable: retry after Retry-After seconds'),
      },
      security: [{}],
    },
    post: {
      tags: ['OAI-PMH'],
      summary: 'OAI-PMH 2.0 request, arguments in a form',
      description: `${DESCRIPTION}\n\nThe same arguments as GET, as an \`application/x-www-form-urlencoded\` body (an argument given both there and in the query string is repeated: badArgument).`,
      operationId: 'postOai',
      requestBody: {
        required: true,
        content: {
          'application/x-www-form-urlencoded': {
            schema: {
              type: 'object',
              properties: Object.fromEntries(
                Object.entries(schemas).map(([name, { schema, description }]) => [
                  name,
                  { ...schema, description },
                ]),
              ),
              required: ['verb'],
            },
          },
        },
      },
      responses: {
        200: ok,
        413: xml('Body larger than 16 kB: OAI-PMH badArgument'),
        415: xml('A body other than application/x-www-form-urlencoded: OAI-PMH badArgument'),
        500: sharedFailure('Internal error (masked)'),
        503: sharedFailure('Database unavailable: retry after Retry-After seconds'),
      },
      security: [{}],
    },
  };
}
