/**
 * The benchmark scenarios: each is a legacy REST request, the equivalent GraphQL request (the same
 * named operation and variables the REST row builds, so both run the same resolvers), and where
 * the anchors have one, PostGraphile's document for the same data and the one-statement limit's
 * and the Express limit's routes. `:oid` stands for a public resource of the bench database (chosen
 * at run time).
 */
import { type DocumentNode, Kind, print, visit } from 'graphql';
import { schema } from '../src/gateway/schema.ts';
import { loadRestOperations } from '../src/rest/operations.ts';
import type { OperationRoute, RequestParts } from '../src/rest/route-table.ts';
import { legacyRoutes } from '../src/rest/routes/index.ts';
import { BENCH_TOKEN } from './token.ts';

export interface Scenario {
  name: string;
  rest: string;
  headers: Record<string, string>;
  graphql: { query: string; operationName: string; variables: Record<string, unknown> };
  /** Key of PostGraphile's document in the anchor's queries.json. */
  postgraphile?: string;
  /** Route of the one-statement limit. */
  limit?: string;
  /** Route of the Express limit (the one-statement limit's full read behind Express). */
  expressLimit?: string;
  /** What REST must reach, as a multiple of each anchor's requests per second. */
  targets: Targets;
}

export interface Targets {
  postgraphile?: number;
  expressLimit?: number;
}

/** The operation and only the fragments it uses, as a request document. */
function requestText(document: DocumentNode): string {
  const fragments = new Map(
    document.definitions.flatMap((d) =>
      d.kind === Kind.FRAGMENT_DEFINITION ? [[d.name.value, d] as const] : [],
    ),
  );
  const used = new Set<string>();
  const pending = [document.definitions[0]!];
  while (pending.length > 0) {
    visit(pending.pop()!, {
      FragmentSpread(node) {
        if (!used.has(node.name.value)) {
          used.add(node.name.value);
          pending.push(fragments.get(node.name.value)!);
        }
      },
    });
  }
  return print({
    kind: Kind.DOCUMENT,
    definitions: [document.definitions[0]!, ...[...used].map((name) => fragments.get(name)!)],
  });
}

interface Definition {
  name: string;
  /** The route row's path and its parameters. */
  route: string;
  params?: Record<string, string>;
  query: Record<string, string>;
  token?: boolean;
  postgraphile?: string;
  limit?: string;
  expressLimit?: string;
  targets?: Targets;
}

function scenario(definition: Definition, oid: number): Scenario {
  const { route: path, query } = definition;
  const params = Object.fromEntries(
    Object.entries(definition.params ?? {}).map(([key, value]) => [key, value.replace(':oid', String(oid))]),
  );
  const route = legacyRoutes.find((r): r is OperationRoute => r.method === 'get' && r.paths.includes(path))!;
  const concrete = path.replace(/:(\w+)/g, (_match, name: string) => params[name]!);
  const parts: RequestParts = { path: concrete, params, query, body: {}, warnings: [] };
  const document = loadRestOperations(schema).get(route.operation)!;
  const search = new URLSearchParams(query).toString();
  return {
    name: definition.name,
    rest: search ? `${concrete}?${search}` : concrete,
    headers: definition.token ? { 'X-ApiToken': BENCH_TOKEN } : {},
    graphql: {
      query: requestText(document),
      operationName: route.operation,
      variables: route.variables!(parts),
    },
    postgraphile: definition.postgraphile,
    limit: definition.limit?.replace(':oid', String(oid)),
    expressLimit: definition.expressLimit?.replace(':oid', String(oid)),
    targets: definition.targets ?? {},
  };
}

const DEFINITIONS: Definition[] = [
  {
    name: 'one resource, full (token)',
    route: '/api/ressource/:oid',
    params: { oid: ':oid' },
    query: { format: 'full' },
    token: true,
    postgraphile: 'single_full',
    limit: '/:oid',
    expressLimit: '/:oid',
    targets: { postgraphile: 1.5, expressLimit: 0.6 },
  },
  {
    name: 'public resource (anonymous)',
    route: '/api/public/:oid',
    params: { oid: ':oid' },
    query: {},
    postgraphile: 'single_full',
    targets: { postgraphile: 2.5 },
  },
  {
    name: 'list of 500, light',
    route: '/api/liste',
    query: { nb: '500', format: 'light' },
    postgraphile: 'list500',
    limit: '/list500',
    targets: { postgraphile: 1 },
  },
  {
    name: '25 of type em, newest first',
    route: '/api/liste',
    query: { type: 'em', orderBy: 'dateMiseAJour', order: 'desc', nb: '25', format: 'light' },
    postgraphile: 'filtered25',
    targets: { postgraphile: 1 },
  },
  {
    name: 'authors (3 pids)',
    route: '/api/liste/auteurs',
    query: { pids: 'bench/1,bench/2,bench/3', limit: '500' },
  },
  {
    name: 'filtered, ordered',
    route: '/api/liste',
    query: {
      type: 'em',
      categories: '7,5',
      niveaux: '6e',
      orderBy: 'dateMiseAJour',
      order: 'desc',
      nb: '50',
    },
  },
];

/** The scenarios for a database whose chosen public resource is `oid`. */
export const scenariosFor = (oid: number): Scenario[] =>
  DEFINITIONS.map((definition) => scenario(definition, oid));
