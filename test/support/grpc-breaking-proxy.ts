/**
 * An HTTP/2 proxy between the gateway and an agent served over gRPC, for fault injection: it passes every call
 * through on one connection to the agent, and breaks the answer of the next call to a given method right after
 * its N-th message, as a proxy in front of an agent does when its hop to the agent breaks mid-answer: it resets
 * the gateway's stream (`reset`: RST_STREAM INTERNAL_ERROR, as Envoy and nginx do once an answer's headers went
 * out) or ends it without a status (`ended`). The gateway's connection stays up; the agent's call is cancelled,
 * and an a2a-js agent runs its turn on. Messages are counted by their gRPC framing (a 5-byte prefix, its length).
 * It also cuts the gateway's TCP connections on command (`cutConnections`), as a network or a proxy that dies does.
 */
import http2, {
  type ClientHttp2Session,
  type ClientHttp2Stream,
  type IncomingHttpHeaders,
  type OutgoingHttpHeaders,
  type ServerHttp2Stream,
} from 'node:http2';
import type { AddressInfo, Socket } from 'node:net';
import type { AgentCard } from 'a2a-sdk-1';
import type { AgentExecutor } from 'a2a-sdk-1/server';
import { serveSdkAgent, type RunningSdkServer } from './sdk-v1-server.js';

export type StreamBreak = 'reset' | 'ended';

/** How the gateway's TCP connection is cut: closed (FIN) or reset (RST). */
export type ConnectionCut = 'closed' | 'reset';

/** One call seen: its gRPC method, how many messages of its answer went through, whether it was broken. */
export interface ProxiedCall {
  method: string;
  messages: number;
  broken: boolean;
}

export interface GrpcBreakingProxy {
  /** `host:port`, for the agent's card. */
  address: string;
  /** Where calls go (`host:port` of the agent's gRPC server); set before the first one. */
  target: string | undefined;
  calls: ProxiedCall[];
  /** Break the answer of the next call to `method` (e.g. `SendStreamingMessage`) after its `messages`-th message. */
  breakAfter(method: string, messages: number, how: StreamBreak): void;
  of(method: string): ProxiedCall[];
  /** Cut every TCP connection the gateway has to the proxy, its calls under way: each stream to the agent is cancelled. */
  cutConnections(how: ConnectionCut): void;
  close(): Promise<void>;
}

const PREFIX = 5;

/** Reads a stream's DATA chunks in turn: for each, the byte of the chunk at which each gRPC message it completes ends. */
function messageCounter(): (chunk: Buffer) => number[] {
  let needed = PREFIX;
  let inPrefix = true;
  let prefix = Buffer.alloc(0);
  return (chunk) => {
    const ends: number[] = [];
    let at = 0;
    while (at < chunk.length) {
      const take = Math.min(needed, chunk.length - at);
      if (inPrefix) prefix = Buffer.concat([prefix, chunk.subarray(at, at + take)]);
      at += take;
      needed -= take;
      if (needed > 0) break;
      if (inPrefix) {
        needed = prefix.readUInt32BE(1);
        inPrefix = false;
        prefix = Buffer.alloc(0);
      }
      if (!inPrefix && needed === 0) {
        ends.push(at);
        inPrefix = true;
        needed = PREFIX;
      }
    }
    return ends;
  };
}

/** The headers a proxy passes on: none of HTTP/2's pseudo-headers but those a request or answer needs. */
const passed = (headers: IncomingHttpHeaders, keep: readonly string[]): OutgoingHttpHeaders =>
  Object.fromEntries(Object.entries(headers).filter(([name]) => !name.startsWith(':') || keep.includes(name)));

export async function startGrpcBreakingProxy(): Promise<GrpcBreakingProxy> {
  let session: ClientHttp2Session | undefined;
  let armed: { method: string; messages: number; how: StreamBreak } | undefined;
  const streams = new Set<ServerHttp2Stream | ClientHttp2Stream>();
  const agentSession = (): ClientHttp2Session => {
    if (!session || session.closed || session.destroyed) {
      session = http2.connect(`http://${proxy.target}`);
      session.on('error', () => undefined);
    }
    return session;
  };

  function relay(stream: ServerHttp2Stream, headers: IncomingHttpHeaders): void {
    const method = String(headers[':path']).split('/').pop() ?? '';
    const call: ProxiedCall = { method, messages: 0, broken: false };
    proxy.calls.push(call);
    const breaking = armed?.method === method ? armed : undefined;
    if (breaking) armed = undefined;
    const upstream = agentSession().request(passed(headers, [':method', ':path', ':scheme', ':authority']));
    streams.add(stream).add(upstream);
    stream.on('error', () => undefined).on('close', () => upstream.close(http2.constants.NGHTTP2_CANCEL));
    upstream.on('error', () => undefined).on('close', () => streams.delete(upstream));
    stream.on('close', () => streams.delete(stream));
    stream.pipe(upstream);
    let trailers: OutgoingHttpHeaders | undefined;
    upstream.on('response', (answer, flags) => {
      if (flags & http2.constants.NGHTTP2_FLAG_END_STREAM) return void stream.respond(passed(answer, [':status']), { endStream: true });
      stream.respond(passed(answer, [':status']), { waitForTrailers: true });
      stream.on('wantTrailers', () => (trailers ? stream.sendTrailers(trailers) : stream.close()));
    });
    upstream.on('trailers', (sent) => (trailers = passed(sent, [])));
    const count = messageCounter();
    upstream.on('data', (chunk: Buffer) => {
      if (call.broken) return;
      const ends = count(chunk);
      const last = breaking ? ends[breaking.messages - call.messages - 1] : undefined;
      call.messages += ends.length;
      if (!breaking || last === undefined) return void stream.write(chunk);
      call.broken = true;
      call.messages = breaking.messages;
      stream.write(chunk.subarray(0, last), () => {
        upstream.close(http2.constants.NGHTTP2_CANCEL);
        if (breaking.how === 'reset') stream.close(http2.constants.NGHTTP2_INTERNAL_ERROR);
        else stream.end();
      });
    });
    upstream.on('end', () => {
      if (!call.broken) stream.end();
    });
  }

  const server = http2.createServer();
  const gatewaySessions = new Set<http2.ServerHttp2Session>();
  server.on('session', (opened) => {
    gatewaySessions.add(opened);
    opened.on('close', () => gatewaySessions.delete(opened));
  });
  server.on('stream', relay);
  server.on('sessionError', () => undefined);
  const gatewaySockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    gatewaySockets.add(socket);
    socket.on('close', () => gatewaySockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const proxy: GrpcBreakingProxy = {
    address: `127.0.0.1:${(server.address() as AddressInfo).port}`,
    target: undefined,
    calls: [],
    breakAfter: (method, messages, how) => (armed = { method, messages, how }),
    of: (method) => proxy.calls.filter((call) => call.method === method),
    cutConnections: (how) => gatewaySockets.forEach((socket) => (how === 'reset' ? socket.resetAndDestroy() : socket.destroy())),
    close: () =>
      new Promise<void>((resolve) => {
        streams.forEach((stream) => stream.close(http2.constants.NGHTTP2_CANCEL));
        session?.destroy();
        gatewaySessions.forEach((opened) => opened.destroy());
        server.close(() => resolve());
      }),
  };
  return proxy;
}

/** A real a2a-js 1.x agent behind the proxy, and how to stop both. */
export interface ProxiedGrpcAgent {
  proxy: GrpcBreakingProxy;
  agent: RunningSdkServer;
  close(): Promise<void>;
}

/** `executor` served on its SDK's gRPC binding alone, its card (`card`) sending callers to the proxy in front of it. */
export async function grpcAgentBehindProxy(card: (baseUrl: string) => AgentCard, executor: AgentExecutor): Promise<ProxiedGrpcAgent> {
  const proxy = await startGrpcBreakingProxy();
  const agent = await serveSdkAgent(
    (baseUrl, grpcAddress) => {
      // The proxy forwards to the agent's own gRPC port.
      proxy.target = grpcAddress;
      return { ...card(baseUrl), supportedInterfaces: [{ url: proxy.address, protocolBinding: 'GRPC', protocolVersion: '1.0', tenant: '' }] };
    },
    executor,
    { jsonRpc: '/a2a/jsonrpc', rest: '/a2a/rest' },
    { grpcOnly: true },
  );
  return {
    proxy,
    agent,
    async close() {
      await proxy.close();
      agent.grpcServer?.forceShutdown();
      agent.server.closeAllConnections();
      await new Promise<void>((resolve) => agent.server.close(() => resolve()));
    },
  };
}
