/**
 * Sends the GraphiQL page (src/gateway/graphiql.ts): from the file of the encoding the browser
 * accepts, compressed once, with its own CSP, and revalidated with its ETag (`no-cache`: the
 * browser keeps the page and asks whether it changed; a deploy that changes it changes the ETag).
 */
import { read } from 'node:fs';
import { promisify } from 'node:util';
import type { Request, Response } from 'express';
import type { GraphiQLPage, PageEncoding, RenderedPage } from '../gateway/graphiql.ts';
import { htmlPageHeaders } from './security-headers.ts';
import { streamBody } from './stream-body.ts';

const readAt = promisify(read);

/**
 * The file's bytes, read at explicit positions: the descriptor is every visit's, so nothing may
 * move its offset or close it (an fs read stream closes its descriptor when destroyed). The page is
 * asked for the descriptor at each read, so that it stays alive (and its file open) until the last.
 */
async function* fileChunks(page: RenderedPage, encoding: PageEncoding | 'identity'): AsyncGenerator<Buffer> {
  for (let position = 0, size = page.file(encoding).size; position < size; ) {
    const { fd } = page.file(encoding);
    const length = Math.min(64 * 1024, size - position);
    const { bytesRead, buffer } = await readAt(fd, Buffer.allocUnsafe(length), 0, length, position);
    if (bytesRead === 0) throw new Error('The GraphiQL page file ended early');
    position += bytesRead;
    yield buffer.subarray(0, bytesRead);
  }
}

export async function sendGraphiQL(page: GraphiQLPage, req: Request, res: Response): Promise<void> {
  // Brotli whenever accepted: browsers list gzip first (`gzip, deflate, br`), and brotli is smaller here.
  const encoding: PageEncoding | 'identity' = req.acceptsEncodings('br')
    ? 'br'
    : req.acceptsEncodings('gzip')
      ? 'gzip'
      : 'identity';
  const rendered = await page.rendered();
  htmlPageHeaders(res, rendered.contentSecurityPolicy);
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.setHeader('Cache-Control', 'no-cache');
  res.setHeader('Vary', 'Accept-Encoding');
  res.setHeader('ETag', rendered.etag(encoding));
  if (req.fresh) {
    res.status(304).end();
    return;
  }
  if (encoding !== 'identity') res.setHeader('Content-Encoding', encoding);
  res.setHeader('Content-Length', rendered.file(encoding).size);
  await streamBody(fileChunks(rendered, encoding), res);
}
