/**
 * The context a request of a given caller gets, built by the service's own factory
 * (`createContextFactory`, the one Yoga calls for `/graphql` and for every REST route): the API
 * token header as sent, and for a browser the session its cookie designates, read from the
 * session store's table. Rights tests evaluate policies against it instead of a context of their
 * own making.
 */
import type { IncomingMessage } from 'node:http';
import { CookieAccessInfo } from 'cookiejar';
import { expect } from 'vitest';
import { type Context, createContextFactory } from '../../src/context.ts';
import { db } from '../../src/db/client.ts';
import type { TestApp } from './app.ts';

type Caller = object;

/** The session id a browser's cookie carries (`s:<sid>.<signature>`), if it has one. */
function sessionIdOf(app: TestApp, caller: Caller): string | undefined {
  const jar = (
    caller as { jar?: { getCookie(name: string, access: unknown): { value: string } | undefined } }
  ).jar;
  const cookie = jar?.getCookie(app.config.session.cookieName, CookieAccessInfo.All);
  if (!cookie) return undefined;
  const value = decodeURIComponent(cookie.value);
  expect(value.startsWith('s:'), value).toBe(true);
  return value.slice(2, value.lastIndexOf('.'));
}

export async function requestContextOf(
  app: TestApp,
  caller: Caller,
  headers: Record<string, string>,
): Promise<Context> {
  const sid = sessionIdOf(app, caller);
  let session: Record<string, unknown> | undefined;
  if (sid !== undefined) {
    const stored = await db.session.findUnique({ where: { sid } });
    expect(stored, `no stored session ${sid}`).not.toBeNull();
    session = JSON.parse(stored!.data);
  }
  const req = {
    headers: Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value])),
    session,
    socket: { remoteAddress: '127.0.0.1' },
  } as unknown as IncomingMessage;
  return createContextFactory(app.services)({ req });
}
