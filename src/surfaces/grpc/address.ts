import type { GatewayConfig } from '../../config/schema.js';
import { isWildcardHost } from '../../wildcard-host.js';

/**
 * The `host:port` the card advertises for the gRPC binding, or undefined while it is off:
 * `grpc.public-address`, else the bound host and port; a wildcard bind (0.0.0.0, ::) is advertised
 * with the host callers reached the HTTP card at, as nothing else names this machine to them.
 * `grpc.port` is the bound port here: the gateway rewrites a configured 0 once it listens.
 */
export function grpcPublicAddress(config: Pick<GatewayConfig, 'grpc' | 'host'>, baseUrl: string): string | undefined {
  const { port } = config.grpc;
  if (port === undefined) return undefined;
  if (config.grpc['public-address']) return config.grpc['public-address'];
  let host = config.grpc.host ?? config.host;
  if (isWildcardHost(host)) host = new URL(baseUrl).hostname;
  else if (host.includes(':') && !host.startsWith('[')) host = `[${host}]`;
  return `${host}:${port}`;
}
