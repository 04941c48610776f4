/**
 * The official a2a-js 1.x client, built from the gateway's card URL with one transport preferred,
 * plus small builders for its protobuf-shaped requests and readers of its stream payloads.
 */
import { Role, TaskState, type Message, type Part, type SendMessageRequest, type StreamResponse, type Task } from 'a2a-sdk-1';
import {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  RestTransportFactory,
  ServiceParameters,
  withA2AVersion,
  type Client,
} from 'a2a-sdk-1/client';

export type TransportName = 'JSONRPC' | 'HTTP+JSON';
export type Payload = NonNullable<StreamResponse['payload']>;

/** For calls on `client.transport` (the Client refuses push methods locally when the card says no push). */
export const WIRE_1_0 = { serviceParameters: ServiceParameters.create(withA2AVersion('1.0')) };

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

let counter = 0;
const textPart = (value: string): Part => ({ content: { $case: 'text', value }, metadata: undefined, filename: '', mediaType: '' });

export function sendRequest(text: string, ids: { contextId?: string; taskId?: string } = {}): SendMessageRequest {
  counter += 1;
  const message: Message = {
    messageId: `v025-e2e-${process.pid}-${counter}`,
    contextId: ids.contextId ?? '',
    taskId: ids.taskId ?? '',
    role: Role.ROLE_USER,
    parts: [textPart(text)],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
  return { tenant: '', message, configuration: undefined, metadata: undefined };
}

export function listRequest(overrides: Record<string, unknown> = {}) {
  return {
    tenant: '',
    contextId: '',
    status: TaskState.TASK_STATE_UNSPECIFIED,
    pageSize: 100,
    pageToken: '',
    historyLength: undefined,
    statusTimestampAfter: undefined,
    includeArtifacts: false,
    ...overrides,
  };
}

const partsText = (parts: Part[]): string => parts.map((part) => (part.content?.$case === 'text' ? part.content.value : '')).join('');

export const textOf = (message: Message | undefined): string => partsText(message?.parts ?? []);
export const artifactText = (task: Task): string => partsText(task.artifacts[0]?.parts ?? []);

export function asTask(result: Task | Message): Task {
  if (!('status' in result)) throw new Error(`expected a Task, got a Message: ${JSON.stringify(result)}`);
  return result;
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
