/**
 * GraphQL subscriptions as a client reads them: Server-Sent Events over fetch (Yoga's "distinct
 * connections" transport, what graphql-sse and EventSource speak), from a listening service.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import { expect } from 'vitest';
import type { FakeLab, LabUser } from './fake-lab.ts';

// biome-ignore lint/suspicious/noExplicitAny: events carry data of any shape.
export type StreamEvent = { event: 'next' | 'complete'; data: any };

export interface EventStream {
  /** The next event, or an error when none comes within `timeoutMs`. */
  next(timeoutMs?: number): Promise<StreamEvent>;
  /** Every event received so far (including those already taken by `next`). */
  received: StreamEvent[];
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  close(): void;
}

export interface SubscribeOptions {
  variables?: Record<string, unknown>;
  headers?: Record<string, string>;
  /** GET with the operation in the query string, as an EventSource sends it. */
  method?: 'GET' | 'POST';
}

export async function subscribe(base: string, query: string, options: SubscribeOptions = {}) {
  const { variables = {}, headers = {}, method = 'POST' } = options;
  const abort = new AbortController();
  const url =
    method === 'GET'
      ? `${base}/graphql?${new URLSearchParams({ query, variables: JSON.stringify(variables) })}`
      : `${base}/graphql`;
  const response = await fetch(url, {
    method,
    headers: {
      accept: 'text/event-stream',
      ...(method === 'POST' ? { 'content-type': 'application/json' } : {}),
      ...headers,
    },
    body: method === 'POST' ? JSON.stringify({ query, variables }) : undefined,
    signal: abort.signal,
  });
  const received: StreamEvent[] = [];
  const queue: StreamEvent[] = [];
  let wake: (() => void) | undefined;
  const ended = (async () => {
    if (!response.body) return;
    const decoder = new TextDecoder();
    let buffer = '';
    const reader = response.body.getReader();
    try {
      for (let read = await reader.read(); !read.done; read = await reader.read()) {
        buffer += decoder.decode(read.value, { stream: true });
        let end = buffer.indexOf('\n\n');
        while (end >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          end = buffer.indexOf('\n\n');
          const event = /^event: (\w+)$/m.exec(block)?.[1];
          if (event !== 'next' && event !== 'complete') continue; // a keep-alive comment
          const data = /^data: ?(.*)$/m.exec(block)?.[1] ?? '';
          const parsed: StreamEvent = { event, data: data ? JSON.parse(data) : null };
          received.push(parsed);
          queue.push(parsed);
          wake?.();
        }
      }
    } catch {
      // Closed by the client.
    }
    wake?.();
  })();
  let done = false;
  void ended.then(() => {
    done = true;
  });
  return {
    status: response.status,
    received,
    ended,
    close: () => abort.abort(),
    async next(timeoutMs = 2000): Promise<StreamEvent> {
      const deadline = Date.now() + timeoutMs;
      while (queue.length === 0) {
        if (done) throw new Error(`stream ended; received ${JSON.stringify(received)}`);
        const left = deadline - Date.now();
        if (left <= 0)
          throw new Error(`no event within ${timeoutMs} ms; received ${JSON.stringify(received)}`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        wake = undefined;
      }
      return queue.shift() as StreamEvent;
    },
  } satisfies EventStream & { status: number };
}

/** The app listening on loopback (streams need a real socket); `close` cuts whatever is open. */
export async function listen(
  app: Express,
): Promise<{ base: string; server: Server; close(): Promise<void> }> {
  const server = createServer(app).listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    server,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

/** A session cookie (`name=value`) of `user` logged in through `lab`. */
export async function sessionCookie(base: string, lab: FakeLab, user: LabUser): Promise<string> {
  const response = await fetch(`${base}/api/connexion`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ origine: lab.baseUrl, token: lab.tokenFor(user) }),
  });
  expect(response.status).toBe(200);
  const cookie = response.headers.getSetCookie()[0];
  expect(cookie).toBeDefined();
  return (cookie as string).split(';')[0] as string;
}
