/** Which requests count as coming from this machine (the development login answers only them). */
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { isLoopbackAddress, isLoopbackRequest } from '../../src/security/loopback.ts';

const requestFrom = (remoteAddress: string | undefined, headers: Record<string, string> = {}) =>
  ({ socket: { remoteAddress }, headers }) as unknown as IncomingMessage;

describe('isLoopbackAddress', () => {
  it('knows 127.0.0.0/8, ::1 and their IPv4-mapped forms, and nothing else', () => {
    for (const address of [
      '127.0.0.1',
      '127.255.0.9',
      '::1',
      '0:0:0:0:0:0:0:1',
      '::ffff:127.0.0.1',
      '::ffff:7f00:2',
    ]) {
      expect(isLoopbackAddress(address), address).toBe(true);
    }
    for (const address of [
      '192.0.2.2',
      '::ffff:192.0.2.2',
      'fd00::2',
      '::',
      '0.0.0.0',
      'localhost',
      'unknown',
      '',
      undefined,
    ]) {
      expect(isLoopbackAddress(address), String(address)).toBe(false);
    }
  });
});

describe('isLoopbackRequest', () => {
  it('reads every forwarded address, in every form a proxy writes it', () => {
    expect(isLoopbackRequest(requestFrom('127.0.0.1'))).toBe(true);
    expect(isLoopbackRequest(requestFrom('::1', { 'x-forwarded-for': '127.0.0.1:5123, [::1]:80' }))).toBe(
      true,
    );
    expect(
      isLoopbackRequest(requestFrom('::1', { forwarded: 'for="[::1]:4711";proto=http, For=127.0.0.2' })),
    ).toBe(true);
    const remoteHops: Record<string, string>[] = [
      { 'x-forwarded-for': '127.0.0.1, 192.0.2.9:443' },
      { forwarded: 'for=127.0.0.1, for=unknown' },
      { forwarded: 'proto=https;for="_hidden"' },
      { 'x-real-ip': '[2001:db8::1]' },
    ];
    for (const headers of remoteHops) {
      expect(isLoopbackRequest(requestFrom('127.0.0.1', headers)), JSON.stringify(headers)).toBe(false);
    }
  });

  it('never believes a forwarded loopback address over a remote socket, nor a socket without address', () => {
    expect(isLoopbackRequest(requestFrom('192.0.2.9', { 'x-forwarded-for': '127.0.0.1' }))).toBe(false);
    expect(isLoopbackRequest(requestFrom(undefined))).toBe(false);
  });
});
