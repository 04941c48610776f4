/**
 * The official a2a-js 1.x client as the end-to-end tests use it: built from a card URL with one
 * transport preferred and every HTTP request it makes recorded, plus builders for its protobuf-shaped
 * requests and readers for what it returns.
 */
import { Role, TaskState, type ListTasksRequest, type Message, type Part, type SendMessageRequest, type StreamResponse, type Task } from 'a2a-sdk-1';
import {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  RestTransportFactory,
  ServiceParameters,
  createAuthenticatingFetchWithRetry,
  withA2AVersion,
  type Client,
  type RequestOptions,
} from 'a2a-sdk-1/client';
import { isJsonRpcError, isRestError } from 'a2a-sdk-1/errors';
import { codeInfo } from '../../src/model/index.js';

export type TransportName = 'JSONRPC' | 'HTTP+JSON';
export const TRANSPORTS: TransportName[] = ['JSONRPC', 'HTTP+JSON'];

// ---------------------------------------------------------------------------------------------------
// Building a client

export interface RecordedRequest {
  method: string;
  url: string;
  authorization: string | null;
}

export interface RecordingClient {
  client: Client;
  /** Every HTTP request the client made (card fetch included), oldest first. */
  requests: RecordedRequest[];
}

export interface ClientOptions {
  /** Bearer token sent on every request (card fetch included) through the SDK's authentication hook. */
  token?: string;
  /** Headers sent on every request the same way (a proxy's `X-Forwarded-For`, say). */
  headers?: Record<string, string>;
}

/** A fetch that records each request as it leaves (after the auth hook added its headers). */
function recordingFetch(requests: RecordedRequest[]): typeof fetch {
  return (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    requests.push({ method: init?.method ?? 'GET', url, authorization: new Headers(init?.headers).get('authorization') });
    return fetch(input, init);
  };
}

/** The SDK's own auth hook (`createAuthenticatingFetchWithRetry`) around the recording fetch. */
function clientFetch(requests: RecordedRequest[], options: ClientOptions): typeof fetch {
  const recording = recordingFetch(requests);
  const { token } = options;
  if (!token && !options.headers) return recording;
  return createAuthenticatingFetchWithRetry(recording, {
    headers: async () => ({ ...options.headers, ...(token ? { authorization: `Bearer ${token}` } : {}) }),
    shouldRetryWithHeaders: async () => undefined,
  });
}

/** The SDK's card resolver with the same fetch as the client's. */
export function cardResolver(requests: RecordedRequest[], options: ClientOptions = {}): DefaultAgentCardResolver {
  return new DefaultAgentCardResolver({ fetchImpl: clientFetch(requests, options) });
}

/** A ClientFactory that tries `transport` first (then whatever else the card offers). */
export function clientFactory(transport: TransportName, requests: RecordedRequest[], options: ClientOptions = {}): ClientFactory {
  const fetchImpl = clientFetch(requests, options);
  return new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl }), new RestTransportFactory({ fetchImpl })],
      preferredTransports: [transport],
      cardResolver: cardResolver(requests, options),
    }),
  );
}

/** `createFromUrl(baseUrl)` with `transport` preferred. */
export async function connect(baseUrl: string, transport: TransportName, options: ClientOptions = {}): Promise<RecordingClient> {
  const requests: RecordedRequest[] = [];
  const client = await clientFactory(transport, requests, options).createFromUrl(baseUrl);
  return { client, requests };
}

/**
 * Options for calling `client.transport` directly. The Client refuses the push methods locally when the
 * card says `pushNotifications: false` and skips GetExtendedAgentCard when the card does not offer it;
 * its transport goes to the wire, but then the A2A-Version header must be added by hand.
 */
export const V1_WIRE: RequestOptions = { serviceParameters: ServiceParameters.create(withA2AVersion('1.0')) };

// ---------------------------------------------------------------------------------------------------
// Requests

let messageCounter = 0;

export const textPart = (value: string): Part => ({
  content: { $case: 'text', value },
  metadata: undefined,
  filename: '',
  mediaType: '',
});

export function userMessage(text: string, ids: { contextId?: string; taskId?: string } = {}): Message {
  messageCounter += 1;
  return {
    messageId: `e2e-${process.pid}-${messageCounter}`,
    contextId: ids.contextId ?? '',
    taskId: ids.taskId ?? '',
    role: Role.ROLE_USER,
    parts: [textPart(text)],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

export function sendRequest(text: string, ids: { contextId?: string; taskId?: string } = {}): SendMessageRequest {
  return { tenant: '', message: userMessage(text, ids), configuration: undefined, metadata: undefined };
}

/** The fields of an iac-code permission prompt (its `metadata.iac_code.input`) an answer names. */
export interface PermissionPromptIds {
  requestTaskId?: string;
  inputId?: string;
  toolUseId?: string;
}

/**
 * iac-code's answer to a permission prompt as a 1.0 client sends it: one JSON data part (docs/iac-code.md,
 * "Permission prompts"), on the task `ids` name (the prompt's `requestTaskId` unless given; its context if given).
 */
export function permissionAnswer(
  input: PermissionPromptIds,
  decision: 'allow_once' | 'deny' = 'allow_once',
  ids: { contextId?: string; taskId?: string } = {},
): SendMessageRequest {
  const value = {
    schemaVersion: 1,
    kind: 'permission',
    requestTaskId: input.requestTaskId,
    inputId: input.inputId,
    toolUseId: input.toolUseId,
    decision,
  };
  const part: Part = { content: { $case: 'data', value }, mediaType: 'application/json', filename: '', metadata: undefined };
  const message = userMessage('', {
    taskId: ids.taskId ?? input.requestTaskId ?? '',
    ...(ids.contextId !== undefined ? { contextId: ids.contextId } : {}),
  });
  return { tenant: '', message: { ...message, parts: [part] }, configuration: undefined, metadata: undefined };
}

export function listRequest(overrides: Partial<ListTasksRequest> = {}): ListTasksRequest {
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

// ---------------------------------------------------------------------------------------------------
// Results

/** The text of some parts' text parts, joined. */
export const partsText = (parts: Part[]): string => parts.map((part) => (part.content?.$case === 'text' ? part.content.value : '')).join('');

/** The text of a message's text parts, joined. */
export const textOf = (message: Message | undefined): string => partsText(message?.parts ?? []);

/** The whole text of a task's artifact (chunks appended in order). */
export const artifactText = (task: Task, index = 0): string => partsText(task.artifacts[index]?.parts ?? []);

export function asTask(result: Task | Message): Task {
  if (!('status' in result)) throw new Error(`expected a Task, got a Message: ${JSON.stringify(result)}`);
  return result;
}

export type Payload = NonNullable<StreamResponse['payload']>;

/** The task id and context id of a stream payload. */
export function payloadRef(payload: Payload): { taskId: string; contextId: string } {
  if (payload.$case === 'task') return { taskId: payload.value.id, contextId: payload.value.contextId };
  return { taskId: payload.value.taskId, contextId: payload.value.contextId };
}

/** `$case`, plus the state for a status update: the outline of a stream. */
export function outline(payload: Payload): string {
  return payload.$case === 'statusUpdate' ? `statusUpdate:${payload.value.status?.state}` : payload.$case;
}

/** The first artifact's text as a stream built it up, honouring `append`. */
export function streamedArtifactText(payloads: Payload[]): string {
  const texts = new Map<string, string>();
  for (const payload of payloads) {
    if (payload.$case !== 'artifactUpdate' || !payload.value.artifact) continue;
    const { artifactId, parts } = payload.value.artifact;
    texts.set(artifactId, (payload.value.append ? (texts.get(artifactId) ?? '') : '') + partsText(parts));
  }
  return texts.values().next().value ?? '';
}

/** Pulls a stream one payload at a time, noting when each arrived (ms since the reader was made). */
export class StreamReader {
  private readonly iterator: AsyncIterator<StreamResponse>;
  private readonly startedAt = performance.now();
  readonly arrivals: number[] = [];
  /** When the stream closed, once it has. */
  closedAt?: number;

  constructor(stream: AsyncIterable<StreamResponse>) {
    this.iterator = stream[Symbol.asyncIterator]();
  }

  /** The next payload, or undefined once the stream has closed. */
  async next(): Promise<Payload | undefined> {
    for (;;) {
      const result = await this.iterator.next();
      if (result.done) {
        this.closedAt ??= performance.now() - this.startedAt;
        return undefined;
      }
      if (!result.value.payload) continue;
      this.arrivals.push(performance.now() - this.startedAt);
      return result.value.payload;
    }
  }

  /** The next payload, which must be there. */
  async expectNext(): Promise<Payload> {
    const payload = await this.next();
    if (!payload) throw new Error('the stream closed early');
    return payload;
  }

  /** Every remaining payload, until the stream closes. */
  async rest(): Promise<Payload[]> {
    const payloads: Payload[] = [];
    for (let payload = await this.next(); payload; payload = await this.next()) payloads.push(payload);
    return payloads;
  }

  /** Stop reading (cancels the request when the stream is still open). */
  async close(): Promise<void> {
    await this.iterator.return?.();
  }
}

/** Every payload of a stream, in order. */
export const collect = (stream: AsyncIterable<StreamResponse>): Promise<Payload[]> => new StreamReader(stream).rest();

/**
 * A slow turn streamed, subscribed to, then canceled: what the canceling caller got, and the outline of
 * what the subscription and the turn's own stream saw after that, so a test asserts each ends canceled.
 */
export async function cancelWhileSubscribed(client: Client, slowText: string): Promise<{ canceled: Task; subscribed: string[]; streamed: string[] }> {
  const stream = new StreamReader(client.sendMessageStream(sendRequest(slowText)));
  try {
    const { taskId } = payloadRef(await stream.expectNext());
    const subscription = new StreamReader(client.resubscribeTask({ tenant: '', id: taskId }));
    try {
      const first = await subscription.expectNext();
      if (first.$case !== 'task') throw new Error(`the subscription began with ${first.$case}, not the task`);
      const canceled = await client.cancelTask({ tenant: '', id: taskId, metadata: undefined });
      const subscribed = (await subscription.rest()).map(outline);
      return { canceled, subscribed, streamed: (await stream.rest()).map(outline) };
    } finally {
      await subscription.close();
    }
  } finally {
    await stream.close();
  }
}

// ---------------------------------------------------------------------------------------------------
// Errors

/** An A2A error as the SDK client reports it: the ErrorInfo reason, and the JSON-RPC code or HTTP status. */
export interface WireError {
  reason?: string;
  code?: number;
  message: string;
}

export function wireError(error: unknown): WireError {
  if (isJsonRpcError(error)) return { reason: error.reason, code: error.envelopeCode, message: error.message };
  if (isRestError(error)) return { reason: error.reason, code: error.statusCode, message: error.message };
  return { message: error instanceof Error ? error.message : String(error) };
}

/** The error a call (or the first step of a stream) fails with; throws when it succeeds. */
export async function rejectionOf(call: Promise<unknown> | AsyncIterable<unknown>): Promise<WireError> {
  try {
    if (Symbol.asyncIterator in call) {
      const iterator = call[Symbol.asyncIterator]();
      await iterator.next();
      await iterator.return?.();
    } else {
      await call;
    }
  } catch (error) {
    return wireError(error);
  }
  throw new Error('expected the call to fail, but it succeeded');
}

/** How an A2A error code appears on a binding: itself on JSON-RPC, its HTTP status on HTTP+JSON. */
export function wireCode(transport: TransportName, code: number): number {
  return transport === 'JSONRPC' ? code : codeInfo(code).httpStatus;
}
