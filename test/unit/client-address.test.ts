/** Client addresses in log lines (`logging.clientAddress`): kept, truncated to their network, or dropped. */
import { describe, expect, it } from 'vitest';
import { loggedClientAddress, truncatedAddress } from '../../src/logging/client-address.ts';

describe('truncatedAddress', () => {
  it.each([
    ['203.0.113.77', '203.0.113.0'],
    ['10.1.2.3', '10.1.2.0'],
    ['::ffff:203.0.113.77', '::ffff:203.0.113.0'],
    ['2001:db8:abcd:12:1:2:3:4', '2001:db8:abcd::/48'],
    ['2001:db8::9', '2001:db8:0::/48'],
    ['2001:0db8:00ab:ffff::1', '2001:db8:ab::/48'],
    ['::1', '0:0:0::/48'],
    ['fe80::1%eth0', 'fe80:0:0::/48'],
    ['::ffff:c000:280', '0:0:0::/48'],
  ])('keeps the network of %s: %s', (address, network) => {
    expect(truncatedAddress(address)).toBe(network);
  });

  it('drops what is no IP address (a tool, an unknown peer)', () => {
    expect(truncatedAddress('cli')).toBeUndefined();
    expect(truncatedAddress('unknown')).toBeUndefined();
  });
});

describe('loggedClientAddress', () => {
  it('gives the address as the setting allows', () => {
    expect(loggedClientAddress('203.0.113.77', 'full')).toEqual({ address: '203.0.113.77' });
    expect(loggedClientAddress('203.0.113.77', 'truncated')).toEqual({ address: '203.0.113.0' });
    expect(loggedClientAddress('203.0.113.77', 'none')).toEqual({});
    expect(loggedClientAddress('unknown', 'truncated')).toEqual({});
  });
});
