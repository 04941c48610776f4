import type { AddressInfo } from 'node:net';
import { Hono } from 'hono';
import { serve } from '@hono/node-server';
import type { GatewayConfig } from '../config/schema.js';
import type { AgentPort, Upstream } from '../core/agent-port.js';
import type { CardFetcher } from '../core/card-refresher.js';
import type { GatewayEnv } from '../surfaces/shared/env.js';
import { listenError } from '../start/port-check.js';
import type { GatewayMetrics } from './metrics.js';
import { metricsMiddleware, mountMetrics } from './metrics-http.js';
import { meteredCards, meteredPort, meteredUpstream } from './metrics-port.js';
import { traceContextMiddleware, tracingMiddleware, type Tracing } from './tracing.js';
import { tracedUpstream } from './tracing-port.js';

export type { GatewayMetrics };

/**
 * The observability hooks the gateway composes in, each the identity when its feature is off, so the
 * wiring in app.ts stays one call per layer.
 */
export interface Observability {
  metrics?: GatewayMetrics;
  upstream<U extends Upstream>(upstream: U): U;
  cards(source: CardFetcher): CardFetcher;
  port<P extends AgentPort>(port: P): P;
  /** Routes and middleware on the main app; call right after the request logger. `shutdown`: the gateway's (gateway-app.ts). */
  mount(app: Hono<GatewayEnv>, shutdown?: AbortSignal): void;
  /** With `metrics.port`: a second listener serving only the metrics. Resolves to where it serves them, and its closer. */
  listen(host: string): Promise<MetricsListener | undefined>;
}

export interface MetricsListener {
  /** The scrape's URL as bound (`http://host:port/metrics`). */
  url: string;
  close(): Promise<void>;
}

export interface ObservabilityParts {
  metrics?: GatewayMetrics;
  tracing?: Tracing;
}

/** Probes and scrapes come every few seconds: spans for them would drown the calls. */
const UNTRACED = new Set(['/health', '/ready']);

export function createObservability(config: GatewayConfig, parts: ObservabilityParts): Observability {
  const { metrics, tracing } = parts;
  const separatePort = config.metrics.port;
  return {
    upstream(upstream) {
      const metered = metrics ? meteredUpstream(upstream, metrics) : upstream;
      return tracing?.recording ? tracedUpstream(metered, tracing.tracer) : metered;
    },
    cards: (source) => (metrics ? meteredCards(source, metrics) : source),
    port: (port) => (metrics ? meteredPort(port, metrics) : port),
    mount(app, shutdown) {
      if (tracing) {
        const traced = tracing.recording ? tracingMiddleware(tracing.tracer) : traceContextMiddleware();
        app.use('*', (c, next) => (UNTRACED.has(c.req.path) || c.req.path === config.metrics.path ? next() : traced(c, next)));
      }
      if (!metrics) return;
      // The scrape itself is not counted: it is registered before the counting middleware.
      if (separatePort === undefined) mountMetrics(app, metrics, config.metrics);
      app.use('*', metricsMiddleware(metrics, shutdown));
    },
    async listen(host) {
      if (!metrics || separatePort === undefined) return undefined;
      // Listened on before the main port: a taken port must name metrics.port, not the main port's --port
      // (a metrics.port equal to another port is refused at start, by assertPortsAvailable).
      const app = new Hono<GatewayEnv>();
      mountMetrics(app, metrics, config.metrics);
      const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
        const s = serve({ fetch: app.fetch, hostname: host, port: separatePort }, () => resolve(s));
        s.once('error', (error) => reject(listenError(error, host, separatePort, 'metrics.port')));
      });
      const address = server.address() as AddressInfo;
      const bound = address.family === 'IPv6' ? `[${address.address}]` : address.address;
      return {
        url: `http://${bound}:${address.port}${config.metrics.path}`,
        close: () => new Promise<void>((resolve) => server.close(() => resolve())),
      };
    },
    ...(metrics ? { metrics } : {}),
  };
}
