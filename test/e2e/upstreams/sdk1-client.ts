/**
 * The official a2a-js 1.x client as the 0.2.5 and 0.3 upstream suites use it: built from the gateway's
 * card URL with one transport preferred (no request recording), and readers of its stream payloads that
 * name states and rebuild the reply as a subscriber sees it. Requests and the other readers:
 * test/support/sdk-v1-client.ts.
 */
import { TaskState, type StreamResponse } from 'a2a-sdk-1';
import {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  RestTransportFactory,
  type Client,
} from 'a2a-sdk-1/client';
import { artifactText, partsText, type Payload, type TransportName } from '../../support/sdk-v1-client.js';
import { connectGrpc } from '../grpc/grpc-client.js';

export async function connectClient(gatewayUrl: string, transport: TransportName): Promise<Client> {
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({}), new RestTransportFactory({})],
      preferredTransports: [transport],
      cardResolver: new DefaultAgentCardResolver({}),
    }),
  );
  return factory.createFromUrl(gatewayUrl);
}

export function outline(payload: Payload): string {
  return payload.$case === 'statusUpdate' ? `statusUpdate:${TaskState[payload.value.status?.state ?? 0]}` : payload.$case;
}

/**
 * The reply text as a subscriber reconstructs it: a Task snapshot resets it to the snapshot's
 * artifact, an update appends to it or replaces it.
 */
export function reconstructedText(payloads: Payload[]): string {
  let text = '';
  for (const payload of payloads) {
    if (payload.$case === 'task') text = artifactText(payload.value);
    else if (payload.$case === 'artifactUpdate' && payload.value.artifact) {
      const chunk = partsText(payload.value.artifact.parts);
      text = payload.value.append ? text + chunk : chunk;
    }
  }
  return text;
}

/** Pulls a stream one payload at a time. */
export class StreamReader {
  private readonly iterator: AsyncIterator<StreamResponse>;
  readonly seen: Payload[] = [];

  constructor(stream: AsyncIterable<StreamResponse>) {
    this.iterator = stream[Symbol.asyncIterator]();
  }

  /** The next payload, or undefined once the stream has closed. */
  async next(): Promise<Payload | undefined> {
    for (;;) {
      const result = await this.iterator.next();
      if (result.done) return undefined;
      if (result.value.payload) {
        this.seen.push(result.value.payload);
        return result.value.payload;
      }
    }
  }

  /** Everything up to the end of the stream (the payloads read before included). */
  async rest(): Promise<Payload[]> {
    while ((await this.next()) !== undefined);
    return this.seen;
  }
}

/** The task id of a stream payload. */
export function taskIdOf(payload: Payload): string {
  return payload.$case === 'task' ? payload.value.id : payload.$case === 'message' ? payload.value.taskId : payload.value.taskId;
}

/** The official 1.x client over one of the gateway's three bindings. */
export const connectBinding = (gatewayUrl: string, binding: TransportName | 'GRPC'): Promise<Client> =>
  binding === 'GRPC' ? connectGrpc(gatewayUrl) : connectClient(gatewayUrl, binding);
