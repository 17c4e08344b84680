/**
 * `/oai` in the OpenAPI document: documented when the provider is served, a valid OpenAPI 3.1
 * description of an XML endpoint (GET with its arguments, POST with them as a form), never otherwise.
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import { buildSchema } from 'graphql';
import { describe, expect, it } from 'vitest';
import { VERBS } from '../../src/oai/arguments.ts';
import { oaiPathItem } from '../../src/oai/openapi.ts';
import { buildOpenApiDocument, type OpenApiOptions } from '../../src/rest/openapi.ts';

const options: OpenApiOptions = {
  domains: {},
  operations: new Map(),
  schema: buildSchema('type Query { ok: Boolean }'),
  baseUrl: 'http://repo.test/',
  sessionCookie: 'connect.sid',
  version: 'test',
  configured: { repositories: ['repo'], peers: [] },
};

interface Operation {
  parameters?: { name: string; required?: boolean; schema: { enum?: string[] } }[];
  requestBody?: { content: Record<string, unknown> };
  responses: Record<string, { content?: Record<string, unknown> }>;
  security?: unknown[];
}
type PathItem = Record<string, Operation>;

describe('/oai in the OpenAPI document', () => {
  it('is absent unless the provider is served', () => {
    const document = buildOpenApiDocument(options) as {
      paths: Record<string, unknown>;
      tags: { name: string }[];
    };
    expect(document.paths['/oai']).toBeUndefined();
    expect(document.tags.map((tag) => tag.name)).not.toContain('OAI-PMH');
  });

  it('describes GET and POST answering XML, in a valid OpenAPI 3.1 document', async () => {
    const document = buildOpenApiDocument({ ...options, oai: { pathItem: oaiPathItem('repo.test') } });
    const result = await new Validator().validate(document);
    expect(result.errors, JSON.stringify(result.errors, null, 2)).toBeUndefined();
    const item = (document as { paths: Record<string, PathItem> }).paths['/oai']!;
    expect(Object.keys(item)).toEqual(['get', 'post']);
    const parameters = item.get!.parameters!;
    expect(parameters.map((parameter) => parameter.name)).toEqual([
      'verb',
      'identifier',
      'metadataPrefix',
      'from',
      'until',
      'set',
      'resumptionToken',
    ]);
    expect(parameters.filter((parameter) => parameter.required).map((parameter) => parameter.name)).toEqual([
      'verb',
    ]);
    expect(parameters[0]!.schema.enum).toEqual([...VERBS]);
    expect(JSON.stringify(parameters[1])).toContain('oai:repo.test:1');
    expect(Object.keys(item.get!.responses['200']!.content!)).toEqual(['text/xml']);
    expect(Object.keys(item.post!.requestBody!.content)).toEqual(['application/x-www-form-urlencoded']);
    expect(Object.keys(item.post!.responses).sort()).toEqual(['200', '413', '415', '500', '503']);
    expect(item.get!.security).toEqual([{}]);
  });
});
