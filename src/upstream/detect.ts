import type { Dispatcher } from 'undici';
import type { UpstreamConfig } from '../config/schema.js';
import { getJson } from './card-fetch.js';
import { createUpstreamPool, credentialHeaders } from './http.js';
import { AGENT_CARD_JSON_PATH, AGENT_JSON_PATH, fetchV025Card } from './v025/card.js';
import { isRecord } from '../model/json.js';
import { classifyCard, isLegacyInterface, type UpstreamProtocol } from './card-protocol.js';
import { interfacesFromV03CardFields, transportName } from '../translate/index.js';
import { withFields, type A2AError } from '../model/index.js';
import { credentialsRefused } from './upstream-errors.js';
import { withoutUrlCredentials } from '../url-credentials.js';

// Read with the rest of the detection (the `card` command, the tests).
export { classifyCard, type UpstreamProtocol };

/** How the gateway talks to the agent: JSON-RPC (every version), HTTP+JSON (0.3's under `/v1/`, 1.0's), or 1.0's gRPC. */
export type UpstreamBinding = 'JSONRPC' | 'HTTP+JSON' | 'GRPC';

export interface DetectedUpstream {
  protocol: UpstreamProtocol;
  binding: UpstreamBinding;
}

export interface DetectedWithCard extends DetectedUpstream {
  /**
   * The card as read for the detection, when it was read the way the client for `protocol` reads it (a 1.0 card:
   * `agent-card.json` with `A2A-Version: 1.0`; a 0.3 card read as the 0.3 client does; a 0.2.5 card at `agent.json`):
   * handed to the client, whose first call then fetches it no second time. Unchecked.
   */
  card?: unknown;
}

export interface DetectOptions {
  /** The pool to fetch the cards with; without one a temporary pool is used. */
  dispatcher?: Dispatcher;
  signal?: AbortSignal;
}

/**
 * The binding to reach a 0.3 agent with: HTTP+JSON when its card prefers it, or when its
 * `additionalInterfaces` offer HTTP+JSON and no JSONRPC (say a gRPC-first agent); else JSON-RPC.
 */
export function classifyBinding(card: unknown): UpstreamBinding {
  if (!isRecord(card)) return 'JSONRPC';
  const preferred = transportName(card.preferredTransport);
  if (preferred === 'HTTP+JSON' || preferred === 'JSONRPC') return preferred;
  const offered = new Set(interfacesFromV03CardFields({ additionalInterfaces: card.additionalInterfaces }).map((entry) => entry.transport));
  return offered.has('HTTP+JSON') && !offered.has('JSONRPC') ? 'HTTP+JSON' : 'JSONRPC';
}

/**
 * The binding to reach a 1.0 agent with: `upstream.protocol-binding` when it is not `auto`, else
 * JSON-RPC whenever the card lists it for 1.0 (the JSON-RPC client is the one that follows iac-code's
 * wire quirks), else the first of HTTP+JSON and gRPC in the card's order (the agent's preference).
 * Interfaces declaring a pre-1.0 version are left out: the a2a-js 1.x server refuses 1.0 calls on a binding it lists only for 0.3.
 */
export function classifyV1Binding(card: unknown, config: UpstreamConfig): UpstreamBinding {
  if (config['protocol-binding'] !== 'auto') return config['protocol-binding'];
  if (!isRecord(card) || !Array.isArray(card.supportedInterfaces)) return 'JSONRPC';
  const v1Interfaces = card.supportedInterfaces.filter(isRecord).filter((entry) => !isLegacyInterface(entry));
  const offered = v1Interfaces.map((entry) => transportName(entry.protocolBinding));
  if (offered.includes('JSONRPC')) return 'JSONRPC';
  return offered.find((binding): binding is 'HTTP+JSON' | 'GRPC' => binding === 'HTTP+JSON' || binding === 'GRPC') ?? 'JSONRPC';
}

/**
 * A 1.0 card that asks for credentials (401/403) is a 1.0 agent refusing the ones sent, not a missing
 * card: falling back to `agent.json` would reach the agent's open 0.2.5 side (an a2a-bridge's facade)
 * with credentials its 1.0 side turned away. A 0.2.5 agent without an `agent-card.json` answers 404; one
 * behind a front that answers 401/403 for any path it does not serve (an API gateway, a bucket) is named by
 * `upstream.protocol`, which the message says.
 */
const cardRefused = (status: 401 | 403): A2AError =>
  credentialsRefused(
    status,
    `The upstream agent refused the credentials for its card at ${AGENT_CARD_JSON_PATH} (HTTP ${status}); check upstream.auth, or for a 0.2.5 agent behind a front that answers so for paths it does not serve, set upstream.protocol: 0.2.5`,
  );

/**
 * The protocol of the agent at `baseUrl`: `upstream.protocol` when it is not `auto`, else read from
 * its card: `agent-card.json` asked for with `A2A-Version: 1.0` (a 1.0 server with 0.3 compat
 * serves its 1.0 card then), else `agent.json` (0.2.5). Throws when neither card can be read, and when
 * the 1.0 card refuses the credentials (401/403: see cardRefused).
 */
export async function detectUpstreamProtocol(baseUrl: string, config: UpstreamConfig, options: DetectOptions = {}): Promise<UpstreamProtocol> {
  if (config.protocol !== 'auto') return config.protocol;
  return (await detectUpstream(baseUrl, config, options)).protocol;
}

/**
 * Protocol and binding of the agent at `baseUrl` (see detectUpstreamProtocol). A 0.3 agent may
 * need HTTP+JSON and a 1.0 agent gRPC, so their cards are read for the binding (with
 * `upstream.protocol: 1.0` configured, only `protocol-binding` decides); when 0.3 is configured, that card
 * is fetched the way the 0.3 client fetches it (no A2A-Version header).
 */
export async function detectUpstream(baseUrl: string, config: UpstreamConfig, options: DetectOptions = {}): Promise<DetectedUpstream> {
  const { protocol, binding } = await detectUpstreamWithCard(baseUrl, config, options);
  return { protocol, binding };
}

/** detectUpstream, with the card it read when the client for that protocol would read it so (DetectedWithCard.card). */
export async function detectUpstreamWithCard(baseUrl: string, config: UpstreamConfig, options: DetectOptions = {}): Promise<DetectedWithCard> {
  if (config.protocol === '1.0') return { protocol: '1.0', binding: config['protocol-binding'] === 'auto' ? 'JSONRPC' : config['protocol-binding'] };
  if (config.protocol === '0.2.5') return { protocol: '0.2.5', binding: 'JSONRPC' };
  const base = baseUrl.replace(/\/+$/, '');
  const dispatcher = options.dispatcher ?? createUpstreamPool(config);
  const auth = credentialHeaders(config.auth);
  const fetchOptions = {
    dispatcher,
    headers: auth,
    timeoutMs: config['request-timeout-ms'],
    ...(options.signal ? { signal: options.signal } : {}),
  };
  const get = (path: string, headers: Record<string, string>) =>
    getJson(`${base}${path}`, withFields(fetchOptions, { headers: withFields(auth, headers) }));
  const detected = (protocol: UpstreamProtocol, card: unknown): DetectedUpstream => ({
    protocol,
    binding: protocol === '0.3' ? classifyBinding(card) : protocol === '1.0' ? classifyV1Binding(card, config) : 'JSONRPC',
  });
  // Read as the client for `protocol` reads it: the client takes it over (DetectedWithCard.card).
  const readAsIs = (protocol: UpstreamProtocol, card: unknown): DetectedWithCard => withFields(detected(protocol, card), { card });
  try {
    if (config.protocol === '0.3') return readAsIs('0.3', await fetchV025Card(base, '0.3', fetchOptions));
    const modern = await get(AGENT_CARD_JSON_PATH, { 'a2a-version': '1.0' });
    const fromModern = modern.status === 200 ? classifyCard(modern.body, 'agent-card.json') : undefined;
    // A 1.0-shaped card of a 0.3-only agent names no 0.3 binding: read the 0.3 card the 0.3 client will use.
    if (fromModern === '0.3' && isRecord(modern.body) && typeof modern.body.url !== 'string') {
      return readAsIs('0.3', await fetchV025Card(base, '0.3', fetchOptions));
    }
    if (fromModern === '1.0') return readAsIs('1.0', modern.body);
    if (fromModern) return detected(fromModern, modern.body);
    if (modern.status === 401 || modern.status === 403) throw cardRefused(modern.status);
    const legacy = await get(AGENT_JSON_PATH, {});
    const fromLegacy = legacy.status === 200 ? classifyCard(legacy.body, 'agent.json') : undefined;
    // The 0.2.5 client reads agent.json first, as here; the 0.3 client agent-card.json, which was read for 1.0 here.
    if (fromLegacy === '0.2.5') return readAsIs('0.2.5', legacy.body);
    if (fromLegacy) return detected(fromLegacy, legacy.body);
    // The full URLs: the operator sees the well-known paths went after theirs (a `/a2a/jsonrpc` endpoint given as upstream.url).
    const tried = (path: string, status: number) => `${withoutUrlCredentials(`${base}${path}`)} (HTTP ${status})`;
    throw new Error(`no agent card at ${tried(AGENT_CARD_JSON_PATH, modern.status)} or ${tried(AGENT_JSON_PATH, legacy.status)}`);
  } finally {
    if (!options.dispatcher) await dispatcher.close();
  }
}
