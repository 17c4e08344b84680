/**
 * GraphiQL's example tabs (src/gateway/graphiql-examples.ts) work as shown: each tab's operation,
 * run anonymously through /graphql with the tab's variables, answers without an error once the
 * demo data is loaded; on an empty database a tab that has nothing to show says so and how to load
 * the demo. The variables are the database's own (the demo tree's oid is not 1), read again when
 * the data changes, without restarting the service.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadDemo } from '../../src/cli/commands/demo.ts';
import { createCliContext } from '../../src/cli/context.ts';
import { type ExampleData, exampleTabsSource } from '../../src/gateway/graphiql-examples.ts';
import { schema } from '../../src/gateway/schema.ts';
import { createLogger } from '../../src/logging/logger.ts';
import { loadRestOperations } from '../../src/rest/operations.ts';
import { startApp, type TestApp } from '../support/app.ts';
import { type ExampleTab, graphiqlTabs, tabOperation } from '../support/graphiql-tabs.ts';
import { graphql } from '../support/graphql.ts';

let app: TestApp;

beforeAll(async () => {
  app = await startApp();
});

afterAll(async () => {
  await app.close();
});

/** The tab's operation run as shown: the GraphQL errors, or the error member its result is. */
async function problemsOf(tab: ExampleTab): Promise<string[]> {
  const response = await graphql(app.client(), tab.query, JSON.parse(tab.variables));
  const problems = (response.errors ?? []).map((error) => error.message);
  const result = response.data?.result as
    | { __typename?: string; code?: string; message?: string }
    | undefined;
  if (!result) problems.push('no result');
  else if (/Error$/.test(result.__typename ?? '')) problems.push(`${result.code}: ${result.message}`);
  return problems;
}

const DEMO_HINT = /npm run cli -- demo load/;

it('shows on an empty database how to load the demo, and once it is loaded every tab runs as shown', async () => {
  const empty = await graphiqlTabs(app);
  expect(empty.map(tabOperation)).toEqual([
    'CurrentSession',
    'SearchResources',
    'ResourceByOid',
    'GroupByName',
    'Jstree',
    'BaseIdOfUrl',
  ]);
  const hinted: string[] = [];
  for (const tab of empty) {
    if (DEMO_HINT.test(tab.query)) hinted.push(tabOperation(tab));
    else
      expect({ tab: tabOperation(tab), problems: await problemsOf(tab) }).toEqual({
        tab: tabOperation(tab),
        problems: [],
      });
  }
  // What a fresh database lacks: a public resource, a public group, a public tree.
  expect(hinted).toEqual(['ResourceByOid', 'GroupByName', 'Jstree']);

  const emptyTag = (await app.client().get('/graphql').set('Accept', 'text/html')).headers.etag;
  expect((await app.client().get('/graphql').set('Accept', 'text/html')).headers.etag).toBe(emptyTag);

  await loadDemo(createCliContext(app.config, app.services, createLogger('silent')));
  // A browser revalidating the page gets the new one.
  const revalidated = await app
    .client()
    .get('/graphql')
    .set('Accept', 'text/html')
    .set('If-None-Match', emptyTag!);
  expect(revalidated.status).toBe(200);
  // GraphiQL keeps the tabs of an earlier visit: those naming the demo's group and tree run once it is loaded.
  for (const tab of empty.filter((tab) => ['GroupByName', 'Jstree'].includes(tabOperation(tab)))) {
    expect({ tab: tabOperation(tab), problems: await problemsOf(tab) }).toEqual({
      tab: tabOperation(tab),
      problems: [],
    });
  }
  const demo = await graphiqlTabs(app);
  expect(demo.map(tabOperation)).toEqual(empty.map(tabOperation));
  for (const tab of demo) {
    expect(tab.query).not.toMatch(DEMO_HINT);
    expect({ tab: tabOperation(tab), problems: await problemsOf(tab) }).toEqual({
      tab: tabOperation(tab),
      problems: [],
    });
  }
  const tree = demo.find((tab) => tabOperation(tab) === 'Jstree')!;
  const answer = await graphql(app.client(), tree.query, JSON.parse(tree.variables));
  expect(JSON.stringify(answer.data?.result)).toContain('Parcours de 6e');
}, 60_000);

it('sends the page with the last data read when the database does not answer', async () => {
  const operations = loadRestOperations(schema);
  let read: () => Promise<ExampleData> = async () => ({ resourceOid: 7, treeOid: 8, groupName: 'Les 6e' });
  const tabs = exampleTabsSource(operations, 'http://repo.test/', () => read());
  const variables = async () => (await tabs()).map((tab) => JSON.parse(tab.variables ?? '{}'));
  const known = await variables();
  expect(known[4]).toEqual({ ref: '8', childrenOnly: false });
  read = () => Promise.reject(new Error('database unavailable'));
  expect(await variables()).toEqual(known);
  read = () => new Promise<never>(() => {});
  const started = Date.now();
  expect(await variables()).toEqual(known);
  expect(Date.now() - started).toBeLessThan(10_000);
}, 20_000);
