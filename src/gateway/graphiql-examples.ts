/**
 * GraphiQL's example tabs: one named operation per domain, taken from the operations the REST
 * routes run (src/rest/operations/), with variables that run as shown on this database. A fixed
 * `oid: 1` or `ref: "1"` answered NOT_FOUND on most databases (the demo's tree has another oid), so
 * the variables name the first public resource, tree and group, read as an anonymous caller reads
 * them (a tab never shows what a visitor may not read). A database without one says so in the tab,
 * with the command that loads the demo data.
 */
import { type DocumentNode, type FragmentDefinitionNode, Kind, print, visit } from 'graphql';
import type { GraphiQLOptions } from 'graphql-yoga';
import { anonymousViewer } from '../auth/viewer.ts';
import { db } from '../db/client.ts';
import { readableWhere } from '../modules/resources/resources.policy.ts';
import { TOKEN_HEADER_HINT } from './graphiql.ts';

/** What the examples need from the database: `null` where it holds nothing public of the kind. */
export interface ExampleData {
  resourceOid: number | null;
  treeOid: number | null;
  groupName: string | null;
}

export const NO_EXAMPLE_DATA: ExampleData = { resourceOid: null, treeOid: null, groupName: null };

type Variables = Record<string, unknown>;

interface Example {
  operation: string;
  /**
   * The variables on this database; where it lacks what the operation needs, `missing` names it and
   * the variables are placeholders of the right shape (the demo's names, where the operation takes one).
   */
  variables(data: ExampleData, baseUrl: string): { variables: Variables; missing?: string };
}

/** The tabs, in the order GraphiQL shows them. */
export const GRAPHIQL_EXAMPLES: readonly Example[] = [
  { operation: 'CurrentSession', variables: () => ({ variables: {} }) },
  {
    operation: 'SearchResources',
    // A search that finds nothing still runs: an empty page is an answer.
    variables: () => ({
      variables: {
        filters: [{ index: 'type', values: ['url'] }],
        nb: 5,
        asRef: true,
        light: false,
        full: false,
      },
    }),
  },
  {
    operation: 'ResourceByOid',
    variables: ({ resourceOid }) => {
      const shape = { asRef: false, full: false, droits: true };
      return resourceOid === null
        ? { missing: 'public resource', variables: { oid: 1, ...shape } }
        : { variables: { oid: resourceOid, ...shape } };
    },
  },
  {
    operation: 'GroupByName',
    variables: ({ groupName }) =>
      groupName === null
        ? { missing: 'public group', variables: { nom: 'Démo 6e A', full: true } }
        : { variables: { nom: groupName, full: true } },
  },
  {
    operation: 'Jstree',
    variables: ({ treeOid }) =>
      treeOid === null
        ? { missing: 'public tree', variables: { ref: 'demo/parcours-6e', childrenOnly: false } }
        : { variables: { ref: String(treeOid), childrenOnly: false } },
  },
  // The service's own address is always known.
  { operation: 'BaseIdOfUrl', variables: (_data, baseUrl) => ({ variables: { baseUrl } }) },
];

/** Above the operation of a tab the database cannot feed (GraphiQL reads `#` lines as comments). */
export function nothingYet(missing: string): string {
  return [
    `# Nothing to show yet: this database holds no ${missing}.`,
    '# Load the demo data: `npx rrs demo load` (or `npm run cli -- demo load`) in the checkout,',
    "# then open this page again with GraphiQL's tabs cleared (it keeps them): a private window, or clear",
    "# this site's data in the browser.",
  ].join('\n');
}

/** The first public resource, tree and group, as an anonymous caller may read them. */
export async function readExampleData(): Promise<ExampleData> {
  const visible = readableWhere({ viewer: anonymousViewer, groupOids: new Set() });
  const first = { select: { oid: true }, orderBy: { oid: 'asc' } } as const;
  const [resource, tree, group] = await Promise.all([
    db.resource.findFirst({ where: { AND: [visible, { type: { not: 'arbre' } }] }, ...first }),
    db.resource.findFirst({ where: { AND: [visible, { type: 'arbre' }] }, ...first }),
    db.group.findFirst({ where: { public: true }, select: { nom: true }, orderBy: { oid: 'asc' } }),
  ]);
  return { resourceOid: resource?.oid ?? null, treeOid: tree?.oid ?? null, groupName: group?.nom ?? null };
}

/** The operation's text with only the fragments it uses, so that the tab runs on its own. */
export function operationText(document: DocumentNode, name: string): string {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  const operation = document.definitions.find(
    (definition) => definition.kind === Kind.OPERATION_DEFINITION && definition.name?.value === name,
  );
  if (!operation) throw new Error(`No operation ${name}`);
  const used = new Set<string>();
  const pending = [operation];
  while (pending.length > 0) {
    visit(pending.pop()!, {
      FragmentSpread(spread) {
        const fragment = fragments.get(spread.name.value);
        if (fragment && !used.has(fragment.name.value)) {
          used.add(fragment.name.value);
          pending.push(fragment);
        }
      },
    });
  }
  return [operation, ...[...used].map((fragmentName) => fragments.get(fragmentName)!)]
    .map((d) => print(d))
    .join('\n\n');
}

/** The tabs GraphiQL opens with (unless the browser kept tabs of an earlier visit). */
export function exampleTabs(
  operations: ReadonlyMap<string, DocumentNode>,
  data: ExampleData,
  baseUrl: string,
): NonNullable<GraphiQLOptions['defaultTabs']> {
  return GRAPHIQL_EXAMPLES.map(({ operation, variables }) => {
    const document = operations.get(operation);
    if (!document) throw new Error(`GraphiQL example names unknown operation ${operation}`);
    const text = operationText(document, operation);
    const chosen = variables(data, baseUrl);
    return {
      query: chosen.missing ? `${nothingYet(chosen.missing)}\n${text}` : text,
      variables: JSON.stringify(chosen.variables, null, 2),
      headers: TOKEN_HEADER_HINT,
    };
  });
}

/** How long a visit waits for the examples' data before the page is sent with the last known. */
const READ_TIMEOUT_MS = 2_000;

/**
 * The tabs of each visit: the database is read again (three indexed look-ups, concurrently), so
 * that a page rendered before `demo load` is rendered anew after it, without a restart. A slow or
 * unavailable database does not hold the page: it is sent with the last data read.
 */
export function exampleTabsSource(
  operations: ReadonlyMap<string, DocumentNode>,
  baseUrl: string,
  read: () => Promise<ExampleData> = readExampleData,
): () => Promise<NonNullable<GraphiQLOptions['defaultTabs']>> {
  // Checked once here: an unknown operation is a programming error, not a visit's.
  exampleTabs(operations, NO_EXAMPLE_DATA, baseUrl);
  let last = NO_EXAMPLE_DATA;
  return async () => {
    let timer: NodeJS.Timeout | undefined;
    try {
      last = await Promise.race([
        read(),
        new Promise<never>((_resolve, reject) => {
          timer = setTimeout(() => reject(new Error('examples read timed out')), READ_TIMEOUT_MS);
          timer.unref();
        }),
      ]);
    } catch {
      // The page is documentation: it is sent with the last data read.
    } finally {
      clearTimeout(timer);
    }
    return exampleTabs(operations, last, baseUrl);
  };
}
