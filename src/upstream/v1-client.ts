import { request, type Dispatcher } from 'undici';
import { z } from 'zod';
import type { UpstreamConfig } from '../config/schema.js';
import type { CallContext, Upstream } from '../core/agent-port.js';
import {
  A2AError,
  AgentCard,
  ListTaskPushNotificationConfigsResponse,
  ListTasksResponse,
  SendMessageResponse,
  Task,
  TaskPushNotificationConfig,
  type StreamResponse,
} from '../model/index.js';
import { decodedBody } from './decoded-body.js';
import { callJsonRpc, createJsonRpcTransport, streamJsonRpc, validateResult } from './jsonrpc-client.js';
import { isWellFormedSendMessageResponse, isWellFormedTask } from './well-formed.js';

export interface V1UpstreamOptions {
  /** Where the agent lives; its card is at `${baseUrl}/.well-known/agent-card.json`. */
  baseUrl: string;
  config: UpstreamConfig;
  /** A pool to share; without one the client makes its own and closes it in close(). */
  dispatcher?: Dispatcher;
}

export type V1Upstream = Upstream & {
  /** The JSON-RPC endpoint taken from the last card, or undefined before the first fetch. */
  endpoint(): string | undefined;
};

const CARD_PATH = '/.well-known/agent-card.json';
/** DeleteTaskPushNotificationConfig answers `null` (JSON-RPC) or `{}` (as REST does). */
const EmptyResult = z.union([z.null(), z.looseObject({})]);
const UNSPECIFIED_HOSTS = new Set(['0.0.0.0', '[::]']);

/** An absolute http(s) URL for `candidate`, resolved against the base; undefined when unusable. */
export function usableUrl(candidate: unknown, baseUrl: string): string | undefined {
  if (typeof candidate !== 'string' || candidate === '') return undefined;
  try {
    const url = new URL(candidate, baseUrl);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
    // An agent bound to 0.0.0.0 advertises that address (iac-code does); reach it the way we reached its card.
    if (UNSPECIFIED_HOSTS.has(url.hostname)) url.host = new URL(baseUrl).host;
    return url.toString();
  } catch {
    return undefined;
  }
}

/**
 * The JSON-RPC endpoint a card advertises: the first JSONRPC interface, else the legacy top-level
 * `url` (0.3 cards), else the base URL itself.
 */
export function jsonRpcEndpoint(card: AgentCard, baseUrl: string): string {
  const jsonRpc = card.supportedInterfaces.find((entry) => entry.protocolBinding.toUpperCase() === 'JSONRPC');
  return usableUrl(jsonRpc?.url, baseUrl) ?? usableUrl((card as Record<string, unknown>).url, baseUrl) ?? baseUrl;
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

/** An A2A 1.0 agent reached over JSON-RPC (iac-code or any 1.0 server). */
export function createV1Upstream(options: V1UpstreamOptions): V1Upstream {
  const { config } = options;
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const transport = createJsonRpcTransport(config, options.dispatcher ? { dispatcher: options.dispatcher } : {});
  const { dispatcher } = transport;
  let endpoint: string | undefined;
  let cardInFlight: Promise<AgentCard> | undefined;

  async function loadCard(signal?: AbortSignal): Promise<AgentCard> {
    const bound = config['request-timeout-ms'] > 0 ? AbortSignal.timeout(config['request-timeout-ms']) : undefined;
    const combined = signal && bound ? AbortSignal.any([signal, bound]) : (signal ?? bound);
    try {
      const response = await request(`${baseUrl}${CARD_PATH}`, {
        dispatcher,
        method: 'GET',
        headers: { ...transport.authHeaders, 'a2a-version': '1.0', accept: 'application/json', 'accept-encoding': 'identity' },
        ...(combined ? { signal: combined } : {}),
      });
      const text = await decodedBody(response).text();
      if (response.statusCode !== 200) throw new Error(`card answered HTTP ${response.statusCode}`);
      const card = validateResult(AgentCard, JSON.parse(text) as unknown, 'agent card');
      endpoint = jsonRpcEndpoint(card, `${baseUrl}/`);
      return card;
    } catch {
      throw A2AError.internal('Upstream agent card is unavailable');
    }
  }

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

  async function call<T>(
    method: string,
    params: unknown,
    schema: z.ZodType<T>,
    ctx: CallContext,
    isWellFormed?: (result: unknown) => result is T,
  ): Promise<T> {
    const target = await resolveEndpoint(ctx.signal);
    return callJsonRpc({ transport, endpoint: target, method, params, ctx }, schema, isWellFormed);
  }

  function stream(method: string, params: unknown, ctx: CallContext): AsyncIterable<StreamResponse> {
    // Once the endpoint is known a stream is the JSON-RPC one itself, without a generator around it.
    if (endpoint) return streamJsonRpc({ transport, endpoint, method, params, ctx });
    return (async function* () {
      yield* streamJsonRpc({ transport, endpoint: await resolveEndpoint(ctx.signal), method, params, ctx });
    })();
  }

  return {
    endpoint: () => endpoint,
    fetchCard: (signal) => loadCard(signal),
    close: () => transport.close(),
    sendMessage: (req, ctx) => call('SendMessage', req, SendMessageResponse, ctx, isWellFormedSendMessageResponse),
    sendStreamingMessage: (req, ctx) => stream('SendStreamingMessage', req, ctx),
    getTask: (req, ctx) => call('GetTask', req, Task, ctx, isWellFormedTask),
    listTasks: (req, ctx) => call('ListTasks', req, ListTasksResponse, ctx),
    cancelTask: (req, ctx) => call('CancelTask', req, Task, ctx, isWellFormedTask),
    subscribeToTask: (req, ctx) => stream('SubscribeToTask', req, ctx),
    createTaskPushNotificationConfig: (req, ctx) => call('CreateTaskPushNotificationConfig', req, TaskPushNotificationConfig, ctx),
    getTaskPushNotificationConfig: (req, ctx) => call('GetTaskPushNotificationConfig', req, TaskPushNotificationConfig, ctx),
    listTaskPushNotificationConfigs: (req, ctx) => call('ListTaskPushNotificationConfigs', req, ListTaskPushNotificationConfigsResponse, ctx),
    async deleteTaskPushNotificationConfig(req, ctx) {
      await call('DeleteTaskPushNotificationConfig', req, EmptyResult, ctx);
    },
    getExtendedAgentCard: (ctx) => call('GetExtendedAgentCard', {}, AgentCard, ctx),
  };
}
