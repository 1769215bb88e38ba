/**
 * Where a push may go. A subscription's endpoint comes from whoever holds the page's token, and
 * the gateway POSTs to it: pointed at this machine, its network or a cloud's metadata service,
 * it would make the gateway a client of things it must never reach. A browser's push service is
 * always a public name (fcm.googleapis.com, updates.push.services.mozilla.com,
 * web.push.apple.com, *.notify.windows.com), so an endpoint must be https: on a name that is not
 * an address and not a local or metadata name; and at send time every address the name resolves
 * to must be public (the lookup of the connection itself, so a name that changes its answer
 * between the check and the connection gains nothing).
 */
import dns, { type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';

/** Names that are this machine or a cloud's metadata service whatever DNS says. */
const LOCAL_NAMES = [/^localhost$/, /\.localhost$/, /^metadata$/, /^metadata\.google\.internal$/];

/** Why an endpoint may not be used, or undefined when it may. */
export function endpointProblem(endpoint: string): string | undefined {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return 'it is not a URL';
  }
  if (url.protocol !== 'https:') return 'it is not an https: URL';
  // The URL parser writes every form of an address (2130706433, 0x7f.1, [::ffff:127.0.0.1]) as one.
  const host = url.hostname
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '')
    .toLowerCase();
  if (isIP(host)) return `${url.hostname} is an address, not the name of a push service`;
  if (LOCAL_NAMES.some((n) => n.test(host))) return `${url.hostname} is this machine or a metadata service`;
  return undefined;
}

/** Addresses no push service has: this machine, private networks, link-local (metadata), reserved. */
const NOT_PUBLIC = (() => {
  const b = new BlockList();
  for (const [net, bits] of [
    ['0.0.0.0', 8],
    ['10.0.0.0', 8],
    ['100.64.0.0', 10],
    ['127.0.0.0', 8],
    ['169.254.0.0', 16],
    ['172.16.0.0', 12],
    ['192.0.0.0', 24],
    ['192.0.2.0', 24],
    ['192.168.0.0', 16],
    ['198.18.0.0', 15],
    ['198.51.100.0', 24],
    ['203.0.113.0', 24],
    ['224.0.0.0', 3],
  ] as const)
    b.addSubnet(net, bits, 'ipv4');
  for (const [net, bits] of [
    ['::', 127],
    // IPv4 written as IPv6 in DNS answers is no push service's (the dotted form is judged as IPv4 below).
    ['::ffff:0:0', 96],
    ['64:ff9b::', 96],
    ['100::', 64],
    ['2001:db8::', 32],
    ['fc00::', 7],
    ['fe80::', 10],
    ['ff00::', 8],
  ] as const)
    b.addSubnet(net, bits, 'ipv6');
  return b;
})();

export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  // An IPv4 address written as IPv6 (::ffff:10.0.0.1) is judged as the IPv4 one.
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (mapped) return isPublicAddress(mapped);
  return !NOT_PUBLIC.check(address, family === 6 ? 'ipv6' : 'ipv4');
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * dns.lookup for the push connections: the same answer, or an error when any address of the name is not
 * public. Given as the HTTPS agent's `lookup`, it runs for every connection a push makes.
 */
export function publicLookup(hostname: string, options: dns.LookupOptions, callback: LookupCallback): void {
  dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, []);
    const bad = addresses.find((a) => !isPublicAddress(a.address));
    if (bad) {
      const refused: NodeJS.ErrnoException = new Error(
        `${hostname} resolves to ${bad.address}, which is not a public address: no push service is there`,
      );
      refused.code = 'PUSH_ENDPOINT_REFUSED';
      return callback(refused, []);
    }
    if (options.all) return callback(null, addresses);
    callback(null, addresses[0]!.address, addresses[0]!.family);
  });
}
