/** The example tabs of the GraphiQL page as a browser receives it (the options of its inline script). */
import type { TestApp } from './app.ts';

export interface ExampleTab {
  query: string;
  variables: string;
  headers?: string;
}

export async function graphiqlTabs(app: TestApp): Promise<ExampleTab[]> {
  const page = await app.client().get('/graphql').set('Accept', 'text/html');
  if (page.status !== 200) throw new Error(`GraphiQL page: HTTP ${page.status}`);
  const options =
    /renderYogaGraphiQL\(\s*window\.document\.querySelector\('#root'\),\s*(\{.*\}),\s*\);/s.exec(page.text);
  if (!options) throw new Error('GraphiQL page: no options found in its script');
  return JSON.parse(options[1]!).defaultTabs;
}

/** The operation a tab holds, by name. */
export function tabOperation(tab: ExampleTab): string {
  const name = /^\s*(?:query|mutation|subscription)\s+(\w+)/m.exec(tab.query);
  if (!name) throw new Error(`Example tab without a named operation: ${tab.query}`);
  return name[1]!;
}
