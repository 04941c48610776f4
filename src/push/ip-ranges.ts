import { BlockList, isIPv4, isIPv6 } from 'node:net';

/**
 * Which IP addresses a push callback may reach. IPv4 is a deny list of every special-purpose block
 * (RFC 6890 and successors); IPv6 is an allow list (global unicast 2000::/3 only) with the blocks that
 * embed an IPv4 address checked by that address, so no spelling of a private v4 slips through a v6 form.
 */

/** One family's blocks as a BlockList: `[network, prefix length]` each. */
function blocks(family: 'ipv4' | 'ipv6', subnets: ReadonlyArray<readonly [network: string, prefix: number]>): BlockList {
  const list = new BlockList();
  for (const [network, prefix] of subnets) list.addSubnet(network, prefix, family);
  return list;
}

const DENIED_V4 = blocks('ipv4', [
  ['0.0.0.0', 8], // "this network", includes the unspecified address
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // CGNAT; also Alibaba Cloud's metadata service 100.100.100.200
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local; AWS/Azure/GCP metadata 169.254.169.254
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments; Oracle Cloud metadata 192.0.0.192
  ['192.0.2.0', 24], // documentation TEST-NET-1
  ['192.88.99.0', 24], // deprecated 6to4 relay anycast
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation TEST-NET-2
  ['203.0.113.0', 24], // documentation TEST-NET-3
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, includes the limited broadcast 255.255.255.255
]);

const GLOBAL_V6 = blocks('ipv6', [['2000::', 3]]); // global unicast
const DENIED_IN_GLOBAL_V6 = blocks('ipv6', [
  ['2001::', 23], // IETF protocol assignments: Teredo, benchmarking, ORCHID
  ['2001:db8::', 32], // documentation
  ['3fff::', 20], // documentation (RFC 9637)
]);

/** The IPv6 blocks that carry an IPv4 address, and where it sits: such an address is judged by that IPv4. */
const V4_CARRIERS: ReadonlyArray<{ block: BlockList; embedded: (address: bigint) => number }> = [
  { block: blocks('ipv6', [['::ffff:0:0', 96]]), embedded: (address) => Number(address & 0xffffffffn) }, // IPv4-mapped
  { block: blocks('ipv6', [['64:ff9b::', 96]]), embedded: (address) => Number(address & 0xffffffffn) }, // well-known NAT64
  { block: blocks('ipv6', [['2002::', 16]]), embedded: (address) => Number((address >> 80n) & 0xffffffffn) }, // 6to4
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

const dottedV4 = (address: number): string => [address >>> 24, (address >>> 16) & 255, (address >>> 8) & 255, address & 255].join('.');

const isPublicV4 = (dotted: string): boolean => !DENIED_V4.check(dotted, 'ipv4');

function isPublicV6(bare: string, address: bigint): boolean {
  const carrier = V4_CARRIERS.find(({ block }) => block.check(bare, 'ipv6'));
  if (carrier) return isPublicV4(dottedV4(carrier.embedded(address)));
  // Everything else outside 2000::/3: ::, ::1, IPv4-compatible ::/96, 64:ff9b:1::/48, 100::/64,
  // fc00::/7 (unique local), fe80::/10 (link-local), fec0::/10 (site-local), ff00::/8 (multicast).
  return GLOBAL_V6.check(bare, 'ipv6') && !DENIED_IN_GLOBAL_V6.check(bare, 'ipv6');
}

/** Whether a literal IP address is public unicast; anything unparseable is not. */
export function isPublicAddress(address: string): boolean {
  if (isIPv4(address)) return isPublicV4(address);
  const asV6 = parseIPv6(address);
  if (asV6 !== undefined) return isPublicV6(address.replace(/%.*$/, ''), asV6);
  return false;
}

/** The IP family of a literal address, or undefined for a host name. */
export function ipFamily(host: string): 4 | 6 | undefined {
  if (isIPv4(host)) return 4;
  if (isIPv6(host.replace(/%.*$/, ''))) return 6;
  return undefined;
}
