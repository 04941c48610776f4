import { isIPv4 } from 'node:net';
import { cardSocketAllowed, hostPort, reachableCardHost, type CardAddressNotice, type HostAddress } from '../card-address.js';

/** Where a GRPC interface of a card points, as a grpc-js channel target, and whether it wants TLS. */
export interface GrpcTarget {
  target: string;
  tls: boolean;
}

/**
 * The channel target of a GRPC interface `url`, of a card read at `cardUrl` (upstream.url). Cards write it as
 * `host:port` (the spec's form), sometimes with a `grpc://`/`grpcs://` or `http(s)://` scheme, or as a grpc-js
 * target (`dns:`, `ipv4:`, `ipv6:`, `unix:`). TLS follows the scheme, else the card's own URL. Each host is held
 * to upstream.url's and a card read over https is not followed into plaintext (reachableCardHost: the card does not
 * choose where the credentials go, nor that they go in clear); a unix socket is called only when upstream.url is on
 * the gateway's machine. Undefined: nothing the gateway calls.
 */
export function grpcTarget(url: string, cardUrl: string, notice?: CardAddressNotice): GrpcTarget | undefined {
  const trimmed = url.trim();
  if (trimmed === '') return undefined;
  const cardTls = new URL(cardUrl).protocol === 'https:';
  if (/^unix(-abstract)?:/i.test(trimmed)) return cardSocketAllowed(trimmed, cardUrl, notice) ? { target: trimmed, tls: cardTls } : undefined;
  const addresses = grpcAddresses(trimmed, cardTls);
  if (!addresses) return undefined;
  const reachable = addresses.map((address) => reachableCardHost(address, trimmed, cardUrl, notice));
  // One channel has one kind of credentials: the addresses dialled as the first is (card-origins may let one go plaintext).
  const tls = reachable[0]!.tls;
  return { target: channelTarget(reachable.filter((address) => address.tls === tls)), tls };
}

/** Whether a GRPC interface `url` of a card read at `cardUrl` names a TLS address (as written, before any rule applies). */
export function grpcInterfaceTls(url: string, cardUrl: string): boolean {
  return grpcAddresses(url.trim(), new URL(cardUrl).protocol === 'https:')?.[0]?.tls ?? false;
}

/**
 * The addresses a target names. A `dns:` target is called through the system resolver (a DNS server it names would
 * choose the address too), which dials every address the name has; an `ipv4:`/`ipv6:` list names each address
 * itself, all dialled in turn as grpc-js's own resolver does. No port: gRPC's 443, or the scheme's.
 */
function grpcAddresses(url: string, cardTls: boolean): HostAddress[] | undefined {
  const listed = /^ipv[46]:(.*)$/is.exec(url);
  if (listed) {
    const addresses = listed[1]!.split(',').map((entry) => listEntry(entry.trim(), cardTls));
    return addresses.every((address) => address !== undefined) ? addresses : undefined;
  }
  const resolved = /^dns:(?:\/\/[^/]*\/)?(.*)$/is.exec(url);
  const schemed = resolved ? undefined : /^([a-z][a-z0-9+.-]*):\/\/(?:[^@/?#]*@)?([^/?#]*)/i.exec(url);
  let address: HostAddress | undefined;
  if (resolved) address = parseHostPort(resolved[1]!, cardTls, '443');
  else if (!schemed) address = parseHostPort(url.replace(/\/+$/, ''), cardTls, '443');
  else {
    const scheme = schemed[1]!.toLowerCase();
    if (!['grpc', 'grpcs', 'http', 'https'].includes(scheme)) return undefined;
    const tls = scheme === 'grpcs' || scheme === 'https';
    address = parseHostPort(schemed[2]!, tls, tls ? '443' : '80');
  }
  return address && [address];
}

/** An address of an `ipv4:`/`ipv6:` list, read as grpc-js reads it: more than one colon unbracketed is an IPv6 address without a port. */
const listEntry = (entry: string, tls: boolean): HostAddress | undefined =>
  parseHostPort(!entry.startsWith('[') && entry.split(':').length > 2 ? `[${entry}]` : entry, tls, '443');

function parseHostPort(text: string, tls: boolean, defaultPort: string): HostAddress | undefined {
  const match = /^(\[[\da-f:.]+\]|[^:[\]/?#@\s]+)(?::(\d{1,5}))?$/i.exec(text);
  if (!match) return undefined;
  try {
    // As upstream.url's hostname is written (lower case, `[::1]`, IDN as punycode), so that the two compare.
    return { hostname: new URL(`http://${match[1]}`).hostname, port: match[2] ?? defaultPort, tls };
  } catch {
    return undefined;
  }
}

/**
 * One grpc-js target for the addresses: `host:port` for one, an `ipv4:`/`ipv6:` list for several IP addresses of one
 * family. Addresses that no one list holds (a host name a rule put beside them) leave the first only.
 */
function channelTarget(addresses: HostAddress[]): string {
  const distinct = [...new Map(addresses.map((address) => [hostPort(address), address])).values()];
  if (distinct.length === 1) return hostPort(distinct[0]!);
  if (distinct.every((address) => isIPv4(address.hostname))) return `ipv4:${distinct.map(hostPort).join(',')}`;
  if (distinct.every((address) => address.hostname.startsWith('['))) return `ipv6:${distinct.map(hostPort).join(',')}`;
  return hostPort(distinct[0]!);
}
