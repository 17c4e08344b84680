/**
 * A client address as the logs may hold it (`logging.clientAddress`): an address is personal data
 * (it can lead to a household or a pupil's device), and a log line is kept and copied far longer
 * than the request needs it. `truncated` keeps the network: IPv4 /24, IPv6 /48 (an IPv4 address
 * mapped into IPv6 is truncated as IPv4), which still tells one school's network from another.
 * Only log lines pass through here: per-address rate limits key on the full address, in memory
 * and in RateLimit rows that the retention purge deletes once they expire.
 */
import { isIP } from 'node:net';

/** The values of `logging.clientAddress` (here, below the configuration, which imports them). */
export const CLIENT_ADDRESS_LOGGING = ['full', 'truncated', 'none'] as const;
export type ClientAddressLogging = (typeof CLIENT_ADDRESS_LOGGING)[number];

const MAPPED_IPV4 = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i;

function truncatedIpv4(address: string): string {
  return `${address.split('.').slice(0, 3).join('.')}.0`;
}

/** The eight groups of an IPv6 address, `::` expanded (a trailing dotted IPv4 part counts as two). */
function ipv6Groups(address: string): string[] {
  const [head = '', tail] = address.split('::');
  const groups = (part: string) =>
    part === ''
      ? []
      : part.split(':').flatMap((group) => {
          if (!group.includes('.')) return [group];
          const [a, b, c, d] = group.split('.').map(Number) as [number, number, number, number];
          return [((a << 8) | b).toString(16), ((c << 8) | d).toString(16)];
        });
  const before = groups(head);
  const after = tail === undefined ? [] : groups(tail);
  return [...before, ...Array<string>(8 - before.length - after.length).fill('0'), ...after];
}

/** The address's network as logged: IPv4 /24, IPv6 /48; anything else (not an IP) is dropped. */
export function truncatedAddress(address: string): string | undefined {
  const bare = address.replace(/%.*$/, '');
  const mapped = MAPPED_IPV4.exec(bare);
  if (mapped) return `::ffff:${truncatedIpv4(mapped[1]!)}`;
  const family = isIP(bare);
  if (family === 4) return truncatedIpv4(bare);
  if (family === 6) {
    const network = ipv6Groups(bare)
      .slice(0, 3)
      .map((group) => Number.parseInt(group, 16).toString(16));
    return `${network.join(':')}::/48`;
  }
  return undefined;
}

/** The fields a log line carries about the client: `{address}` as the setting allows, or none. */
export function loggedClientAddress(address: string, setting: ClientAddressLogging): { address?: string } {
  if (setting === 'none') return {};
  if (setting === 'full') return { address };
  const truncated = truncatedAddress(address);
  return truncated === undefined ? {} : { address: truncated };
}
