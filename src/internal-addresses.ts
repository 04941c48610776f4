import { BlockList, isIPv4, isIPv6 } from 'node:net';

/**
 * The addresses of a private network, in an agent's error text (`connect ECONNREFUSED 10.0.3.4:5432`,
 * `dial tcp [fd00::1]:443`): they map the agent's side of the network (its database, its cache, the cloud's
 * metadata service at 169.254.169.254) for whoever reads the error, so a caller gets a placeholder. Public
 * addresses are left: nothing there is hidden. A private address without a port is left too, and so is a
 * network block (`10.0.0.0/8`, `fd00::/8`): an infrastructure agent names the caller's own instances, VPC
 * and vSwitch ranges when their plan fails (`ECS 172.16.3.4 has no public IP`), which the caller needs to
 * read; an endpoint (an address with a port) and a loopback, link-local or unspecified address are the
 * agent's own side.
 */

export const INTERNAL_ADDRESS = '[internal address]';

/** Networks as `address/prefix` (a single address: no prefix), IPv6 where the address has a colon. */
function blockList(networks: readonly string[]): BlockList {
  const list = new BlockList();
  for (const network of networks) {
    const [address = '', prefix] = network.split('/');
    const type = address.includes(':') ? 'ipv6' : 'ipv4';
    if (prefix === undefined) list.addAddress(address, type);
    else list.addSubnet(address, Number(prefix), type);
  }
  return list;
}

/** Loopback, link-local (the cloud's metadata service) and 0.0.0.0 alone, not its /8: a four-part 0.x version (`0.1.2.3`) reads as one of those. */
const AGENTS_OWN_NETWORKS = ['127.0.0.0/8', '169.254.0.0/16', '0.0.0.0', '::1', 'fe80::/10'];

/** Addresses no caller's resource has: the agent's own host and the cloud's metadata service. */
const AGENTS_OWN = blockList(AGENTS_OWN_NETWORKS);

/**
 * Every private address: the agent's own, the private IPv4 ranges, carrier-grade NAT and unique local IPv6
 * (fc00::/7). An IPv4-mapped address (::ffff:10.0.0.1) is checked as IPv4.
 */
const INTERNAL = blockList([...AGENTS_OWN_NETWORKS, '10.0.0.0/8', '100.64.0.0/10', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7']);

/**
 * Dotted quads with a port, not part of a longer dotted run (`v1.10.0.3.4`, `10.0.3.4.5`) or a word; a
 * version of three parts (`10.0.3`, `0.2.5`) is no candidate.
 */
const IPV4 = /(?<![\w.])\d{1,3}(?:\.\d{1,3}){3}(?![\w]|\.\d)(?::\d{1,5}(?:-\d{1,5})?(?!\d))?/g;
/** `[fd00::1]:443`, `[fe80::1%eth0]`, `[fd00::5]:80-90`. */
const BRACKETED_IPV6 = /\[([0-9A-Fa-f:.]+)(?:%[\w.-]+)?\](?::\d{1,5}(?:-\d{1,5})?(?!\d))?/g;
/**
 * A bare IPv6 candidate (`fd00::1`, `fe80::1%eth0`, Node's `::1:8000` with its port), checked before it is
 * taken: a clock time (`07:39:50`) or `Foo::bar` is none.
 */
const BARE_IPV6 = /(?<![\w:.[])[0-9A-Fa-f]{0,4}(?::[0-9A-Fa-f]{0,4}){2,8}(?:\.\d{1,3}){0,3}(?:%[\w.-]+)?/g;

const isIn = (list: BlockList, address: string): boolean =>
  (isIPv4(address) && list.check(address, 'ipv4')) || (isIPv6(address) && list.check(address.replace(/%.*$/, ''), 'ipv6'));
const isInternal = (address: string): boolean => isIn(INTERNAL, address);

/** An address with a port (or a range of ports) is an endpoint, whatever follows it (`redis://10.0.0.5:6379/0`). */
const PORT = /:\d+(?:-\d+)?$/;
const hasPort = (found: string): boolean => PORT.test(found);

/**
 * Whether an internal address found is hidden: an endpoint always; an address alone when it is the agent's own
 * (loopback, link-local) and no network block's (`/` and a prefix length follow, not a URL's path:
 * `http://10.0.0.5/0/tasks`).
 */
function hidden(address: string, withPort: boolean, text: string, end: number): boolean {
  return isInternal(address) && (withPort || (isIn(AGENTS_OWN, address) && !/^\/\d{1,3}(?![\w/])/.test(text.slice(end))));
}

/** How much of a bare IPv6 candidate is an internal address (with a port after it), and whether it has that port. */
function bareIpv6(found: string): { address: string; length: number; withPort: boolean } {
  // A colon that ends a sentence's clause (`fd00::1: refused`) is not the address's; `fd00::` ends in two.
  const address = found.replace(/(?<!:):$/, '');
  if (isInternal(address)) return { address, length: address.length, withPort: false };
  // Node writes `::1` and its port so (`::1:8000`), which reads as another, public, IPv6 address.
  const withPort = /^(.+):\d{1,5}$/.exec(address);
  return withPort && isInternal(withPort[1]!)
    ? { address: withPort[1]!, length: address.length, withPort: true }
    : { address, length: 0, withPort: false };
}

/** `text` with every internal address it hides (hidden) replaced by INTERNAL_ADDRESS. */
export function withoutInternalAddresses(text: string): string {
  return text
    .replace(BRACKETED_IPV6, (found, address: string, offset: number, whole: string) =>
      hidden(address, hasPort(found), whole, offset + found.length) ? INTERNAL_ADDRESS : found,
    )
    .replace(BARE_IPV6, (found, offset: number, whole: string) => {
      const { address, length, withPort } = bareIpv6(found);
      return length > 0 && hidden(address, withPort, whole, offset + found.length) ? INTERNAL_ADDRESS + found.slice(length) : found;
    })
    .replace(IPV4, (found, offset: number, whole: string) =>
      hidden(found.replace(PORT, ''), hasPort(found), whole, offset + found.length) ? INTERNAL_ADDRESS : found,
    );
}
