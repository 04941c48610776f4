import { readFileSync } from 'node:fs';
import { createSecureContext } from 'node:tls';
import type { UpstreamConfig } from '../config/schema.js';
import { TlsFilesError, unreadablePem } from '../tls.js';
import { withFields } from '../model/index.js';

type UpstreamTls = UpstreamConfig['tls'];

/** What the gateway presents and trusts towards its agent; empty without `upstream.tls`. */
export interface UpstreamTlsFiles {
  ca?: Buffer;
  cert?: Buffer;
  key?: Buffer;
}

function readPem(key: string, file: string): Buffer {
  try {
    return readFileSync(file);
  } catch (error) {
    throw unreadablePem(`upstream.tls.${key}`, error);
  }
}

// Every pool of one config (detection, the client, the pass-through) reads the files once.
const loaded = new WeakMap<UpstreamTls, UpstreamTlsFiles>();

/**
 * The PEM files of `upstream.tls`, read when the first pool is made (at start), and checked to form a
 * usable TLS context: a bad file stops the start with its key named, not the first call to the agent.
 */
export function upstreamTlsFiles(tls: UpstreamTls | undefined): UpstreamTlsFiles {
  if (!tls) return {};
  const known = loaded.get(tls);
  if (known) return known;
  const files: UpstreamTlsFiles = withFields(
    tls['ca-file'] ? { ca: readPem('ca-file', tls['ca-file']) } : {},
    withFields(
      tls['cert-file'] ? { cert: readPem('cert-file', tls['cert-file']) } : {},
      tls['key-file'] ? { key: readPem('key-file', tls['key-file']) } : {},
    ),
  );
  try {
    createSecureContext(files);
  } catch (error) {
    // OpenSSL's reason only (e.g. "key values mismatch"): enough to act on, nothing of the key itself.
    const reason = (error as Error).message.split('\n')[0];
    throw new TlsFilesError(`upstream.tls files are not a usable PEM CA, certificate and key (${reason})`);
  }
  loaded.set(tls, files);
  return files;
}
