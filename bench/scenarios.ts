/**
 * The benchmark scenarios: each is a legacy REST request and the equivalent GraphQL request (the
 * same named operation and variables the REST row builds, so both run the same resolvers).
 */
import { type DocumentNode, Kind, print, visit } from 'graphql';
import { schema } from '../src/graphql/schema.ts';
import { loadOperations } from '../src/rest/operations.ts';
import type { OperationRoute, RequestParts } from '../src/rest/route-table.ts';
import { legacyRoutes } from '../src/rest/routes/index.ts';

export interface Scenario {
  name: string;
  rest: string;
  graphql: { query: string; operationName: string; variables: Record<string, unknown> };
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

function scenario(name: string, path: string, query: Record<string, string>): Scenario {
  const route = legacyRoutes.find((r): r is OperationRoute => r.method === 'get' && r.paths.includes(path))!;
  const parts: RequestParts = { path, params: {}, query, body: {} };
  const document = loadOperations(schema).get(route.operation)!;
  return {
    name,
    rest: `${path}?${new URLSearchParams(query)}`,
    graphql: {
      query: requestText(document),
      operationName: route.operation,
      variables: route.variables!(parts),
    },
  };
}

export const scenarios: Scenario[] = [
  scenario('liste nb=500', '/api/liste', { nb: '500' }),
  scenario('auteurs (3 pids)', '/api/liste/auteurs', { pids: 'bench/1,bench/2,bench/3', limit: '500' }),
  scenario('filtered, ordered', '/api/liste', {
    type: 'em',
    categories: '7,5',
    niveaux: '6e',
    orderBy: 'dateMiseAJour',
    order: 'desc',
    nb: '50',
  }),
];
