/**
 * A misbehaving HTTP/2 peer for the gRPC client's error tests (a hand-written fake, for the faults), and a grpc-js
 * client to it: each call names in its `x-peer` metadata what the peer does with it (a behaviour of the test's own),
 * so grpc-js makes for real the status it makes of that. The peer can also cut its TCP connections, closed (FIN) or
 * reset (RST), as a network or a proxy that dies under a call does.
 */
import http2, { type ServerHttp2Stream } from 'node:http2';
import type { AddressInfo, Socket } from 'node:net';
import { Client, Metadata, credentials, type ServiceError } from '@grpc/grpc-js';
import { A2AService } from '../../../src/protocol/grpc.js';

/** The gateway's own limit on an agent's message (grpc-client.ts). */
export const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

export type ConnectionCut = 'closed' | 'reset';

/** What the peer does with a call, given the call's stream and a way to cut the peer's connections. */
export type PeerBehaviour = (stream: ServerHttp2Stream, cutConnections: (how: ConnectionCut) => void) => void;

export interface GrpcPeer {
  port: number;
  /** The error grpc-js ends a unary SendMessage with when the peer does `behaviour` (on `client`, the shared one by default). */
  unaryFailure(behaviour: string, client?: Client): Promise<ServiceError>;
  /** The error grpc-js ends a SendStreamingMessage with when the peer does `behaviour`. */
  streamFailure(behaviour: string): Promise<ServiceError>;
  close(): Promise<void>;
}

const named = (behaviour: string): Metadata => {
  const metadata = new Metadata();
  metadata.set('x-peer', behaviour);
  return metadata;
};

export async function startGrpcPeer(behaviours: Record<string, PeerBehaviour>): Promise<GrpcPeer> {
  // An HTTP/2 session does not let its socket be destroyed: the peer keeps its connections' own.
  const sockets = new Set<Socket>();
  const cutConnections = (how: ConnectionCut): void => sockets.forEach((socket) => (how === 'reset' ? socket.resetAndDestroy() : socket.destroy()));
  const server = http2.createServer();
  server.on('stream', (stream, headers) => {
    stream.on('error', () => undefined);
    behaviours[String(headers['x-peer'])]!(stream, cutConnections);
  });
  server.on('sessionError', () => undefined);
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const shared = new Client(`127.0.0.1:${port}`, credentials.createInsecure(), { 'grpc.max_receive_message_length': MAX_MESSAGE_BYTES });

  return {
    port,
    unaryFailure: (behaviour, client = shared) => {
      const { path, requestSerialize, responseDeserialize } = A2AService.sendMessage;
      return new Promise((resolve, reject) => {
        const deserialize = responseDeserialize as (bytes: Buffer) => unknown;
        client.makeUnaryRequest(path, requestSerialize, deserialize, {} as never, named(behaviour), (error) =>
          error ? resolve(error) : reject(new Error(`the call (${behaviour}) was answered`)),
        );
      });
    },
    async streamFailure(behaviour) {
      const { path, requestSerialize, responseDeserialize } = A2AService.sendStreamingMessage;
      const deserialize = responseDeserialize as (bytes: Buffer) => unknown;
      const call = shared.makeServerStreamRequest(path, requestSerialize, deserialize, {} as never, named(behaviour));
      try {
        for await (const message of call) void message;
      } catch (error) {
        return error as ServiceError;
      }
      throw new Error(`the stream (${behaviour}) ended without an error`);
    },
    close: async () => {
      shared.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
