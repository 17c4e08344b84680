/**
 * Worker thread of src/gateway/graphiql.ts: renders the GraphiQL page, writes it as sent in each
 * encoding to the file `paths` names for it, and posts back what the service keeps of it: the digests
 * of its inline scripts (for the CSP), a digest of the page (for the ETag) and the files' sizes.
 *
 * A thread of its own because the renderer's module is megabytes of two-byte source that V8 keeps for
 * the life of the isolate that imported it; this isolate, with the page and its compressed copies,
 * is gone once the files are written. Plain JavaScript: it runs as it is from src/ and dist/.
 */
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { renderGraphiQL } from '@graphql-yoga/render-graphiql';

const { options, paths } = workerData;
const html = renderGraphiQL(options);
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
parentPort.postMessage({
  scriptDigests,
  digest: createHash('sha256').update(bytes).digest('base64url'),
  sizes,
});
