import { serve } from '@hono/node-server';
import type { Server } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { SecureContextOptions } from 'node:tls';
import type { Logger } from 'pino';
import type { GatewayConfig } from '../config/schema.js';
import { capConnectionsPerPeer, serverOptions } from '../client-limits.js';
import { drainable, type DrainableServer } from './drain.js';
import { listenError } from '../start/port-check.js';
import { reloadTlsOnChange } from './tls.js';
import { withFields } from '../model/index.js';

export interface ListeningHttp extends DrainableServer {
  /** `http(s)://host:port` as bound. */
  url: string;
  /** The host part of `url` (IPv6 in brackets), for the other bindings' addresses. */
  host: string;
  /** Stops watching the TLS files for a renewal (nothing to stop without TLS). */
  stopTlsReload(): void;
}

/**
 * Serves `fetch` on `host`/`port`: over TLS with `tls` (the files reloaded when renewed, checked every
 * `tlsReloadMs`), each peer's connections capped when no trusted proxy stands in front, drainable.
 */
export async function listenHttp(
  fetch: (request: Request, env: unknown) => Response | Promise<Response>,
  config: GatewayConfig,
  logger: Logger,
  tls?: SecureContextOptions,
  tlsReloadMs?: number,
): Promise<ListeningHttp> {
  const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
    const listen = { fetch, hostname: config.host, port: config.port };
    const options = serverOptions(config.server);
    const s = serve(
      tls
        ? withFields(listen, { createServer: createHttpsServer, serverOptions: withFields(options, tls) })
        : withFields(listen, { serverOptions: options }),
      () => resolve(s),
    );
    s.once('error', (error) => reject(listenError(error, config.host, config.port)));
  });
  const perClient = config.server['max-connections-per-client'];
  if (!config['trust-proxy'] && perClient > 0) capConnectionsPerPeer(server as Server, perClient);
  const { drain } = drainable(server as Server);
  const stopTlsReload = tls ? reloadTlsOnChange(server as HttpsServer, config.tls, logger, tlsReloadMs) : () => undefined;
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return { url: `${tls ? 'https' : 'http'}://${host}:${address.port}`, host, drain, stopTlsReload };
}
