import type { UpstreamConfig } from '../config/schema.js';
import { readClientTlsFiles, type ClientTlsFiles } from '../http/tls.js';

/** What the gateway presents and trusts towards its agent (read once, at start); empty without `upstream.tls`. */
export function upstreamTlsFiles(tls: UpstreamConfig['tls'] | undefined): ClientTlsFiles {
  return tls ? readClientTlsFiles('upstream.tls', tls) : {};
}
