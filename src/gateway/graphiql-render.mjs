/**
 * Child process of src/gateway/graphiql.ts: renders the GraphiQL page, writes it as sent in each
 * encoding to the file `paths` names for it, and posts back what the service keeps of it: the digests
 * of its inline scripts (for the CSP), a digest of the page (for the ETag) and the files' sizes.
 *
 * A process of its own because the renderer's module is megabytes of two-byte source that V8 keeps for
 * the life of the isolate that imported it; this process, with the page and its compressed copies,
 * is gone once the files are written. Plain JavaScript: it runs as it is from src/ and dist/.
 */
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { renderGraphiQL } from '@graphql-yoga/render-graphiql';

/** What the service asks for: the options to render with, and the file of each encoding. */
const { options, paths } = await new Promise((resolve) => process.once('message', resolve));

/**
 * GraphiQL's tabs are framer-motion drag items constrained to the tab bar. When the bar widens
 * after its first layout (it does as the page settles), framer-motion moves each tab "to the same
 * place within the constraints" and leaves every tab translated to the bar's right end. GraphiQL's
 * CSS hides those transforms on tabs without focus, so nothing shows until a mousedown focuses a
 * tab: its transform applies, the tab slides from under the pointer, the mouseup lands on the bar
 * and the click never reaches the tab's button (the first click on a tab did nothing; the second,
 * after the drag's end had reset the transform, worked). Without the constraint the tabs keep
 * their place; a dragged tab still reorders and snaps back on release.
 */
const TAB_DRAG_CONSTRAINT = /dragConstraints:[\w$]+,(?=value:)/g;

function withoutTabDragConstraint(page) {
  const found = page.match(TAB_DRAG_CONSTRAINT)?.length ?? 0;
  if (found !== 1) {
    throw new Error(
      `GraphiQL's tab bar changed (${found} tab drag constraints instead of 1): review src/gateway/graphiql-render.mjs`,
    );
  }
  return page.replace(TAB_DRAG_CONSTRAINT, '');
}

const html = withoutTabDragConstraint(renderGraphiQL(options));
const scriptDigests = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map(
  (match) => `'sha256-${createHash('sha256').update(match[1]).digest('base64')}'`,
);
const bytes = Buffer.from(html);
const files = {
  identity: bytes,
  gzip: gzipSync(bytes, { level: 6 }),
  // Quality 5: barely larger than 9 and much faster (docs/performance.md).
  br: brotliCompressSync(bytes, {
    params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length },
  }),
};
const sizes = {};
for (const [encoding, body] of Object.entries(files)) {
  writeFileSync(paths[encoding], body);
  sizes[encoding] = body.length;
}
// Sent, then the channel closed so that the process ends.
process.send({ scriptDigests, digest: createHash('sha256').update(bytes).digest('base64url'), sizes }, () =>
  process.disconnect(),
);
