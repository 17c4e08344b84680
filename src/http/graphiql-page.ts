/**
 * Sends the GraphiQL page (src/graphql/graphiql.ts): from the file of the encoding the browser
 * accepts, compressed once, with its own CSP, and revalidated with its ETag (`no-cache`: the
 * browser keeps the page and asks whether it changed; a deploy that changes it changes the ETag).
 */
import { type FileHandle, open } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import type { Request, Response } from 'express';
import type { GraphiQLPage, PageEncoding, RenderedPage } from '../graphql/graphiql.ts';
import { htmlPageHeaders } from './security-headers.ts';

/** The page and its open file; a page whose files a cleaner of the temporary folder removed is rendered again. */
async function openPage(
  page: GraphiQLPage,
  encoding: PageEncoding | 'identity',
): Promise<{ rendered: RenderedPage; file: FileHandle }> {
  const rendered = await page.rendered();
  try {
    return { rendered, file: await open(rendered.file(encoding).path) };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  page.forget();
  const again = await page.rendered();
  return { rendered: again, file: await open(again.file(encoding).path) };
}

function setHeaders(res: Response, rendered: RenderedPage, encoding: PageEncoding | 'identity'): void {
  htmlPageHeaders(res, rendered.contentSecurityPolicy);
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.setHeader('Cache-Control', 'no-cache');
  res.setHeader('Vary', 'Accept-Encoding');
  res.setHeader('ETag', rendered.etag(encoding));
}

export async function sendGraphiQL(page: GraphiQLPage, req: Request, res: Response): Promise<void> {
  // Brotli whenever accepted: browsers list gzip first (`gzip, deflate, br`), and brotli is 20 % smaller here.
  const encoding: PageEncoding | 'identity' = req.acceptsEncodings('br')
    ? 'br'
    : req.acceptsEncodings('gzip')
      ? 'gzip'
      : 'identity';
  setHeaders(res, await page.rendered(), encoding);
  if (req.fresh) {
    res.status(304).end();
    return;
  }
  const { rendered, file } = await openPage(page, encoding);
  try {
    setHeaders(res, rendered, encoding);
    if (encoding !== 'identity') res.setHeader('Content-Encoding', encoding);
    res.setHeader('Content-Length', rendered.file(encoding).size);
    await pipeline(file.createReadStream({ autoClose: false }), res);
  } finally {
    await file.close();
  }
}
