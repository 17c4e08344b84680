/**
 * The GraphiQL page, rendered once (9 MB of inline HTML: rendering it per visit cost every visit),
 * and its Content-Security-Policy. The page's scripts are inline, so the policy allows exactly
 * those scripts by their SHA-256 digests: no other script, inline or from elsewhere, can run in the
 * page, and only this service may frame it.
 *
 * The page opens on example tabs, one per domain, taken from the named operations the REST routes
 * run (src/rest/operations/). It is compressed once (gzip and brotli, on the thread pool) and
 * carries an ETag, so a browser revalidates it with a 304 instead of downloading it again.
 */
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import { type DocumentNode, type FragmentDefinitionNode, Kind, print, visit } from 'graphql';
import type { GraphiQLOptions } from 'graphql-yoga';

export type PageEncoding = 'br' | 'gzip';

export interface RenderedPage {
  html: string;
  contentSecurityPolicy: string;
  /** A strong ETag of the page as sent in `encoding` (each encoding's bytes have their own). */
  etag(encoding: PageEncoding | 'identity'): string;
}

export interface GraphiQLPage {
  /** The options Yoga renders the page with. */
  options: GraphiQLOptions;
  /** The page, rendered on the first visit. */
  rendered(): Promise<RenderedPage>;
  /** The page compressed with `encoding`, computed once. */
  encoded(encoding: PageEncoding): Promise<Buffer>;
}

function inlineScriptDigests(html: string): string[] {
  const digests: string[] = [];
  for (const match of html.matchAll(/<script>([\s\S]*?)<\/script>/g)) {
    digests.push(`'sha256-${createHash('sha256').update(match[1]!).digest('base64')}'`);
  }
  return digests;
}

/** Shown in the headers editor of every example tab (the editor reads JSON with comments). */
export const TOKEN_HEADER_HINT = [
  '{',
  '  // Without credentials an operation runs as your session (log in through a lab), or anonymously.',
  '  // An API token of `apiTokens` gives all rights: remove the slashes below and put it in.',
  '  // "X-ApiToken": "<a token of apiTokens>"',
  '}',
].join('\n');

/**
 * The example of each domain: an operation of src/rest/operations/<file>.graphql, with variables
 * that run as they are.
 */
export const GRAPHIQL_EXAMPLES: ReadonlyArray<{ operation: string; variables: Record<string, unknown> }> = [
  { operation: 'CurrentSession', variables: {} },
  {
    operation: 'SearchResources',
    variables: {
      filters: [{ index: 'type', values: ['url'] }],
      nb: 5,
      asRef: true,
      light: false,
      full: false,
    },
  },
  { operation: 'ResourceByOid', variables: { oid: 1, asRef: false, full: false, droits: true } },
  { operation: 'GroupByName', variables: { nom: 'Ma classe', full: true } },
  { operation: 'Jstree', variables: { ref: '1', childrenOnly: false } },
  { operation: 'BaseIdOfUrl', variables: { baseUrl: 'http://localhost:3000/' } },
];

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
export function exampleTabs(operations: ReadonlyMap<string, DocumentNode>): GraphiQLOptions['defaultTabs'] {
  return GRAPHIQL_EXAMPLES.map(({ operation, variables }) => {
    const document = operations.get(operation);
    if (!document) throw new Error(`GraphiQL example names unknown operation ${operation}`);
    return {
      query: operationText(document, operation),
      variables: JSON.stringify(variables, null, 2),
      headers: TOKEN_HEADER_HINT,
    };
  });
}

const compressors: Record<PageEncoding, (html: string) => Promise<Buffer>> = {
  gzip: (html) => promisify(gzip)(html, { level: 6 }),
  // Quality 5: 2 % larger than 9 and twice as fast; it runs once per process anyway.
  br: (html) =>
    promisify(brotliCompress)(html, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: 5,
        [constants.BROTLI_PARAM_SIZE_HINT]: Buffer.byteLength(html),
      },
    }),
};

export function graphiqlPage(options: GraphiQLOptions): GraphiQLPage {
  let rendered: Promise<RenderedPage> | undefined;
  const encodings = new Map<PageEncoding, Promise<Buffer>>();
  const render = async (): Promise<RenderedPage> => {
    // Loaded on the first visit: the renderer holds the whole page's assets (about 35 MB of a
    // process at rest, most of which never serves GraphiQL).
    const { renderGraphiQL } = await import('@graphql-yoga/render-graphiql');
    const html = renderGraphiQL(options);
    const contentSecurityPolicy = [
      "default-src 'self'",
      `script-src 'self' ${inlineScriptDigests(html).join(' ')}`,
      // The editor injects its styles at run time; styles cannot run code.
      "style-src 'self' 'unsafe-inline'",
      "img-src 'self' data:",
      "font-src 'self' data:",
      "connect-src 'self'",
      // The editor's language services run in workers created from blobs.
      "worker-src 'self' blob:",
      "object-src 'none'",
      "base-uri 'none'",
      "form-action 'self'",
      "frame-ancestors 'self'",
    ].join('; ');
    const digest = createHash('sha256')
      .update(html)
      .update(contentSecurityPolicy)
      .digest('base64url')
      .slice(0, 27);
    return { html, contentSecurityPolicy, etag: (encoding) => `"${digest}-${encoding}"` };
  };
  const page: GraphiQLPage = {
    options,
    rendered() {
      if (!rendered) {
        rendered = render();
        // A failure is not kept: the next visit tries again.
        rendered.catch(() => {
          rendered = undefined;
        });
      }
      return rendered;
    },
    encoded(encoding) {
      let bytes = encodings.get(encoding);
      if (!bytes) {
        bytes = page.rendered().then(({ html }) => compressors[encoding](html));
        bytes.catch(() => encodings.delete(encoding));
        encodings.set(encoding, bytes);
      }
      return bytes;
    },
  };
  return page;
}
