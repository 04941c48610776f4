import type { GatewayConfig } from './config/schema.js';
import type { UnknownTasks } from './core/task-scope.js';
import type { Dispatcher } from 'undici';
import { authEnabled } from './surfaces/shared/auth.js';
import type { GrpcSurfaceOptions } from './surfaces/grpc/options.js';
import type { AgentRoutesUpstream, V1SurfaceOptions } from './surfaces/v1/index.js';
import { facadeBasePath, facadeKeys, type V025FacadeOptions } from './surfaces/v025/index.js';
import { credentialHeaders } from './upstream/http.js';
import { withFields } from './model/index.js';

/**
 * Each surface's options, read from the config once here: a surface sees what it uses, under names
 * that say what it is for, and nothing else of the config.
 */

const callOptions = (config: GatewayConfig) => ({
  keepaliveMs: config['keepalive-ms'],
  firstEventTimeoutMs: config.upstream['first-event-timeout-ms'],
  maxBodyBytes: config['max-body-bytes'],
});

const publicUrl = (config: GatewayConfig) => ({ 'public-url': config['public-url'], 'trust-proxy': config['trust-proxy'] });

/** What a served 1.0 card is built from; `config.grpc.port` must be the bound one. */
const servedCardConfig = (config: GatewayConfig): V1SurfaceOptions['card'] => ({
  grpc: config.grpc,
  host: config.host,
  auth: config.auth,
  extensions: config.extensions,
  'push-notifications': config['push-notifications'],
});

export function v1SurfaceOptions(config: GatewayConfig): V1SurfaceOptions {
  return withFields(callOptions(config), {
    auth: config.auth,
    publicUrl: publicUrl(config),
    lenientVersion: config['lenient-version'],
    pushNotifications: config['push-notifications'],
    card: servedCardConfig(config),
    cardLegacyFields: config['card-legacy-fields'],
  });
}

/**
 * Whether a task the registry does not know may reach the agent (task-scope.ts): only while every caller
 * is anonymous. Once any surface takes credentials, an evicted, expired or unrecorded task is not found.
 */
export function unknownTasksFor(config: GatewayConfig): UnknownTasks {
  return authEnabled(config.auth) || facadeKeys(config.bailian).length > 0 ? 'not-found' : 'agent';
}

export function facadeOptions(config: GatewayConfig): V025FacadeOptions {
  return withFields(callOptions(config), {
    bailian: config.bailian,
    basePath: facadeBasePath(config.bailian),
    publicUrl: publicUrl(config),
    pushNotifications: config['push-notifications'],
    pushAllowPrivate: config['push-allow-private'],
    extensions: config.extensions,
    gatewayAuth: authEnabled(config.auth),
    requestTimeoutMs: config.upstream['request-timeout-ms'],
    unknownTasks: unknownTasksFor(config),
    upstreamName: config.upstream.url ?? '',
    lenientVersion: config['lenient-version'],
  });
}

export function grpcSurfaceOptions(config: GatewayConfig): GrpcSurfaceOptions {
  const { keepaliveMs, firstEventTimeoutMs, maxBodyBytes } = callOptions(config);
  return {
    auth: config.auth,
    lenientVersion: config['lenient-version'],
    pushNotifications: config['push-notifications'],
    firstEventTimeoutMs,
    callsPerClient: config.server['max-connections-per-client'],
    trustProxy: config['trust-proxy'],
    maxBodyBytes,
    keepaliveMs,
    host: config.grpc.host ?? config.host,
    listenPort: config.grpc.port ?? 0,
    card: servedCardConfig(config),
    ...(config.tls['cert-file'] && config.tls['key-file'] ? { tls: { certFile: config.tls['cert-file'], keyFile: config.tls['key-file'] } } : {}),
  };
}

/** The agent's own routes, asked like every upstream call: with the gateway's credentials and its request timeout. */
export function agentRoutesUpstream(url: string, dispatcher: Dispatcher, config: GatewayConfig): AgentRoutesUpstream {
  return { url, dispatcher, headers: credentialHeaders(config.upstream.auth), timeoutMs: config.upstream['request-timeout-ms'] };
}
