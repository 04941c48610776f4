import { experimental } from '@grpc/grpc-js';
import type { Logger } from 'pino';
import { loadTlsFiles, watchTlsPair } from '../../http/tls.js';

type Identity = experimental.IdentityCertificateUpdate;
type Listener = experimental.IdentityCertificateUpdateListener;

/**
 * The gRPC port's certificate and key, swapped only for a pair that works together, as the HTTP port's are
 * (http/tls.ts watchTlsPair). grpc-js's own FileWatcherCertificateProvider takes whatever the two files hold when it
 * reads them: an ACME renewal renames the key and the certificate in one after the other, and a read between the two
 * gave the port the new key with the old certificate, so its handshakes failed until the next read.
 */
class CheckedPair implements experimental.CertificateProvider {
  private readonly listeners = new Set<Listener>();
  private stopWatching: (() => void) | undefined;

  constructor(
    private current: Identity,
    private readonly watch: (apply: (identity: Identity) => void) => () => void,
  ) {}

  addIdentityCertificateListener(listener: Listener): void {
    this.listeners.add(listener);
    // Watched while a server uses it, as grpc-js's provider does; told on the next tick, as that provider tells.
    this.stopWatching ??= this.watch((identity) => {
      this.current = identity;
      for (const told of this.listeners) told(identity);
    });
    process.nextTick(listener, this.current);
  }

  removeIdentityCertificateListener(listener: Listener): void {
    this.listeners.delete(listener);
    if (this.listeners.size > 0) return;
    this.stopWatching?.();
    this.stopWatching = undefined;
  }

  // No client certificates are asked of gRPC callers: no CA is provided.
  addCaCertificateListener(): void {}
  removeCaCertificateListener(): void {}
}

const identityOf = (options: { cert?: unknown; key?: unknown }): Identity => ({
  certificate: options.cert as Buffer,
  privateKey: options.key as Buffer,
});

/** The server credentials of a TLS gRPC port: the pair checked at start (a bad pair stops it) and watched every `reloadMs`. */
export async function checkedCertificateCredentials(
  tls: { certFile: string; keyFile: string },
  logger: Logger,
  reloadMs: number,
): Promise<ReturnType<typeof experimental.createCertificateProviderServerCredentials>> {
  const files = { 'cert-file': tls.certFile, 'key-file': tls.keyFile };
  const first = identityOf(await loadTlsFiles(files));
  const pair = new CheckedPair(first, (apply) => watchTlsPair(files, (options) => apply(identityOf(options)), logger, reloadMs));
  return experimental.createCertificateProviderServerCredentials(pair, null, false);
}
