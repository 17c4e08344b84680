/**
 * Compression of answers (gzip or brotli, as the client accepts): JSON and the documentation
 * pages' assets above 1 KiB. Streams are left alone: compressing an event stream or a multipart
 * (incremental delivery) answer would hold its parts in the compressor's buffer. Bodies that are
 * already encoded (the GraphiQL page, compressed once) pass through as they are.
 */
import { constants } from 'node:zlib';
import compression from 'compression';
import type { RequestHandler } from 'express';

const STREAMED = /^(text\/event-stream|multipart\/)/i;

export function compressAnswers(): RequestHandler {
  return compression({
    threshold: 1024,
    filter: (req, res) =>
      !STREAMED.test(String(res.getHeader('Content-Type') ?? '')) && compression.filter(req, res),
    // Answers are compressed as they are sent: a quality that costs little CPU per request.
    brotli: { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } },
  });
}
