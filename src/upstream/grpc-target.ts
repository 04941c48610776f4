import { isWildcardHost } from '../wildcard-host.js';

/** Where a GRPC interface of a card points, as a grpc-js channel target, and whether it wants TLS. */
export interface GrpcTarget {
  target: string;
  tls: boolean;
}

/**
 * The channel target of a GRPC interface `url`. Cards write it as `host:port` (the spec's form),
 * sometimes with a `grpc://`/`grpcs://` or `http(s)://` scheme; targets grpc-js resolves itself
 * (`dns:`, `unix:`, `ipv4:`) pass as they are. TLS follows the scheme, else the card's own URL. An
 * agent bound to a wildcard address advertises it: it is reached at the host its card was read from.
 */
export function grpcTarget(url: string, cardUrl: string): GrpcTarget | undefined {
  const trimmed = url.trim();
  if (trimmed === '') return undefined;
  const cardHost = new URL(cardUrl).hostname;
  const cardTls = new URL(cardUrl).protocol === 'https:';
  if (/^(dns|unix|unix-abstract|ipv4|ipv6):/i.test(trimmed)) return { target: trimmed, tls: cardTls };
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(trimmed)?.[1]?.toLowerCase();
  if (scheme === undefined) return { target: withReachableHost(trimmed, cardHost), tls: cardTls };
  if (!['grpc', 'grpcs', 'http', 'https'].includes(scheme)) return undefined;
  try {
    const parsed = new URL(trimmed.replace(/^[^:]+:/, 'http:'));
    const tls = scheme === 'grpcs' || scheme === 'https';
    const port = parsed.port || (tls ? '443' : '80');
    return { target: withReachableHost(`${parsed.hostname}:${port}`, cardHost), tls };
  } catch {
    return undefined;
  }
}

function withReachableHost(hostPort: string, cardHost: string): string {
  const colon = hostPort.lastIndexOf(':');
  const host = colon > 0 ? hostPort.slice(0, colon) : hostPort;
  if (!isWildcardHost(host)) return hostPort;
  return `${cardHost}${hostPort.slice(colon)}`;
}
