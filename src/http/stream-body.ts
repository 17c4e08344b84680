/**
 * Sends a body as it is read. A client that leaves before the end (a closed tab, a cancelled
 * download) is no error of the service: the stream stops, the file closes, nothing is logged.
 */
import type { ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

export async function streamBody(
  source: Readable | AsyncIterable<Buffer>,
  res: ServerResponse,
): Promise<void> {
  try {
    await pipeline(source, res);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_STREAM_PREMATURE_CLOSE') return;
    throw error;
  }
}
