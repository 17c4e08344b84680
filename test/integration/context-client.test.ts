/**
 * Where a request came from (`context.client`) is worked out only by the operations that ask: the
 * forwarding headers are walked for a login, not for every read. Once the context's own getters
 * did it, but envelop merges the context into its own with `Object.assign`, which reads every
 * getter: each request walked them anyway.
 */
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../support/app.ts';

let app: TestApp;

beforeAll(async () => {
  app = await startApp();
});

afterAll(async () => {
  await app.close();
});

/** A request whose address (Express's `req.ip`) counts its reads. */
function countedRequest(): { req: IncomingMessage; reads: () => number } {
  const req = new IncomingMessage(new Socket());
  let reads = 0;
  Object.defineProperty(req, 'ip', {
    get() {
      reads++;
      return '203.0.113.7';
    },
  });
  return { req, reads: () => reads };
}

describe('the client of a request', () => {
  it('is not worked out by an operation that does not ask for it', async () => {
    const { req, reads } = countedRequest();
    const answer = await app.runHarvestOperation(
      'OaiEarliestDatestamp',
      {},
      { req, res: new ServerResponse(req) },
    );
    expect(answer.errors).toBeUndefined();
    expect(reads()).toBe(0);
  });
});
