import { get as httpGet, type IncomingMessage } from 'node:http';
import { get as httpsGet } from 'node:https';
import type { GatewayConfig } from '../config/schema.js';
import { HEALTH_PATH } from '../gateway-routes.js';
import { withFields } from '../model/index.js';
import { isWildcardHost } from '../wildcard-host.js';
import { complain, EXIT_FAILURE, EXIT_OK, EXIT_UNREACHABLE, oneLine } from './exit-codes.js';

const TIMEOUT_MS = 4_000;

/** Where this machine reaches the gateway: loopback when it binds every interface, else its one address. */
function probeHost(host: string): string {
  if (!isWildcardHost(host)) return host;
  return host.includes(':') ? '::1' : '127.0.0.1';
}

type Probe = { status: number } | { error: unknown };

function probe(scheme: 'http' | 'https', host: string, port: number): Promise<Probe> {
  return new Promise((resolve) => {
    const answered = (response: IncomingMessage): void => {
      response.resume();
      resolve({ status: response.statusCode ?? 0 });
    };
    const options = { host, port, path: HEALTH_PATH, timeout: TIMEOUT_MS };
    // Its own process on this machine: the certificate names the public host, not the loopback one.
    const request = scheme === 'https' ? httpsGet(withFields(options, { rejectUnauthorized: false }), answered) : httpGet(options, answered);
    request.once('timeout', () => request.destroy(new Error(`no answer within ${TIMEOUT_MS / 1000} s`)));
    request.once('error', (error) => resolve({ error }));
  });
}

/**
 * `a2a-bridge health`: is the gateway this configuration describes alive on this machine (GET /health)?
 * The image's HEALTHCHECK. The configured scheme is tried first and the other after it, so a gateway
 * whose TLS files are set only in the config file `serve` reads is still found. Exit 0 alive, 1 it
 * answered something else, 3 nothing answered.
 */
export async function health(config: GatewayConfig): Promise<number> {
  const host = probeHost(config.host);
  const schemes = config.tls['cert-file'] ? (['https', 'http'] as const) : (['http', 'https'] as const);
  let firstError: unknown;
  for (const scheme of schemes) {
    const outcome = await probe(scheme, host, config.port);
    if ('status' in outcome) {
      const url = `${scheme}://${host.includes(':') ? `[${host}]` : host}:${config.port}/health`;
      if (outcome.status === 200) {
        process.stdout.write(`healthy: ${url}\n`);
        return EXIT_OK;
      }
      complain(`${url} answered HTTP ${outcome.status}`);
      return EXIT_FAILURE;
    }
    firstError ??= outcome.error;
  }
  complain(`no gateway answers on port ${config.port} of ${host}: ${oneLine(firstError)}`);
  return EXIT_UNREACHABLE;
}
