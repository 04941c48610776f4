/**
 * The official a2a-js 1.x client over the gRPC binding: built from the gateway's card URL (the card
 * itself comes over HTTP) with only the GrpcTransportFactory, so every call after the card is gRPC.
 */
import {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  ServiceParameters,
  withA2AVersion,
  type Client,
  type RequestOptions,
  type Transport,
} from 'a2a-sdk-1/client';
import { GrpcTransportFactory } from 'a2a-sdk-1/client/grpc';
import { isGrpcError } from 'a2a-sdk-1/errors/grpc';
import { AgentCard } from 'a2a-sdk-1';
import type { TestGateway } from '../../support/gateway.js';

export async function connectGrpc(baseUrl: string): Promise<Client> {
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new GrpcTransportFactory()],
      preferredTransports: ['GRPC'],
      cardResolver: new DefaultAgentCardResolver(),
    }),
  );
  return factory.createFromUrl(baseUrl);
}

/** The SDK's gRPC transport to the gateway's gRPC binding, made from its card (read over HTTP with `headers`). */
export async function grpcTransport(gateway: TestGateway, headers: Record<string, string> = {}, callOptions = {}): Promise<Transport> {
  const json = (await (await fetch(`${gateway.url}/.well-known/agent-card.json`, { headers })).json()) as Record<string, unknown>;
  return new GrpcTransportFactory({ grpcCallOptions: callOptions }).create(gateway.grpcAddress!, AgentCard.fromJSON(json));
}

/** Options for calling `client.transport` directly: the A2A-Version the Client adds itself, plus any metadata. */
export function wire(metadata: Record<string, string> = {}): RequestOptions {
  return { serviceParameters: ServiceParameters.create(withA2AVersion('1.0'), (params) => Object.assign(params, metadata)) };
}

/** A gRPC failure as the SDK client reports it: the status code and the ErrorInfo reason. */
export interface GrpcFailure {
  status?: number;
  reason?: string;
  message: string;
}

export async function grpcFailureOf(call: Promise<unknown> | AsyncIterable<unknown>): Promise<GrpcFailure> {
  try {
    if (Symbol.asyncIterator in call) {
      const iterator = call[Symbol.asyncIterator]();
      await iterator.next();
      await iterator.return?.();
    } else await call;
  } catch (error) {
    if (isGrpcError(error)) return { status: error.status, reason: error.reason, message: error.message };
    return { message: error instanceof Error ? error.message : String(error) };
  }
  throw new Error('expected the call to fail');
}
