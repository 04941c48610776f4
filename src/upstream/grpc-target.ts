import { cardSocketAllowed, hostPort, reachableCardHost, type CardAddressNotice, type HostAddress } from './card-address.js';

/** Where a GRPC interface of a card points, as a grpc-js channel target, and whether it wants TLS. */
export interface GrpcTarget {
  target: string;
  tls: boolean;
}

/**
 * The channel target of a GRPC interface `url`, of a card read at `cardUrl` (upstream.url). Cards write it as
 * `host:port` (the spec's form), sometimes with a `grpc://`/`grpcs://` or `http(s)://` scheme, or as a grpc-js
 * target (`dns:`, `ipv4:`, `ipv6:`, `unix:`). TLS follows the scheme, else the card's own URL. The host is held
 * to upstream.url's (reachableCardHost: the card does not choose where the credentials go); a unix socket is
 * called only when upstream.url is on the gateway's machine. Undefined: nothing the gateway calls.
 */
export function grpcTarget(url: string, cardUrl: string, notice?: CardAddressNotice): GrpcTarget | undefined {
  const trimmed = url.trim();
  if (trimmed === '') return undefined;
  const cardTls = new URL(cardUrl).protocol === 'https:';
  if (/^unix(-abstract)?:/i.test(trimmed)) return cardSocketAllowed(trimmed, cardUrl, notice) ? { target: trimmed, tls: cardTls } : undefined;
  const address = grpcAddress(trimmed, cardTls);
  if (!address) return undefined;
  const reachable = reachableCardHost(address, trimmed, cardUrl, notice);
  return { target: hostPort(reachable), tls: reachable.tls };
}

/**
 * The host and port a target names. A `dns:` target is called through the system resolver (a DNS server it
 * names would choose the address too); of an `ipv4:`/`ipv6:` list, the first address. No port: gRPC's 443, or
 * the scheme's.
 */
function grpcAddress(url: string, cardTls: boolean): HostAddress | undefined {
  const resolved = /^(?:dns:(?:\/\/[^/]*\/)?|ipv4:|ipv6:)([^,]*)/i.exec(url);
  if (resolved) return parseHostPort(resolved[1]!, cardTls, '443');
  const schemed = /^([a-z][a-z0-9+.-]*):\/\/(?:[^@/?#]*@)?([^/?#]*)/i.exec(url);
  if (!schemed) return parseHostPort(url.replace(/\/+$/, ''), cardTls, '443');
  const scheme = schemed[1]!.toLowerCase();
  if (!['grpc', 'grpcs', 'http', 'https'].includes(scheme)) return undefined;
  const tls = scheme === 'grpcs' || scheme === 'https';
  return parseHostPort(schemed[2]!, tls, tls ? '443' : '80');
}

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
