import { Hono } from 'hono';
import { serve } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { GatewayConfig } from './config/schema.js';
import type { AgentPort } from './core/agent-port.js';
import type { CardSource } from './core/card-source.js';
import { createCardRefresher } from './core/card-refresher.js';
import { createGateway } from './core/gateway.js';
import { createTaskRegistry } from './core/task-registry/index.js';
import type { TaskRegistry } from './core/task-registry/types.js';
import { startDemoAgent } from './demo-agent/index.js';
import { requestLogger } from './log.js';
import { mountHealth } from './surfaces/health.js';
import { requireCredentials } from './surfaces/shared/auth.js';
import type { GatewayEnv } from './surfaces/shared/env.js';
import { jsonRpcEndpoint } from './surfaces/shared/jsonrpc-endpoint.js';
import type { JsonRpcDialect } from './surfaces/shared/jsonrpc.js';
import { createV1Dialect, mountV1Surface } from './surfaces/v1/index.js';
import { createV1Upstream } from './upstream/v1-client.js';

export interface GatewayAppDeps {
  config: GatewayConfig;
  port: AgentPort;
  cards: CardSource;
  registry: TaskRegistry;
  logger: Logger;
}

/** Guards one JSON-RPC dialect with credentials, so dialects sharing `POST /` keep their own auth. */
function guarded(dialect: JsonRpcDialect, guard: ReturnType<typeof requireCredentials>): JsonRpcDialect {
  return {
    name: dialect.name,
    handles: (method) => dialect.handles(method),
    async handle(request, c) {
      let response: Response | undefined;
      const rejection = await guard(c, async () => {
        response = await dialect.handle(request, c);
      });
      return rejection ?? response ?? c.res;
    },
  };
}

/** The whole HTTP surface: health, the 1.0 surface and the JSON-RPC endpoint. */
export function createGatewayApp(deps: GatewayAppDeps): Hono<GatewayEnv> {
  const { config, port, cards, logger } = deps;
  const app = new Hono<GatewayEnv>();
  app.use('*', requestLogger(logger));
  mountHealth(app, cards);

  const v1Auth = requireCredentials(config.auth);
  const v1 = new Hono<GatewayEnv>();
  v1.use('*', v1Auth);
  mountV1Surface(v1, { port, cards, config });

  const dialects: JsonRpcDialect[] = [guarded(createV1Dialect({ port, cards, config }), v1Auth)];
  app.post('/', jsonRpcEndpoint(dialects, { maxBodyBytes: config['max-body-bytes'] }));
  app.route('/', v1);

  app.notFound((c) => c.json({ error: 'Not Found' }, 404));
  app.onError((error, c) => {
    c.var.logger?.error({ err: error }, 'unhandled error');
    return c.json({ error: 'Internal Server Error' }, 500);
  });
  return app;
}

export interface RunningGateway {
  url: string;
  close(): Promise<void>;
}

/** Starts everything the config asks for and serves it; `close()` drains and releases it all. */
export async function startGateway(config: GatewayConfig, logger: Logger): Promise<RunningGateway> {
  const cleanups: Array<() => Promise<void>> = [];
  const closeAll = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch((err) => logger.warn({ err }, 'cleanup failed'));
  };
  try {
    let upstreamUrl = config.upstream.url;
    if (!upstreamUrl) {
      const demo = await startDemoAgent();
      cleanups.push(demo.close);
      upstreamUrl = demo.url;
      logger.info({ upstream: upstreamUrl }, 'no upstream configured: serving the embedded demo agent');
    }
    const upstream = createV1Upstream({ baseUrl: upstreamUrl, config: config.upstream });
    cleanups.push(() => upstream.close());

    const cards = createCardRefresher(upstream, { intervalMs: config.upstream['card-refresh-ms'], logger });
    await cards.start();
    cleanups.push(async () => cards.stop());

    const registry = createTaskRegistry(config);
    cleanups.push(() => registry.close());

    const port = createGateway(upstream, { registry, upstreamName: upstreamUrl, ownsTaskQueries: false, logger });
    const app = createGatewayApp({ config, port, cards, registry, logger });

    const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
      const s = serve({ fetch: app.fetch, hostname: config.host, port: config.port }, () => resolve(s));
      s.once('error', reject);
    });
    cleanups.push(
      () =>
        new Promise<void>((resolve) => {
          server.close(() => resolve());
          if ('closeIdleConnections' in server) server.closeIdleConnections();
        }),
    );
    const address = server.address() as AddressInfo;
    const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    return { url: `http://${host}:${address.port}`, close: closeAll };
  } catch (error) {
    await closeAll();
    throw error;
  }
}
