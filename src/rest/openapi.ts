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
  type OperationDefinitionNode,
  print,
} from 'graphql';
import { ERROR_STATUS, type ErrorCode } from '../errors.ts';
import { errorTypeCodes } from '../graphql/errors.ts';
import { componentSchemas, type JsonSchema, ref } from '../legacy/json-schemas.ts';
import type { Configured, LegacyRoute, OperationRoute, ParameterDoc } from './route-table.ts';

export interface OpenApiOptions {
  /** Domain name → its rows (one tag per domain). */
  domains: Record<string, readonly LegacyRoute[]>;
  operations: ReadonlyMap<string, DocumentNode>;
  schema: GraphQLSchema;
  baseUrl: string;
  sessionCookie: string;
  version: string;
  /** BaseIds the configuration knows: of the repositories (this one, then its peers), of the peers. */
  configured: Record<Configured, readonly string[]>;
  /**
   * The OAI-PMH data provider's path item, when `/oai` is served (src/oai/openapi.ts): documented
   * then only.
   */
  oai?: { pathItem: Record<string, unknown> };
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

/**
 * A Pothos auth-scope map: any of its scopes admits the caller; `$all` and `$any` nest maps whose
 * scopes must all, or any of them, admit it. A function (a scope decided per object) is never on a
 * root field (src/gateway/auth-audit.ts).
 */
type AuthScopes = { [scope: string]: unknown; $all?: AuthScopes; $any?: AuthScopes };

/** The credentials of OpenAPI's security requirements; `anonymous` is the empty requirement. */
type Credential = 'anonymous' | 'session' | 'apiToken';

/**
 * Whether some caller holding `credential` passes `scopes` (builder.ts: `person` is a session
 * person, `allRights` an API token, `permission` a person holding it or an API token).
 */
function admits(scopes: AuthScopes, credential: Credential, all = false): boolean {
  const results = Object.entries(scopes).map(([scope, value]) => {
    if (scope === '$all') return admits(value as AuthScopes, credential, true);
    if (scope === '$any') return admits(value as AuthScopes, credential, false);
    if (!value) return all;
    switch (scope) {
      case 'public':
        return true;
      case 'person':
        return credential === 'session';
      case 'allRights':
        return credential === 'apiToken';
      case 'permission':
        return credential !== 'anonymous';
      default:
        throw new Error(`Unknown auth scope ${scope}: the OpenAPI document cannot say who may call it`);
    }
  });
  return all ? results.every(Boolean) : results.some(Boolean);
}

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
  if (!admits(scopes, 'anonymous')) {
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
  const requirements: Record<string, string[]>[] = [];
  if (admits(scopes, 'anonymous')) requirements.push({});
  if (admits(scopes, 'apiToken')) requirements.push({ apiToken: [] });
  if (admits(scopes, 'session')) requirements.push({ session: [] });
  return requirements;
}

/** A `/public/` row runs as an anonymous caller: when its field admits none, it always fails. */
const alwaysDenied = (route: OperationRoute, field: GraphQLField<unknown, unknown>) =>
  Boolean(route.publicCache) && !admits(scopesOf(field), 'anonymous');

/** `{enum: ['ref', 'full']}` gets its `type`, which Swagger UI shows. */
const withEnumType = (schema: JsonSchema): JsonSchema =>
  Array.isArray(schema.enum) && !schema.type && schema.enum.every((value) => typeof value === 'string')
    ? { type: 'string', ...schema }
    : schema;

const json = (schema: JsonSchema) => ({ 'application/json': { schema } });

/** The `Warning` header of answers to input the legacy contract ignores (src/lib/warning.ts). */
const warningHeader = (ignored: string) => ({
  description: `One value per input answered anyway without being used (${ignored}): \`299 - "<parameter>: '<value>' ignored; <what was used instead> used"\`.`,
  schema: { type: 'string', pattern: '^299 - "' },
});

/**
 * A schema with each `configured` marker (route-table.ts, ParameterDoc) replaced by the values the
 * configuration knows; none configured: nothing is accepted, which the description says.
 */
function withConfigured(schema: JsonSchema, options: OpenApiOptions): JsonSchema {
  const walk = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(walk);
    if (value === null || typeof value !== 'object') return value;
    const { configured, ...rest } = value as JsonSchema & { configured?: Configured };
    const walked = Object.fromEntries(Object.entries(rest).map(([key, inner]) => [key, walk(inner)]));
    if (!configured) return walked;
    const values = options.configured[configured];
    return values.length > 0
      ? { ...walked, enum: [...values] }
      : { ...walked, not: {}, description: `${walked.description ?? ''} (none configured: always refused)` };
  };
  return walk(schema) as JsonSchema;
}

/** An OpenAPI parameter from its documentation (route-table.ts, ParameterDoc). */
function parameter(
  name: string,
  location: 'path' | 'query',
  { description, required, json: isJson, configured, ...schema }: ParameterDoc,
  options: OpenApiOptions,
) {
  const values = withConfigured(configured ? { ...schema, configured } : schema, options);
  return {
    name,
    in: location,
    ...(location === 'path' || required ? { required: true } : {}),
    ...(isJson ? { content: json(values) } : { schema: withEnumType(values) }),
    ...(description ? { description } : {}),
  };
}

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

/**
 * Path parameters of a path item shared by rows whose paths differ only by the names of their
 * parameters (`GET /api/groupe/:oid`, `DELETE /api/groupe/:nom`): OpenAPI 3.1 sees one template,
 * so they get one name, and one description saying what each method expects.
 */
interface SharedParameter {
  name: string;
  description?: string;
}

const pathParameterNames = (path: string) => [...path.matchAll(/:(\w+)/g)].map(([, name]) => name!);

function parameterDescription(route: OperationRoute, name: string): string {
  const { description, pattern } = route.doc?.params?.[name] ?? {};
  return description ?? (pattern ? `${name} (${pattern})` : name);
}

function sharedParameters(
  rows: Array<{ route: OperationRoute; path: string }>,
): SharedParameter[] | undefined {
  const names = rows.map(({ path }) => pathParameterNames(path));
  const positions = names[0]!.map((_, index) => [...new Set(names.map((list) => list[index]!))]);
  if (positions.every((distinct) => distinct.length === 1)) return undefined;
  return positions.map((distinct, index) => {
    if (distinct.length === 1) return { name: distinct[0]! };
    return {
      name: distinct.map((name, i) => (i ? name[0]!.toUpperCase() + name.slice(1) : name)).join('Or'),
      description: rows
        .map(({ route, path }) => {
          const own = pathParameterNames(path)[index]!;
          return `${route.method.toUpperCase()}: ${parameterDescription(route, own)}`;
        })
        .join('; '),
    };
  });
}

/**
 * The parameters of a row: its path's (named as the path item shares them, described by the row's
 * own documentation unless the shared one says what each method expects), then its query's.
 */
function operationParameters(
  route: OperationRoute,
  path: string,
  options: OpenApiOptions,
  shared: SharedParameter[] | undefined,
) {
  const doc = route.doc ?? { summary: '' };
  return [
    ...pathParameterNames(path).map((own, index) => {
      const name = shared?.[index]?.name ?? own;
      const { description, ...rest } = parameter(
        name,
        'path',
        doc.params?.[own] ?? { type: 'string' },
        options,
      );
      const sharedDescription = shared?.[index]?.description;
      return {
        ...rest,
        ...(sharedDescription || description ? { description: sharedDescription ?? description } : {}),
      };
    }),
    ...Object.entries(doc.query ?? {}).map(([name, query]) => parameter(name, 'query', query, options)),
  ];
}

/** A 400 that lists the messages the row's own checks answer, each as an example. */
function invalidInputResponse(invalid: readonly string[]) {
  return {
    description: `${STATUS_TEXT[400]}. Messages: ${invalid.map((message) => `“${message}”`).join('; ')}.`,
    content: {
      'application/json': {
        schema: ref('Failure'),
        examples: Object.fromEntries(
          invalid.map((message, index) => [
            `invalid${index + 1}`,
            { summary: message, value: { success: false, error: message } },
          ]),
        ),
      },
    },
  };
}

/**
 * The responses of a row, by status: its success (none when it is always denied), 304 for a cached
 * GET, the derived and transport failures, then what the row's documentation says in their place.
 */
function operationResponses(
  route: OperationRoute,
  field: GraphQLField<unknown, unknown>,
  denied: boolean,
): Record<string, unknown> {
  const doc = route.doc ?? { summary: '' };
  const responses: Record<string, unknown> = {};
  const success = route.status ?? 200;
  if (!denied) {
    responses[success] = {
      description: STATUS_TEXT[success] ?? 'Success',
      ...(doc.ignored ? { headers: { Warning: warningHeader(doc.ignored) } } : {}),
      content: json(successSchema(doc.payload)),
    };
  }
  if (route.publicCache && route.method === 'get') {
    responses[304] = { description: STATUS_TEXT[304] };
  }
  const errors = doc.noDerivedErrors ? [] : errorStatuses(route, field);
  // Checked before the route runs, whatever it does with failures.
  const transport = route.method === 'post' ? [400, 413] : [400];
  for (const status of new Set([...errors, ...transport])) {
    responses[status] = { description: STATUS_TEXT[status] ?? 'Failure', content: json(ref('Failure')) };
  }
  if (doc.invalid?.length) responses[400] = invalidInputResponse(doc.invalid);
  for (const [status, schema] of Object.entries(doc.responses ?? {})) {
    responses[status] = {
      description: STATUS_TEXT[Number(status)] ?? 'Answer',
      ...(Number(status) === success && doc.ignored
        ? { headers: { Warning: warningHeader(doc.ignored) } }
        : {}),
      content: json(schema),
    };
  }
  return responses;
}

/**
 * The operation's description: the row's own, then what the route table says of it (the GraphQL
 * operation it runs, a GET that changes state, a `/public/` row that is always refused or cached).
 */
function operationNotes(
  route: OperationRoute,
  operation: OperationDefinitionNode,
  field: GraphQLField<unknown, unknown>,
  denied: boolean,
): string {
  const variables = (operation.variableDefinitions ?? []).map(
    (v) => `$${v.variable.name.value}: ${print(v.type)}`,
  );
  return [
    route.doc?.description,
    `Runs the GraphQL operation \`${route.operation}\` (root field \`${field.name}\`${
      variables.length ? `; variables ${variables.join(', ')}` : ''
    }): the same query can be sent to /graphql.`,
    route.changesState
      ? 'Changes state although a GET: refused when a page of another site sends it.'
      : undefined,
    denied
      ? `Always refused: its operation needs credentials (${security({ ...route, publicCache: false }, field)
          .flatMap(Object.keys)
          .join(' or ')}), which a \`/public/\` route never reads.`
      : undefined,
    route.publicCache
      ? 'Runs as an anonymous caller whatever the cookie or token; answers carry `Cache-Control` and an `ETag`.'
      : undefined,
  ]
    .filter(Boolean)
    .join('\n\n');
}

/** `post` `/api/groupe/:oid` → `postApiGroupeOid`. */
const operationId = (route: OperationRoute, path: string) =>
  `${route.method}${path.replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ?? '').toUpperCase())}`;

/** A body is taken as JSON or as a form, with the same fields. */
function requestBody(body: JsonSchema, options: OpenApiOptions) {
  return {
    required: true,
    content: {
      'application/json': { schema: withConfigured(body, options) },
      'application/x-www-form-urlencoded': { schema: withConfigured(body, options) },
    },
  };
}

function operationObject(
  route: OperationRoute,
  path: string,
  tag: string,
  options: OpenApiOptions,
  shared?: SharedParameter[],
): Record<string, unknown> {
  const document = options.operations.get(route.operation);
  if (!document)
    throw new Error(`Route ${route.method.toUpperCase()} ${path}: no operation ${route.operation}`);
  const { operation, field } = rootField(options.schema, document, route.operation);
  const doc = route.doc ?? { summary: '' };
  const parameters = operationParameters(route, path, options, shared);
  const denied = alwaysDenied(route, field);
  return {
    tags: [tag],
    summary: doc.summary,
    description: operationNotes(route, operation, field, denied),
    operationId: operationId(route, path),
    ...(parameters.length ? { parameters } : {}),
    ...(doc.body ? { requestBody: requestBody(doc.body, options) } : {}),
    responses: operationResponses(route, field, denied),
    security: security(route, field),
    'x-graphql-operation': route.operation,
  };
}

export function buildOpenApiDocument(options: OpenApiOptions): Record<string, unknown> {
  const rows = Object.entries(options.domains).flatMap(([tag, routes]) =>
    routes.flatMap((route) =>
      route.method === 'options' ? [] : route.paths.map((path) => ({ tag, route, path })),
    ),
  );
  const template = (path: string) => path.replace(/:\w+/g, ':');
  const byTemplate = new Map<string, typeof rows>();
  for (const row of rows)
    byTemplate.set(template(row.path), [...(byTemplate.get(template(row.path)) ?? []), row]);
  const paths: Record<string, Record<string, unknown>> = {};
  for (const { tag, route, path } of rows) {
    const shared = sharedParameters(byTemplate.get(template(path))!);
    let index = 0;
    const key = path.replace(/:(\w+)/g, (_match, own: string) => `{${shared?.[index++]?.name ?? own}}`);
    paths[key] = { ...paths[key], [route.method]: operationObject(route, path, tag, options, shared) };
  }
  if (options.oai) paths['/oai'] = options.oai.pathItem;
  return {
    openapi: '3.1.0',
    info: {
      title: 'Resource Repository Service — legacy REST API',
      version: options.version,
      description: `The legacy \`/api\` routes (docs/api.md; compatibility decisions in docs/compatibility.md). Each route runs one named GraphQL operation of the gateway at /graphql, which holds every rule: successes are \`{success: true, …}\`, failures \`{success: false, error}\` with the status of the error. Generated from the route table (src/rest/routes/).${
        options.oai
          ? ' Beside them, `/oai`: the OAI-PMH 2.0 data provider, answering XML (docs/oai-pmh.md).'
          : ''
      }`,
    },
    servers: [{ url: new URL(options.baseUrl).pathname.replace(/\/$/, '') || '/' }],
    tags: [...Object.keys(options.domains), ...(options.oai ? ['OAI-PMH'] : [])].map((name) => ({ name })),
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
