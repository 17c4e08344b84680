/**
 * Sends the GraphiQL page (src/graphql/graphiql.ts): compressed once in the encoding the browser
 * accepts, with its own CSP, and revalidated with its ETag (`no-cache`: the browser keeps the page
 * and asks whether it changed; a deploy that changes it changes the ETag).
 */
import type { Request, Response } from 'express';
import type { GraphiQLPage, PageEncoding } from '../graphql/graphiql.ts';
import { htmlPageHeaders } from './security-headers.ts';

export async function sendGraphiQL(page: GraphiQLPage, req: Request, res: Response): Promise<void> {
  // Brotli whenever accepted: browsers list gzip first (`gzip, deflate, br`), and brotli is 20 % smaller here.
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
  if (encoding === 'identity') {
    res.send(rendered.html);
    return;
  }
  const body = await page.encoded(encoding);
  res.setHeader('Content-Encoding', encoding);
  res.send(body);
}
