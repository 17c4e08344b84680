/**
 * The GraphiQL page, rendered once (megabytes of inline HTML: rendering it per visit cost every visit),
 * and its Content-Security-Policy. The page's scripts are inline, so the policy allows exactly
 * those scripts by their SHA-256 digests: no other script, inline or from elsewhere, can run in the
 * page, and only this service may frame it.
 *
 * The page opens on example tabs, one per domain (src/gateway/graphiql-examples.ts), whose variables
 * come from the database: the page is rendered again when they change, not on every visit. It is
 * compressed once (gzip and brotli) and carries an ETag, so a browser revalidates it with a 304
 * instead of downloading it again.
 *
 * The page lives in files, not in this process's memory: a child process renders it and writes it
 * and its compressed copies to a private temporary folder, this process opens the three files and
 * removes the folder at once, and visits are read from the open files. Rendered in this thread, the
 * renderer's module (whose source V8 keeps), the page and its copies would stay in memory for the
 * life of the process, most of which never serves GraphiQL (docs/performance.md, Memory). Open but unlinked,
 * the files go with the process however it ends (a folder left for an exit handler stayed behind
 * whenever a process was killed, as test runners kill theirs).
 */
import { fork } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, mkdtempSync, openSync, readSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { GraphiQLOptions } from 'graphql-yoga';

export type PageEncoding = 'br' | 'gzip';

export interface RenderedPage {
  /** The page's HTML, read from its file (Yoga's own renderer asks for it; the service sends the file). */
  readonly html: string;
  contentSecurityPolicy: string;
  /** A strong ETag of the page as sent in `encoding` (each encoding's bytes have their own). */
  etag(encoding: PageEncoding | 'identity'): string;
  /**
   * The open file holding the page as sent in `encoding`, and its length. Shared by every visit:
   * read it at explicit positions (a stream with `start: 0`), and never close it. The file closes
   * once the page is collected (a page replaced by one with other tabs): hold the page, not the
   * descriptor, until the last read.
   */
  file(encoding: PageEncoding | 'identity'): { fd: number; size: number };
}

export interface GraphiQLPage {
  /** The options Yoga renders the page with. */
  options: GraphiQLOptions;
  /** The page with the current example tabs, rendered on the first visit and when they change. */
  rendered(): Promise<RenderedPage>;
}

/** Shown in the headers editor of every example tab (the editor reads JSON with comments). */
export const TOKEN_HEADER_HINT = [
  '{',
  '  // Without credentials an operation runs as your session (log in through a lab), or anonymously.',
  '  // An API token of `apiTokens` gives all rights: remove the slashes below and put it in.',
  '  // "X-ApiToken": "<a token of apiTokens>"',
  '}',
].join('\n');

const RENDERER = new URL('./graphiql-render.mjs', import.meta.url);

type Encoding = PageEncoding | 'identity';

/** Closes a page's files once nothing can send it (a test process builds many apps). */
const openFiles = new FinalizationRegistry<number[]>((fds) => {
  for (const fd of fds) closeSync(fd);
});

interface RenderResult {
  scriptDigests: string[];
  digest: string;
  sizes: Record<Encoding, number>;
}

/**
 * Renders the page in a child process (src/gateway/graphiql-render.mjs) into the files of `paths`.
 * A process rather than a worker thread: a thread's isolate is freed when it ends, but the memory
 * it took from the process's allocator stayed in the service's RSS (5 MB at rest).
 */
function renderInChild(options: GraphiQLOptions, paths: Record<Encoding, string>) {
  return new Promise<RenderResult>((resolve, reject) => {
    // Plain JavaScript: no loader or option of this process (a test runner's) is needed.
    const child = fork(fileURLToPath(RENDERER), [], {
      execArgv: [],
      serialization: 'advanced',
      stdio: 'inherit',
    });
    let result: RenderResult | undefined;
    child.once('message', (message: RenderResult) => {
      result = message;
    });
    child.once('error', reject);
    child.once('exit', (code) =>
      result ? resolve(result) : reject(new Error(`GraphiQL's renderer exited with ${code}`)),
    );
    child.send({ options, paths });
  });
}

type Tabs = NonNullable<GraphiQLOptions['defaultTabs']>;

/** `tabs` gives each visit's example tabs (they may change while the service runs). */
export function graphiqlPage(options: GraphiQLOptions, tabs?: () => Promise<Tabs>): GraphiQLPage {
  let current: { key: string; page: Promise<RenderedPage> } | undefined;
  const render = async (options: GraphiQLOptions): Promise<RenderedPage> => {
    // mkdtemp: a folder only this user can read.
    const dir = mkdtempSync(join(tmpdir(), 'rrs-graphiql-'));
    let rendering: RenderResult;
    const fds = {} as Record<Encoding, number>;
    try {
      const paths = {
        identity: join(dir, 'page.html'),
        gzip: join(dir, 'page.html.gz'),
        br: join(dir, 'page.html.br'),
      };
      rendering = await renderInChild(options, paths);
      for (const encoding of ['identity', 'gzip', 'br'] as const)
        fds[encoding] = openSync(paths[encoding], 'r');
    } catch (error) {
      for (const fd of Object.values(fds)) closeSync(fd);
      throw error;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const { scriptDigests, digest, sizes } = rendering;
    const contentSecurityPolicy = [
      "default-src 'self'",
      `script-src 'self' ${scriptDigests.join(' ')}`,
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
    const tag = createHash('sha256')
      .update(digest)
      .update(contentSecurityPolicy)
      .digest('base64url')
      .slice(0, 27);
    const page: RenderedPage = {
      get html() {
        const bytes = Buffer.alloc(sizes.identity);
        readSync(fds.identity, bytes, 0, bytes.length, 0);
        return bytes.toString('utf8');
      },
      contentSecurityPolicy,
      etag: (encoding) => `"${tag}-${encoding}"`,
      file: (encoding) => ({ fd: fds[encoding], size: sizes[encoding] }),
    };
    openFiles.register(page, Object.values(fds));
    return page;
  };
  return {
    options,
    async rendered() {
      const defaultTabs = tabs ? await tabs() : options.defaultTabs;
      const key = JSON.stringify(defaultTabs ?? null);
      if (current?.key !== key) {
        // The page it replaces closes its files once no visit reads them (openFiles).
        const entry = { key, page: render({ ...options, defaultTabs }) };
        current = entry;
        // A failure is not kept: the next visit tries again.
        entry.page.catch(() => {
          if (current === entry) current = undefined;
        });
      }
      return current.page;
    },
  };
}
