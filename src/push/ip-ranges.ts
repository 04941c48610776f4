import { isIPv4, isIPv6 } from 'node:net';

/**
 * Which IP addresses a push callback may reach. IPv4 is a deny list of every special-purpose block
 * (RFC 6890 and successors); IPv6 is an allow list (global unicast 2000::/3 only) with the blocks that
 * embed an IPv4 address checked by that address, so no spelling of a private v4 slips through a v6 form.
 */

type V4Block = readonly [base: number, prefix: number];

const v4 = (dotted: string, prefix: number): V4Block => [parseIPv4(dotted) as number, prefix];

const DENIED_V4: readonly V4Block[] = [
  v4('0.0.0.0', 8), // "this network", includes the unspecified address
  v4('10.0.0.0', 8), // private
  v4('100.64.0.0', 10), // CGNAT; also Alibaba Cloud's metadata service 100.100.100.200
  v4('127.0.0.0', 8), // loopback
  v4('169.254.0.0', 16), // link-local; AWS/Azure/GCP metadata 169.254.169.254
  v4('172.16.0.0', 12), // private
  v4('192.0.0.0', 24), // IETF protocol assignments; Oracle Cloud metadata 192.0.0.192
  v4('192.0.2.0', 24), // documentation TEST-NET-1
  v4('192.88.99.0', 24), // deprecated 6to4 relay anycast
  v4('192.168.0.0', 16), // private
  v4('198.18.0.0', 15), // benchmarking
  v4('198.51.100.0', 24), // documentation TEST-NET-2
  v4('203.0.113.0', 24), // documentation TEST-NET-3
  v4('224.0.0.0', 4), // multicast
  v4('240.0.0.0', 4), // reserved, includes the limited broadcast 255.255.255.255
];

/** Dotted-quad IPv4 (the only form WHATWG URL parsing and getaddrinfo hand us) as an unsigned 32-bit number. */
export function parseIPv4(address: string): number | undefined {
  if (!isIPv4(address)) return undefined;
  return address.split('.').reduce((acc, octet) => acc * 256 + Number(octet), 0);
}

/** An IPv6 address (zone id allowed, IPv4 tail allowed) as a 128-bit bigint. */
export function parseIPv6(address: string): bigint | undefined {
  const bare = address.replace(/%.*$/, '');
  if (!isIPv6(bare)) return undefined;
  let text = bare;
  // An embedded dotted IPv4 tail becomes two hex groups.
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (tail?.[1]) {
    const n = parseIPv4(tail[1]);
    if (n === undefined) return undefined;
    text = `${text.slice(0, tail.index)}${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const [head = '', rest] = text.split('::');
  const headGroups = head === '' ? [] : head.split(':');
  const restGroups = rest === undefined || rest === '' ? [] : rest.split(':');
  const fill = rest === undefined ? 0 : 8 - headGroups.length - restGroups.length;
  const groups = [...headGroups, ...Array<string>(fill).fill('0'), ...restGroups];
  if (groups.length !== 8) return undefined;
  return groups.reduce((acc, group) => (acc << 16n) | BigInt(parseInt(group, 16)), 0n);
}

function inV4Block(address: number, [base, prefix]: V4Block): boolean {
  if (prefix === 0) return true;
  const shift = 32 - prefix;
  return Math.floor(address / 2 ** shift) === Math.floor(base / 2 ** shift);
}

function isPublicV4(address: number): boolean {
  return !DENIED_V4.some((block) => inV4Block(address, block));
}

const v6 = (text: string): bigint => parseIPv6(text) as bigint;
const inV6Prefix = (address: bigint, base: bigint, prefix: number): boolean =>
  address >> BigInt(128 - prefix) === base >> BigInt(128 - prefix);
const low32 = (address: bigint): number => Number(address & 0xffffffffn);

const V6_MAPPED = v6('::ffff:0:0'); // ::ffff:0:0/96, IPv4-mapped
const V6_NAT64 = v6('64:ff9b::'); // 64:ff9b::/96, well-known NAT64 prefix
const V6_6TO4 = v6('2002::'); // 2002::/16, 6to4
const V6_GLOBAL = v6('2000::'); // 2000::/3, global unicast
const V6_DENIED_IN_GLOBAL: ReadonlyArray<readonly [bigint, number]> = [
  [v6('2001::'), 23], // IETF protocol assignments: Teredo, benchmarking, ORCHID
  [v6('2001:db8::'), 32], // documentation
  [v6('3fff::'), 20], // documentation (RFC 9637)
];

function isPublicV6(address: bigint): boolean {
  if (inV6Prefix(address, V6_MAPPED, 96)) return isPublicV4(low32(address));
  if (inV6Prefix(address, V6_NAT64, 96)) return isPublicV4(low32(address));
  if (inV6Prefix(address, V6_6TO4, 16)) return isPublicV4(Number((address >> 80n) & 0xffffffffn));
  // Everything else outside 2000::/3: ::, ::1, IPv4-compatible ::/96, 64:ff9b:1::/48, 100::/64,
  // fc00::/7 (unique local), fe80::/10 (link-local), fec0::/10 (site-local), ff00::/8 (multicast).
  if (!inV6Prefix(address, V6_GLOBAL, 3)) return false;
  return !V6_DENIED_IN_GLOBAL.some(([base, prefix]) => inV6Prefix(address, base, prefix));
}

/** Whether a literal IP address is public unicast; anything unparseable is not. */
export function isPublicAddress(address: string): boolean {
  const asV4 = parseIPv4(address);
  if (asV4 !== undefined) return isPublicV4(asV4);
  const asV6 = parseIPv6(address);
  if (asV6 !== undefined) return isPublicV6(asV6);
  return false;
}

/** The IP family of a literal address, or undefined for a host name. */
export function ipFamily(host: string): 4 | 6 | undefined {
  if (isIPv4(host)) return 4;
  if (isIPv6(host.replace(/%.*$/, ''))) return 6;
  return undefined;
}
