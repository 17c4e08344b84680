/**
 * Whether a request comes from this machine, for what must answer nobody else (the development
 * login): the socket's peer is loopback, and so is every address a proxy says it forwarded
 * (`X-Forwarded-For`, `Forwarded`, `X-Real-IP`).
 *
 * A reverse proxy on this machine connects over loopback for every caller, local or not: the
 * address it forwards is the only trace of a remote one. A caller can write anything in those
 * headers, though, so they may refuse but never admit: a loopback address they claim counts only
 * when the socket is loopback too. They are read whether or not `http.trustProxy` is set, and
 * every one of them rather than the one Express picks as the client (`req.ip`): with
 * `trustProxy: true` that is the leftmost, which the caller writes before the proxy appends the
 * real address. A proxy that forwards no address cannot be told from a local caller
 * (docs/development-login.md says not to turn the development login on behind one).
 */
import type { IncomingMessage } from 'node:http';
import { BlockList, isIP } from 'node:net';

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
// BlockList also matches IPv4-mapped IPv6 (::ffff:127.0.0.1) against the IPv4 rule.
LOOPBACK.addAddress('::1', 'ipv6');

/** `address` is a loopback address (127.0.0.0/8, ::1, ::ffff:127.x.x.x); anything else is not. */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (!address) return false;
  const family = isIP(address);
  if (family === 0) return false;
  return LOOPBACK.check(address, family === 6 ? 'ipv6' : 'ipv4');
}

/** The address in one forwarded value: `ip`, `ip:port`, `[ipv6]`, `[ipv6]:port`, quoted or not. */
function forwardedAddress(value: string): string {
  const bare = value.trim().replace(/^"(.*)"$/, '$1');
  if (bare.startsWith('[')) return bare.slice(1).split(']')[0]!;
  const withPort = /^([^:]+):\d+$/.exec(bare);
  return withPort ? withPort[1]! : bare;
}

function headerValues(req: IncomingMessage, name: string): string[] {
  const value = req.headers[name];
  if (value === undefined) return [];
  return (Array.isArray(value) ? value : [value]).flatMap((line) => line.split(','));
}

/** Every address the request names besides the socket's: hops of proxies, as they wrote them. */
function forwardedAddresses(req: IncomingMessage): string[] {
  const forwardedFor = headerValues(req, 'forwarded').flatMap((element) =>
    element
      .split(';')
      .map((pair) => pair.trim())
      .filter((pair) => /^for=/i.test(pair))
      .map((pair) => pair.slice(4)),
  );
  return [...headerValues(req, 'x-forwarded-for'), ...forwardedFor, ...headerValues(req, 'x-real-ip')]
    .filter((value) => value.trim() !== '')
    .map(forwardedAddress);
}

/** The request came over loopback and names no other address (see above). */
export function isLoopbackRequest(req: IncomingMessage): boolean {
  return isLoopbackAddress(req.socket?.remoteAddress) && forwardedAddresses(req).every(isLoopbackAddress);
}
