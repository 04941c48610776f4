import { Client, Metadata, credentials, status } from '@grpc/grpc-js';
import type { Dispatcher } from 'undici';
import type { UpstreamConfig } from '../../config/schema.js';
import type { CallContext, Upstream } from '../../core/agent-port.js';
import { withFields, A2AError, type AgentCard, type AgentInterface, type StreamResponse } from '../../model/index.js';
import { A2AService, GRPC_METHODS, requestMessage, responseJson, type GrpcMethodName } from '../../protocol/grpc.js';
import { fromGrpcError, grpcCallNeverSent } from './grpc-errors.js';
import { streamWentIdle } from '../upstream-errors.js';
import { grpcInterfaceTls, grpcTarget, type GrpcTarget } from './grpc-target.js';
import { grpcTlsCredentials } from './grpc-tls.js';
import { cardAddressWarnings, type CardAddressNotice } from '../card-address.js';
import type { WarningLogger } from '../../throttled-warnings.js';
import { createUpstreamPool, credentialHeaders, credentialSecrets, withCallHeaders } from '../http.js';
import { upstreamTlsFiles } from '../upstream-tls.js';
import { interfaceTenant, withInterfaceTenant } from '../interface-tenant.js';
import { fetchV1Card, handedCard } from './card.js';
import { interfaceOf, untilAborted } from './client.js';
import { V1_UNARY_METHODS, streamEvent, unaryResult, v1AgentPort, type V1StreamingName, type V1UnaryName, type V1UnaryResult } from './methods.js';

export interface GrpcUpstreamOptions {
  /** Where the agent's card is (over HTTP): `${baseUrl}/.well-known/agent-card.json`. */
  baseUrl: string;
  config: UpstreamConfig;
  /** The HTTP pool for the card; without one the client makes its own and closes it in close(). */
  dispatcher?: Dispatcher;
  /** Told once when the card's gRPC address is not followed as written (card-address.ts). */
  logger?: WarningLogger;
  /** The card the protocol detection just read (DetectedWithCard.card): the first call uses it instead of fetching it again. */
  card?: unknown;
}

export type GrpcUpstream = Upstream & {
  /** The channel target (`host:port`) taken from the last card, or undefined before the first fetch. */
  endpoint(): string | undefined;
};

/** Agents' answers (a task with its whole history and artifacts) can outgrow grpc-js's 4 MiB default. */
const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

/** A method of the service definition with its message types erased (each call passes its own codec's output). */
interface UntypedMethod {
  path: string;
  requestSerialize(value: unknown): Buffer;
  responseDeserialize(value: Buffer): unknown;
}
const definitionOf = (name: GrpcMethodName): UntypedMethod => A2AService[name];

/** What the headers bound needs of a call: both call kinds emit `metadata` when the agent answers. */
interface CancellableCall {
  cancel(): void;
  once(event: 'metadata', listener: () => void): unknown;
}

/**
 * Cancels `call` unless the agent sends its response headers within `ms` (0: no bound), as the
 * HTTP pool's headers timeout does for JSON-RPC; once the agent answered, a stream may stay quiet.
 */
function boundHeaders(call: CancellableCall, ms: number): { fired(): boolean; clear(): void } {
  if (ms <= 0) return { fired: () => false, clear: () => undefined };
  let fired = false;
  const timer = setTimeout(() => {
    fired = true;
    call.cancel();
  }, ms);
  const clear = (): void => clearTimeout(timer);
  call.once('metadata', clear);
  return { fired: () => fired, clear };
}

/**
 * Cancels a server stream that sent nothing for `ms` (`stream-idle-timeout-ms`; 0: no bound): an agent that
 * froze with its connection open (HTTP/2 pings keep the connection, not the call, alive). One timer for
 * the stream's life, pushed back by each message; messages buffered unread are no silence of the agent's.
 */
function idleWatch(call: CancellableCall & { readableLength: number }, ms: number): { heard(): void; fired(): boolean; clear(): void } {
  if (ms <= 0) return { heard: () => undefined, fired: () => false, clear: () => undefined };
  let fired = false;
  const timer = setTimeout(() => {
    if (call.readableLength > 0) return void timer.refresh();
    fired = true;
    call.cancel();
  }, ms);
  timer.unref();
  return { heard: () => void timer.refresh(), fired: () => fired, clear: () => clearTimeout(timer) };
}

/**
 * The call's CallContext.onMessageSent, for the calls that carry the caller's message: gRPC tells no moment its
 * request left, so the call counts as sent once made, told when it answers or ends, unless grpc-js says no connection
 * took it (refused, no route: grpcCallNeverSent), which leaves nothing at the agent; a connection dropped under it
 * (UNAVAILABLE too) may have.
 */
function messageSent(name: string, ctx: CallContext): ((failure?: unknown) => void) | undefined {
  const onSent = ctx.onMessageSent;
  if (!onSent || (name !== 'sendMessage' && name !== 'sendStreamingMessage')) return undefined;
  return (failure) => {
    if (!grpcCallNeverSent(failure)) onSent();
  };
}

/**
 * The GRPC interface of a card the gateway calls: of those of the first protocol version interfaceOf takes, the first
 * over TLS, else the first; a card that offers both does not have the credentials sent in clear.
 */
function grpcInterfaceEntry(card: AgentCard, cardUrl: string): AgentInterface | undefined {
  const first = interfaceOf(card, 'GRPC');
  const sameVersion = card.supportedInterfaces.filter(
    (entry) => entry.protocolBinding.toUpperCase() === 'GRPC' && entry.protocolVersion === first?.protocolVersion,
  );
  return sameVersion.find((entry) => grpcInterfaceTls(entry.url, cardUrl)) ?? first;
}

/** The GRPC interface of a card and its address as the gateway calls it (grpcTarget), or undefined when it lists none it calls. */
export function grpcInterfaceOf(
  card: AgentCard,
  cardUrl: string,
  notice?: CardAddressNotice,
): { entry: AgentInterface; target: GrpcTarget } | undefined {
  const entry = grpcInterfaceEntry(card, cardUrl);
  const target = entry ? grpcTarget(entry.url, cardUrl, notice) : undefined;
  return entry && target ? { entry, target } : undefined;
}

/**
 * An A2A 1.0 agent reached over the gRPC binding, with the JSON-RPC client's behaviour: its card
 * over HTTP (which names the gRPC address), the same credentials (as metadata), `A2A-Version: 1.0`
 * and the caller's extensions, the whole-call bound on unary calls as a deadline, the headers bound on
 * every call but SendMessage (its headers may come only with the turn's end: headersTimeoutOf), and the
 * caller's abort cancelling the call.
 */
export function createGrpcUpstream(options: GrpcUpstreamOptions): GrpcUpstream {
  const { config } = options;
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const dispatcher = options.dispatcher ?? createUpstreamPool(config);
  const authHeaders = credentialHeaders(config.auth);
  const secrets = credentialSecrets(config.auth);
  const notice = cardAddressWarnings(options.logger, baseUrl, config['card-origins']);
  let channel: { key: string; target: string; client: Client } | undefined;
  let tenant: string | undefined;
  let cardInFlight: Promise<AgentCard> | undefined;

  async function loadCard(signal?: AbortSignal): Promise<AgentCard> {
    const card = await fetchV1Card(baseUrl, {
      dispatcher,
      headers: authHeaders,
      timeoutMs: config['request-timeout-ms'],
      ...(signal ? { signal } : {}),
    });
    return useCard(card);
  }

  function useCard(card: AgentCard): AgentCard {
    const chosen = grpcInterfaceOf(card, `${baseUrl}/`, notice);
    if (!chosen) throw A2AError.internal('The upstream agent card lists no GRPC interface the gateway can call');
    connectTo(chosen.target);
    tenant = interfaceTenant(chosen.entry);
    return card;
  }

  function connectTo({ target, tls }: GrpcTarget): void {
    const key = `${tls ? 'tls' : 'plain'} ${target}`;
    if (channel?.key === key) return;
    channel?.client.close();
    // The same CA and client certificate as the HTTP pool (`upstream.tls`); the public roots without a CA file.
    const client = new Client(target, tls ? grpcTlsCredentials(target, upstreamTlsFiles(config.tls)) : credentials.createInsecure(), {
      'grpc.max_receive_message_length': MAX_MESSAGE_BYTES,
      'grpc.max_send_message_length': MAX_MESSAGE_BYTES,
    });
    channel = { key, target, client };
  }

  const handed = handedCard(options.card);
  try {
    if (handed) useCard(handed);
  } catch {
    // A card without a GRPC interface to call is fetched again by the first call, which fails with that card's error.
  }

  /** Calls before any card fetch wait for one shared fetch, as the JSON-RPC client does. */
  async function ready(signal: AbortSignal): Promise<Client> {
    if (channel) return channel.client;
    if (!cardInFlight) {
      cardInFlight = loadCard().finally(() => {
        cardInFlight = undefined;
      });
      cardInFlight.catch(() => undefined);
    }
    await untilAborted(cardInFlight, signal);
    return channel!.client;
  }

  function metadataFor(ctx: CallContext): Metadata {
    const metadata = new Metadata();
    for (const [key, value] of Object.entries(withCallHeaders(withFields(authHeaders, { 'a2a-version': '1.0' }), ctx, 'a2a-extensions')))
      metadata.set(key, value);
    return metadata;
  }

  async function unary<K extends V1UnaryName>(name: K, params: unknown, ctx: CallContext): Promise<V1UnaryResult<K>> {
    const client = await ready(ctx.signal);
    const method = GRPC_METHODS[name];
    const ms = config['request-timeout-ms'];
    const sent = messageSent(name, ctx);
    const answer = await new Promise<unknown>((resolve, reject) => {
      if (ctx.signal.aborted) return reject(fromGrpcError(ctx.signal.reason, secrets, { caller: ctx.signal }));
      const definition = definitionOf(name);
      const call = client.makeUnaryRequest(
        definition.path,
        definition.requestSerialize,
        definition.responseDeserialize,
        requestMessage(method, withInterfaceTenant(params, tenant)),
        metadataFor(ctx),
        ms > 0 ? { deadline: Date.now() + ms } : {},
        (error, response) => {
          ctx.signal.removeEventListener('abort', cancel);
          headers.clear();
          sent?.(error);
          if (!error) return resolve(response);
          const timedOut = headers.fired() || (ms > 0 && error.code === status.DEADLINE_EXCEEDED);
          reject(fromGrpcError(error, secrets, { caller: ctx.signal, timedOut }));
        },
      );
      // A grpc-js server sends a unary call's headers with its answer: a SendMessage's may come only at the
      // turn's end, so only the deadline (`request-timeout-ms`) bounds it; any other call the headers bound too.
      const headers = boundHeaders(call, V1_UNARY_METHODS[name].operation === 'SendMessage' ? 0 : config['headers-timeout-ms']);
      const cancel = (): void => call.cancel();
      ctx.signal.addEventListener('abort', cancel, { once: true });
    });
    return unaryResult(name, responseJson(method, answer));
  }

  async function* stream(name: V1StreamingName, params: unknown, ctx: CallContext): AsyncGenerator<StreamResponse> {
    const client = await ready(ctx.signal);
    const method = GRPC_METHODS[name];
    const definition = definitionOf(name);
    const call = client.makeServerStreamRequest(
      definition.path,
      definition.requestSerialize,
      definition.responseDeserialize,
      requestMessage(method, withInterfaceTenant(params, tenant)),
      metadataFor(ctx),
    );
    const cancel = (): void => call.cancel();
    if (ctx.signal.aborted) cancel();
    else ctx.signal.addEventListener('abort', cancel, { once: true });
    const headers = boundHeaders(call, config['headers-timeout-ms']);
    const idle = idleWatch(call, config['stream-idle-timeout-ms']);
    // A call cancelled as it is made (its caller already gone) sends nothing.
    let sent = ctx.signal.aborted ? undefined : messageSent(name, ctx);
    const tellSent = (failure?: unknown): void => {
      sent?.(failure);
      sent = undefined;
    };
    try {
      for await (const message of call) {
        headers.clear();
        idle.heard();
        tellSent();
        const event = streamEvent(responseJson(method, message));
        if (event) yield event;
      }
    } catch (error) {
      tellSent(error);
      if (idle.fired()) throw streamWentIdle(config['stream-idle-timeout-ms']);
      throw fromGrpcError(error, secrets, { caller: ctx.signal, timedOut: headers.fired() });
    } finally {
      tellSent();
      idle.clear();
      headers.clear();
      ctx.signal.removeEventListener('abort', cancel);
      call.cancel();
    }
  }

  return {
    endpoint: () => channel?.target,
    fetchCard: (signal) => loadCard(signal),
    async close() {
      channel?.client.close();
      channel = undefined;
      if (!options.dispatcher) await dispatcher.close();
    },
    ...v1AgentPort({ unary, stream }),
  };
}
