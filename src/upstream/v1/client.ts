import type { Dispatcher } from 'undici';
import type { UpstreamConfig } from '../../config/schema.js';
import type { CallContext, Upstream } from '../../core/agent-port.js';
import type { AgentCard, StreamResponse } from '../../model/index.js';
import { callJsonRpc, createJsonRpcTransport, streamJsonRpc } from '../jsonrpc-client.js';
import { interfaceTenant, withInterfaceTenant } from '../interface-tenant.js';
import { fetchV1Card, handedCard } from './card.js';
import { createV1RestCalls } from './rest-calls.js';
import { V1_STREAMING_METHODS, V1_UNARY_METHODS, v1AgentPort, type V1StreamingName, type V1UnaryName, type V1UnaryResult } from './methods.js';
import type { WarningLogger } from '../../throttled-warnings.js';
import { cardAddressWarnings, reachableCardUrl, type CardAddressNotice } from '../card-address.js';

export interface V1UpstreamOptions {
  /** Where the agent lives; its card is at `${baseUrl}/.well-known/agent-card.json`. */
  baseUrl: string;
  config: UpstreamConfig;
  /** A pool to share; without one the client makes its own and closes it in close(). */
  dispatcher?: Dispatcher;
  /** The binding to call: JSON-RPC (default) or HTTP+JSON, for an agent that offers only that. */
  binding?: 'JSONRPC' | 'HTTP+JSON';
  /** Told once when the card's address is on loopback and upstream.url's is not (card-address.ts). */
  logger?: WarningLogger;
  /** The card the protocol detection just read (DetectedWithCard.card): the first call uses it instead of fetching it again. */
  card?: unknown;
}

export type V1Upstream = Upstream & {
  /** The endpoint (JSON-RPC, or the HTTP+JSON interface URL) taken from the last card, or undefined before the first fetch. */
  endpoint(): string | undefined;
};

/**
 * An absolute http(s) URL for `candidate`, resolved against the base, reachable from here (a wildcard or
 * loopback host replaced: reachableCardUrl); undefined when unusable.
 */
export function usableUrl(candidate: unknown, baseUrl: string, notice?: CardAddressNotice): string | undefined {
  if (typeof candidate !== 'string' || candidate === '') return undefined;
  try {
    const url = new URL(candidate, baseUrl);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
    return reachableCardUrl(url, baseUrl, notice).toString();
  } catch {
    return undefined;
  }
}

/**
 * The JSON-RPC endpoint a card advertises: the first JSONRPC interface, else the legacy top-level
 * `url` (0.3 cards), else the base URL itself.
 */
export function jsonRpcEndpoint(card: AgentCard, baseUrl: string, notice?: CardAddressNotice): string {
  return (
    usableUrl(interfaceOf(card, 'JSONRPC')?.url, baseUrl, notice) ?? usableUrl((card as Record<string, unknown>).url, baseUrl, notice) ?? baseUrl
  );
}

/** The HTTP+JSON interface URL a card advertises (its routes hang below it), else the base URL; no trailing slash. */
export function restInterfaceEndpoint(card: AgentCard, baseUrl: string, notice?: CardAddressNotice): string {
  return (usableUrl(interfaceOf(card, 'HTTP+JSON')?.url, baseUrl, notice) ?? baseUrl).replace(/\/+$/, '');
}

/**
 * The card's first interface of a binding that does not declare a pre-1.0 version, else its first of that binding
 * (a 0.3 card read as 1.0 lists only those): an a2a-js 1.x agent with 0.3 compat may list its 0.3 interface of a
 * binding first, at another URL.
 */
export function interfaceOf(card: AgentCard, binding: 'JSONRPC' | 'HTTP+JSON' | 'GRPC'): AgentCard['supportedInterfaces'][number] | undefined {
  const ofBinding = card.supportedInterfaces.filter((entry) => entry.protocolBinding.toUpperCase() === binding);
  return ofBinding.find((entry) => !/^0\./.test(entry.protocolVersion ?? '')) ?? ofBinding[0];
}

/** Wait for a shared promise, but give up when this caller's own signal fires. */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/** An A2A 1.0 agent reached over JSON-RPC (iac-code or any 1.0 server), or over HTTP+JSON. */
export function createV1Upstream(options: V1UpstreamOptions): V1Upstream {
  const { config } = options;
  const overRest = options.binding === 'HTTP+JSON';
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const transport = createJsonRpcTransport(config, options.dispatcher ? { dispatcher: options.dispatcher } : {});
  const { dispatcher } = transport;
  const notice = cardAddressWarnings(options.logger, baseUrl, config['card-origins']);
  let endpoint: string | undefined;
  let tenant: string | undefined;
  let cardInFlight: Promise<AgentCard> | undefined;

  async function loadCard(signal?: AbortSignal): Promise<AgentCard> {
    const card = await fetchV1Card(baseUrl, {
      dispatcher,
      headers: transport.authHeaders,
      timeoutMs: config['request-timeout-ms'],
      ...(signal ? { signal } : {}),
    });
    return useCard(card);
  }

  function useCard(card: AgentCard): AgentCard {
    endpoint = overRest ? restInterfaceEndpoint(card, `${baseUrl}/`, notice) : jsonRpcEndpoint(card, `${baseUrl}/`, notice);
    tenant = interfaceTenant(interfaceOf(card, overRest ? 'HTTP+JSON' : 'JSONRPC'));
    return card;
  }

  const handed = handedCard(options.card);
  if (handed) useCard(handed);

  /** Calls before any card fetch wait for one shared fetch, so a burst of calls fetches once. */
  async function resolveEndpoint(signal: AbortSignal): Promise<string> {
    if (endpoint) return endpoint;
    if (!cardInFlight) {
      cardInFlight = loadCard().finally(() => {
        cardInFlight = undefined;
      });
      // Every waiter may have given up already; the failure is theirs to see, not an unhandled rejection.
      cardInFlight.catch(() => undefined);
    }
    await untilAborted(cardInFlight, signal);
    return endpoint ?? baseUrl;
  }

  async function unary<K extends V1UnaryName>(name: K, params: unknown, ctx: CallContext): Promise<V1UnaryResult<K>> {
    const method = V1_UNARY_METHODS[name];
    const target = await resolveEndpoint(ctx.signal);
    return callJsonRpc({ transport, endpoint: target, method: method.operation, params: withInterfaceTenant(params, tenant), ctx }, method);
  }

  function stream(name: V1StreamingName, params: unknown, ctx: CallContext): AsyncIterable<StreamResponse> {
    const method = V1_STREAMING_METHODS[name].operation;
    // Once the endpoint is known a stream is the JSON-RPC one itself, without a generator around it.
    if (endpoint) return streamJsonRpc({ transport, endpoint, method, params: withInterfaceTenant(params, tenant), ctx });
    return (async function* () {
      const target = await resolveEndpoint(ctx.signal);
      yield* streamJsonRpc({ transport, endpoint: target, method, params: withInterfaceTenant(params, tenant), ctx });
    })();
  }

  return {
    endpoint: () => endpoint,
    fetchCard: (signal) => loadCard(signal),
    close: () => transport.close(),
    ...v1AgentPort(overRest ? createV1RestCalls({ transport, endpoint: resolveEndpoint, tenant: () => tenant }) : { unary, stream }),
  };
}
