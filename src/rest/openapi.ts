/**
 * The OpenAPI 3.1 document of the legacy routes, generated from the route table at start-up.
 * Derived from each row: paths (Express `:param` → `{param}`), path parameters, methods, the
 * success status, the GraphQL operation and its variables, the callers its root field admits
 * (`authScopes`) and the error statuses: those of the error types in the field's result union, of
 * its auth scopes, and of the shared pipeline (input checks, body limit, rate limits, cross-site
 * policy, outages). Each row's `doc` adds only what cannot be read from it: a summary, query and
 * body parameters, the legacy payload.
 */
import {
  type DocumentNode,
  type GraphQLField,
  type GraphQLSchema,
  getNamedType,
  getOperationAST,
  isObjectType,
  isUnionType,
  Kind,
  print,
} from 'graphql';
import { ERROR_STATUS, type ErrorCode } from '../errors.ts';
import { errorTypeCodes } from '../graphql/errors.ts';
import { componentSchemas, ref } from './api-schemas.ts';
import type { JsonSchema, LegacyRoute, OperationRoute } from './route-table.ts';

export interface OpenApiOptions {
  /** Domain name → its rows (one tag per domain). */
  domains: Record<string, readonly LegacyRoute[]>;
  operations: ReadonlyMap<string, DocumentNode>;
  schema: GraphQLSchema;
  baseUrl: string;
  sessionCookie: string;
  version: string;
}

const STATUS_TEXT: Record<number, string> = {
  200: 'Success',
  304: 'Not modified (the ETag sent in If-None-Match still matches)',
  400: 'Invalid input (parameters, body or a hostile value)',
  401: 'Authentication required, or a login the lab refused',
  403: 'Not allowed, or a state change sent by a page of another site',
  404: 'Not found',
  409: 'Conflict',
  413: 'Body larger than http.bodyLimit',
  429: 'Too many failed authentications: retry after Retry-After seconds',
  500: 'Internal error (masked)',
  502: 'A lab or peer could not be reached or answered something unusable',
  503: 'Database unavailable: retry after Retry-After seconds',
  504: 'Time-out (of the route, or of a lab or peer)',
};

/** Express `/api/ressource/:oid` → OpenAPI `/api/ressource/{oid}`. */
export const openApiPath = (path: string) => path.replace(/:(\w+)/g, '{$1}');

function rootField(schema: GraphQLSchema, document: DocumentNode, name: string) {
  const operation = getOperationAST(document, name);
  const selection = operation?.selectionSet.selections[0];
  if (!operation || selection?.kind !== Kind.FIELD) throw new Error(`Operation ${name} has no root field`);
  const root = operation.operation === 'mutation' ? schema.getMutationType() : schema.getQueryType();
  const field = root?.getFields()[selection.name.value];
  if (!field) throw new Error(`Operation ${name}: no root field ${selection.name.value}`);
  return { operation, field };
}

type AuthScopes = Partial<Record<'public' | 'person' | 'allRights' | 'permission', unknown>>;

const scopesOf = (field: GraphQLField<unknown, unknown>) =>
  ((field.extensions as { pothosOptions?: { authScopes?: AuthScopes } }).pothosOptions?.authScopes ??
    {}) as AuthScopes;

/** Statuses of the error types a field's result union lists. */
function unionErrorStatuses(field: GraphQLField<unknown, unknown>): number[] {
  const type = getNamedType(field.type);
  if (!isUnionType(type)) return [];
  return type
    .getTypes()
    .filter((member) => isObjectType(member) && member.getInterfaces().some((i) => i.name === 'Error'))
    .flatMap((member) => (errorTypeCodes.get(member.name) ?? ['INTERNAL']) as ErrorCode[])
    .map((code) => ERROR_STATUS[code]);
}

function errorStatuses(route: OperationRoute, field: GraphQLField<unknown, unknown>): number[] {
  const scopes = scopesOf(field);
  const statuses = new Set<number>([400, 500, 503]);
  // A wrong X-ApiToken counts as a failed authentication; /public/ routes never read the token.
  if (!route.publicCache) statuses.add(429);
  if (route.method === 'post') statuses.add(413);
  if (route.method !== 'get' || route.changesState) statuses.add(403);
  if (route.timeoutMs) statuses.add(504);
  if (!scopes.public) {
    statuses.add(401);
    statuses.add(403);
  }
  for (const status of unionErrorStatuses(field)) statuses.add(status);
  return [...statuses].sort();
}

/** Which credentials the root field's scopes admit (OpenAPI security requirements). */
function security(route: OperationRoute, field: GraphQLField<unknown, unknown>) {
  if (route.publicCache) return [{}];
  const scopes = scopesOf(field);
  if (scopes.public) return [{}, { apiToken: [] }, { session: [] }];
  const requirements: Record<string, string[]>[] = [];
  if (scopes.person || scopes.permission) requirements.push({ session: [] });
  if (scopes.allRights || scopes.permission) requirements.push({ apiToken: [] });
  return requirements;
}

/** `{enum: ['ref', 'full']}` gets its `type`, which Swagger UI shows. */
const withEnumType = (schema: JsonSchema): JsonSchema =>
  Array.isArray(schema.enum) && !schema.type && schema.enum.every((value) => typeof value === 'string')
    ? { type: 'string', ...schema }
    : schema;

const json = (schema: JsonSchema) => ({ 'application/json': { schema } });

function successSchema(payload: JsonSchema | undefined): JsonSchema {
  const properties = (payload?.properties ?? {}) as Record<string, JsonSchema>;
  const required = (payload?.required ?? []) as string[];
  return {
    ...payload,
    type: 'object',
    properties: { success: { const: true }, ...properties },
    required: ['success', ...required],
  };
}

function operationObject(
  route: OperationRoute,
  path: string,
  tag: string,
  options: OpenApiOptions,
): Record<string, unknown> {
  const document = options.operations.get(route.operation);
  if (!document)
    throw new Error(`Route ${route.method.toUpperCase()} ${path}: no operation ${route.operation}`);
  const { operation, field } = rootField(options.schema, document, route.operation);
  const doc = route.doc ?? { summary: '' };

  const parameters = [
    ...[...path.matchAll(/:(\w+)/g)].map(([, name]) => {
      const { description, ...schema } = doc.params?.[name!] ?? { type: 'string' };
      return { name, in: 'path', required: true, schema, ...(description ? { description } : {}) };
    }),
    ...Object.entries(doc.query ?? {}).map(([name, { description, ...schema }]) => ({
      name,
      in: 'query',
      schema: withEnumType(schema),
      ...(description ? { description } : {}),
    })),
  ];

  const responses: Record<string, unknown> = {};
  const success = route.status ?? 200;
  responses[success] = {
    description: STATUS_TEXT[success] ?? 'Success',
    content: json(successSchema(doc.payload)),
  };
  if (route.publicCache && route.method === 'get') {
    responses[304] = { description: STATUS_TEXT[304] };
  }
  const errors = doc.noDerivedErrors ? [] : errorStatuses(route, field);
  // Checked before the route runs, whatever it does with failures.
  const transport = route.method === 'post' ? [400, 413] : [400];
  for (const status of new Set([...errors, ...transport])) {
    responses[status] = { description: STATUS_TEXT[status] ?? 'Failure', content: json(ref('Failure')) };
  }
  for (const [status, schema] of Object.entries(doc.responses ?? {})) {
    responses[status] = { description: STATUS_TEXT[Number(status)] ?? 'Answer', content: json(schema) };
  }

  const variables = (operation.variableDefinitions ?? []).map(
    (v) => `$${v.variable.name.value}: ${print(v.type)}`,
  );
  const notes = [
    doc.description,
    `Runs the GraphQL operation \`${route.operation}\` (root field \`${field.name}\`${
      variables.length ? `; variables ${variables.join(', ')}` : ''
    }): the same query can be sent to /graphql.`,
    route.changesState
      ? 'Changes state although a GET: refused when a page of another site sends it.'
      : undefined,
    route.publicCache
      ? 'Runs as an anonymous caller whatever the cookie or token; answers carry `Cache-Control` and an `ETag`.'
      : undefined,
  ].filter(Boolean);

  return {
    tags: [tag],
    summary: doc.summary,
    description: notes.join('\n\n'),
    operationId: `${route.method}${path.replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ?? '').toUpperCase())}`,
    ...(parameters.length ? { parameters } : {}),
    ...(doc.body
      ? {
          requestBody: {
            required: true,
            content: {
              'application/json': { schema: doc.body },
              'application/x-www-form-urlencoded': { schema: doc.body },
            },
          },
        }
      : {}),
    responses,
    security: security(route, field),
    'x-graphql-operation': route.operation,
  };
}

export function buildOpenApiDocument(options: OpenApiOptions): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const [tag, routes] of Object.entries(options.domains)) {
    for (const route of routes) {
      if (route.method === 'options') continue;
      for (const path of route.paths) {
        const key = openApiPath(path);
        paths[key] = { ...paths[key], [route.method]: operationObject(route, path, tag, options) };
      }
    }
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Resource Repository Service — legacy REST API',
      version: options.version,
      description:
        'The legacy `/api` routes (docs/api.md; compatibility decisions in docs/compatibility.md). Each route runs one named GraphQL operation of the gateway at /graphql, which holds every rule: successes are `{success: true, …}`, failures `{success: false, error}` with the status of the error. Generated from the route table (src/rest/routes/).',
    },
    servers: [{ url: new URL(options.baseUrl).pathname.replace(/\/$/, '') || '/' }],
    tags: Object.keys(options.domains).map((name) => ({ name })),
    paths,
    components: {
      schemas: componentSchemas,
      securitySchemes: {
        apiToken: {
          type: 'apiKey',
          in: 'header',
          name: 'X-ApiToken',
          description: 'a token of `apiTokens`: all rights',
        },
        session: {
          type: 'apiKey',
          in: 'cookie',
          name: options.sessionCookie,
          description: 'the session of a person logged in through a lab (POST /api/connexion)',
        },
      },
    },
  };
}
