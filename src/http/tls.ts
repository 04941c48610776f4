import { readFileSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { createSecureContext, type SecureContextOptions } from 'node:tls';
import type { Server as HttpsServer } from 'node:https';
import type { Logger } from 'pino';
import type { GatewayConfig } from '../config/schema.js';
import { withFields } from '../model/with-fields.js';

type TlsConfig = GatewayConfig['tls'];
type TlsFileNames = Pick<TlsConfig, 'ca-file' | 'cert-file' | 'key-file'>;

/** What the gateway presents and trusts as a TLS client (towards its agent, its Redis); empty without files. */
export interface ClientTlsFiles {
  ca?: Buffer;
  cert?: Buffer;
  key?: Buffer;
}

/** A TLS file or pair that cannot be used, in words naming the key (never the file's content). */
export class TlsFilesError extends Error {}

export const tlsEnabled = (tls: TlsConfig): boolean => !!tls['cert-file'] && !!tls['key-file'];

/** A PEM file that could not be read, named by its config key (`tls.cert-file`), never by its path. */
export function unreadablePem(key: string, error: unknown): TlsFilesError {
  const code = (error as NodeJS.ErrnoException).code;
  return new TlsFilesError(
    `${key} cannot be read (${code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : (code ?? 'error')})`,
  );
}

async function readPem(key: string, file: string): Promise<Buffer> {
  try {
    return await readFile(file);
  } catch (error) {
    throw unreadablePem(`tls.${key}`, error);
  }
}

/** The PEM files as server options, checked to form a usable pair (a bad file stops the start, not the first handshake). */
export async function loadTlsFiles(tls: TlsConfig): Promise<SecureContextOptions> {
  const [cert, key, ca] = await Promise.all([
    readPem('cert-file', tls['cert-file']!),
    readPem('key-file', tls['key-file']!),
    tls['ca-file'] ? readPem('ca-file', tls['ca-file']) : undefined,
  ]);
  const options: SecureContextOptions = { cert, key, ...(ca ? { ca } : {}) };
  try {
    createSecureContext(options);
  } catch (error) {
    // OpenSSL's reason only (e.g. "key values mismatch"): enough to act on, nothing of the key itself.
    const reason = (error as Error).message.split('\n')[0];
    throw new TlsFilesError(`tls.cert-file and tls.key-file are not a usable PEM certificate and key (${reason})`);
  }
  return options;
}

function readPemNow(key: string, file: string): Buffer {
  try {
    return readFileSync(file);
  } catch (error) {
    throw unreadablePem(key, error);
  }
}

// Every client of one config block (the pools, the Redis connections) reads its files once.
const clientFilesRead = new WeakMap<TlsFileNames, ClientTlsFiles>();

/**
 * The PEM files of a client's TLS block (`where`: its config key, e.g. `upstream.tls`), read when the
 * first client is made (at start), and checked to form a usable TLS context: a bad file stops the start
 * with its key named, not the first connection.
 */
export function readClientTlsFiles(where: string, tls: TlsFileNames): ClientTlsFiles {
  const known = clientFilesRead.get(tls);
  if (known) return known;
  const read = (name: keyof TlsFileNames) => {
    const path = tls[name];
    return path ? readPemNow(`${where}.${name}`, path) : undefined;
  };
  const [ca, cert, key] = [read('ca-file'), read('cert-file'), read('key-file')];
  const files: ClientTlsFiles = withFields(ca ? { ca } : {}, withFields(cert ? { cert } : {}, key ? { key } : {}));
  try {
    createSecureContext(files);
  } catch (error) {
    // OpenSSL's reason only (e.g. "key values mismatch"): enough to act on, nothing of the key itself.
    const reason = (error as Error).message.split('\n')[0];
    throw new TlsFilesError(`${where} files are not a usable PEM CA, certificate and key (${reason})`);
  }
  clientFilesRead.set(tls, files);
  return files;
}

const fingerprint = async (files: string[]): Promise<string> =>
  (
    await Promise.all(
      files.map((file) =>
        stat(file).then(
          (s) => `${s.mtimeMs}:${s.size}:${s.ino}`,
          () => 'missing',
        ),
      ),
    )
  ).join('|');

/**
 * Re-reads the certificate files whenever they change on disk (an ACME client renewing them) and hands each new
 * pair that works together to `apply`. Polls the files' metadata, which also sees a file replaced by rename (how
 * renewals are written); a half-written or mismatched pair (the key renamed in, its certificate not yet) is logged
 * and not applied, so the previous certificate stays until the pair is whole. Returns the stopper.
 */
export function watchTlsPair(tls: TlsConfig, apply: (options: SecureContextOptions) => void, logger: Logger, intervalMs = 5_000): () => void {
  const files = [tls['cert-file'], tls['key-file'], tls['ca-file']].filter((file): file is string => !!file);
  let last: Promise<string> = fingerprint(files);
  let busy = false;
  let rejected: string | undefined;
  const check = async (): Promise<void> => {
    if (busy) return;
    busy = true;
    try {
      const [before, now] = [await last, await fingerprint(files)];
      if (now === before) return;
      try {
        apply(await loadTlsFiles(tls));
      } catch (error) {
        // Keep polling: the other file of the pair may still be on its way. Said once per state of the files.
        if (rejected !== now) logger.warn({ err: error instanceof Error ? error.message : String(error) }, 'TLS certificate change not applied yet');
        rejected = now;
        return;
      }
      last = Promise.resolve(now);
      logger.info('TLS certificate reloaded');
    } finally {
      busy = false;
    }
  };
  const timer = setInterval(() => void check(), intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}

/** The HTTP port's certificate swapped into the running server (watchTlsPair): new connections get it, open ones keep theirs. */
export const reloadTlsOnChange = (server: HttpsServer, tls: TlsConfig, logger: Logger, intervalMs = 5_000): (() => void) =>
  watchTlsPair(tls, (options) => server.setSecureContext(options), logger, intervalMs);
