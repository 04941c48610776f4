import { isIP } from 'node:net';
import { connect, createSecureContext, type SecureContext } from 'node:tls';
import { CallCredentials, ChannelCredentials, credentials, experimental, type ChannelOptions } from '@grpc/grpc-js';
import type { ClientTlsFiles } from '../../http/tls.js';

/**
 * TLS credentials for a channel to `target` (grpcTarget's `host:port` or `ipv4:`/`ipv6:` list), trusting and
 * presenting `files` (upstream.tls). grpc-js always sends the target's host as the TLS server name (SNI): to an IP
 * address RFC 6066 forbids that, and Node says so on the gateway's stderr (DEP0123) and means to drop it. A target
 * whose host is an IP address is dialled without a server name, its certificate checked against that address (its
 * IP SAN) as grpc-js checks it; a host name target stays grpc-js's own (SNI and check: the host).
 */
export function grpcTlsCredentials(target: string, files: ClientTlsFiles): ChannelCredentials {
  const { ca, cert, key } = files;
  const ip = ipHostOf(target);
  if (!ip) return credentials.createSsl(ca ?? null, key ?? null, cert ?? null);
  return new NoServerNameCredentials(ip, createSecureContext({ ca, cert, key }));
}

/** The host grpc-js checks the certificate against (a list's first address), when it is an IP address. */
function ipHostOf(target: string): string | undefined {
  const first = target.replace(/^ipv[46]:/i, '').split(',')[0]!;
  const host = experimental.splitHostPort(first)?.host;
  return host && isIP(host) ? host : undefined;
}

/** What grpc-js's own TLS connector does (ALPN h2, the peer verified), but with no server name sent. */
class NoServerNameCredentials extends ChannelCredentials {
  constructor(
    private readonly host: string,
    private readonly context: SecureContext,
  ) {
    super();
  }

  _isSecure(): boolean {
    return true;
  }

  _equals(other: ChannelCredentials): boolean {
    return other === this;
  }

  _createSecureConnector(
    _target: experimental.GrpcUri,
    _options: ChannelOptions,
    callCredentials = CallCredentials.createEmpty(),
  ): experimental.SecureConnector {
    return {
      connect: (socket) =>
        new Promise((resolve, reject) => {
          // `host`, not `servername`: Node checks the certificate against it and sends no SNI.
          const secured = connect({ socket, secureContext: this.context, host: this.host, ALPNProtocols: ['h2'] }, () =>
            resolve({ socket: secured, secure: true }),
          );
          secured.on('error', reject);
        }),
      waitForReady: () => Promise.resolve(),
      getCallCredentials: () => callCredentials,
      destroy: () => undefined,
    };
  }
}
