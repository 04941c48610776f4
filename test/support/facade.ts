/**
 * Helpers for the 0.2.5 facade tests: the real gateway on 127.0.0.1:0, 0.2.5 JSON-RPC calls over
 * real HTTP (plain fetch, as Bailian's side would do), and an SSE reader that hands out frames as
 * they arrive.
 */
import type { MessageSendParams } from 'a2a-sdk-025';
import { createParser } from 'eventsource-parser';
import { startGateway, type RunningGateway } from '../../src/app.js';
import { defaultConfig } from '../../src/config/schema.js';
import { createLogger } from '../../src/log.js';
import { afterAll, beforeAll } from 'vitest';
import { collect as collectItems } from './collect.js';
import { startFakeIacCode, type FakeIacCode } from './fake-iac-code.js';

export const API_KEY = 'bailian-test-key-0123';

export async function startFacadeGateway(overrides: Record<string, unknown> = {}): Promise<RunningGateway> {
  return startGateway(defaultConfig({ port: 0, host: '127.0.0.1', 'keepalive-ms': 0, ...overrides }), createLogger('silent'));
}

/**
 * A facade gateway that relays a 0.2.5/0.3 agent's answers as they are: under the plain `a2a-0.2.5`
 * profile (under `bailian`, whose callers read one reply artifact of text, the facade builds the reply).
 */
export function startRelayingFacadeGateway(overrides: Record<string, unknown> = {}): Promise<RunningGateway> {
  const bailian = { profile: 'a2a-0.2.5', ...(overrides.bailian as Record<string, unknown> | undefined) };
  return startFacadeGateway({ ...overrides, bailian });
}

/**
 * The fake iac-code behind a facade gateway for one describe block (started before its tests, closed
 * after): `upstream` is laid over the gateway's `upstream` config, which points at the fake.
 */
export function fakeIacCodeBehindGateway(upstream: Record<string, unknown> = {}): { fake: FakeIacCode; gateway: RunningGateway } {
  const running = {} as { fake: FakeIacCode; gateway: RunningGateway };
  beforeAll(async () => {
    running.fake = await startFakeIacCode();
    running.gateway = await startFacadeGateway({ upstream: { url: running.fake.url, ...upstream } });
  });
  afterAll(async () => {
    await running.gateway?.close();
    await running.fake?.close();
  });
  return running;
}

export interface MessageOptions {
  text?: string;
  contextId?: string;
  taskId?: string;
  metadata?: Record<string, unknown>;
  parts?: unknown[];
  messageId?: string;
}

let counter = 0;

/** A 0.2.5 user message exactly as Bailian's contract shows it. */
export function userMessage(options: MessageOptions = {}): Record<string, unknown> {
  return {
    messageId: options.messageId ?? `msg-${++counter}`,
    kind: 'message',
    role: 'user',
    parts: options.parts ?? [{ kind: 'text', text: options.text ?? 'hello' }],
    ...(options.contextId ? { contextId: options.contextId } : {}),
    ...(options.taskId ? { taskId: options.taskId } : {}),
    ...(options.metadata ? { metadata: options.metadata } : {}),
  };
}

export interface RpcAnswer {
  status: number;
  contentType: string;
  text: string;
  body: any;
}

/** A JSON body, or the one frame of an SSE body (how a streaming method answers a failure); else undefined. */
function answerBody(text: string, contentType: string): unknown {
  const datas: string[] = [];
  if (contentType.startsWith('text/event-stream')) createParser({ onEvent: (event) => datas.push(event.data) }).feed(text);
  try {
    return JSON.parse(contentType.startsWith('text/event-stream') ? (datas.length === 1 ? datas[0]! : '') : text);
  } catch {
    return undefined;
  }
}

/** POST a raw body; the answer's status, type and parsed body (JSON, or an SSE answer's only frame). */
export async function postRaw(url: string, body: string, headers: Record<string, string> = {}): Promise<RpcAnswer> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  const text = await response.text();
  const contentType = response.headers.get('content-type') ?? '';
  return { status: response.status, contentType, text, body: answerBody(text, contentType) };
}

export function rpc(
  url: string,
  method: string,
  params: unknown,
  options: { id?: unknown; headers?: Record<string, string> } = {},
): Promise<RpcAnswer> {
  const id = options.id ?? 'request-1';
  return postRaw(url, JSON.stringify({ jsonrpc: '2.0', id, method, params }), options.headers);
}

export interface SseFrame {
  event?: string;
  data: string;
  json: any;
}

export interface OpenStream {
  response: Response;
  /** The next frame, or undefined once the stream has ended. */
  next(): Promise<SseFrame | undefined>;
  /** Every remaining frame. */
  rest(): Promise<SseFrame[]>;
  /** Hang up. */
  abort(): void;
}

/** POST a JSON-RPC request that answers with SSE; frames are read as they arrive. */
export async function openStream(
  url: string,
  method: string,
  params: unknown,
  options: { id?: unknown; headers?: Record<string, string> } = {},
): Promise<OpenStream> {
  const controller = new AbortController();
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...options.headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: options.id ?? 'request-1', method, params }),
    signal: controller.signal,
  });
  const queue: SseFrame[] = [];
  const parser = createParser({
    onEvent: (event) => queue.push({ ...(event.event ? { event: event.event } : {}), data: event.data, json: JSON.parse(event.data) }),
  });
  const reader = response.body?.getReader();
  const decoder = new TextDecoder();
  let ended = false;
  async function next(): Promise<SseFrame | undefined> {
    while (queue.length === 0 && !ended && reader) {
      const chunk = await reader.read().catch(() => ({ done: true as const, value: undefined }));
      if (chunk.done) ended = true;
      else parser.feed(decoder.decode(chunk.value, { stream: true }));
    }
    return queue.shift();
  }
  return {
    response,
    next,
    async rest() {
      const frames: SseFrame[] = [];
      for (let frame = await next(); frame; frame = await next()) frames.push(frame);
      return frames;
    },
    abort: () => controller.abort(),
  };
}

/** The results of 0.2.5 stream frames. */
export const results = (frames: SseFrame[]): any[] => frames.map((frame) => frame.json.result);

/** The text a 0.2.5 client shows for one artifact: its appended chunks joined. */
export function joinedArtifact(events: any[], artifactId: string): string {
  return events
    .filter((event) => event.kind === 'artifact-update' && event.artifact.artifactId === artifactId)
    .flatMap((event) => event.artifact.parts)
    .map((part: any) => (part.kind === 'text' ? part.text : ''))
    .join('');
}

/**
 * What a Bailian user reads of a message/stream turn: the text of every artifact-update, in the
 * order they came (Bailian shows every artifact's text and nothing of the status).
 */
export function streamedText(events: any[]): string {
  return events
    .filter((event) => event.kind === 'artifact-update')
    .flatMap((event) => event.artifact.parts)
    .map((part: any) => (part.kind === 'text' ? part.text : ''))
    .join('');
}

/** What a Bailian user reads of a message/send answer: the text of its artifacts, in order. */
export function sentText(result: any): string {
  return (result.artifacts ?? [])
    .flatMap((artifact: any) => artifact.parts)
    .map((part: any) => (part.kind === 'text' ? part.text : ''))
    .join('');
}

/** What a Bailian user reads of `text` sent with `method` in the conversation `contextId`. */
export async function reading(gatewayUrl: string, method: 'message/stream' | 'message/send', text: string, contextId: string): Promise<string> {
  if (method === 'message/send') {
    const { body } = await rpc(gatewayUrl, 'message/send', { message: userMessage({ text, contextId }) });
    return sentText(body.result);
  }
  const opened = await openStream(`${gatewayUrl}/stream`, 'message/stream', { message: userMessage({ text, contextId }) });
  return streamedText(results(await opened.rest()));
}

/**
 * What a Bailian user reads of a turn sent with `message` in `way`: the error's message when the call is answered
 * with one (a plain 0.2.5 error, or a stream's error frame), else the reply's text.
 */
export async function readsOrRefusal(gatewayUrl: string, way: 'send' | 'stream', message: Record<string, unknown>): Promise<string> {
  if (way === 'send') {
    const { body } = await rpc(gatewayUrl, 'message/send', { message });
    return body.error ? body.error.message : sentText(body.result);
  }
  const frames = await (await openStream(`${gatewayUrl}/stream`, 'message/stream', { message })).rest();
  const error = frames.find((frame) => frame.json.error !== undefined);
  return error ? error.json.error.message : streamedText(results(frames));
}

/** The state of the task the fake iac-code runs in `contextId`, once it has one. */
export function fakeTaskState(fake: FakeIacCode, contextId: string): string | undefined {
  for (const task of fake.tasks.values()) {
    const { contextId: context, status } = task as { contextId?: string; status?: { state?: string } };
    if (context === contextId) return status?.state;
  }
  return undefined;
}

/** How many messages of conversation `contextId` the fake iac-code was sent (streamed or not): tests side by side count their own. */
export function fakeMessagesIn(fake: FakeIacCode, contextId: string): number {
  const inContext = (body: unknown) => (body as { params?: { message?: { contextId?: string } } })?.params?.message?.contextId === contextId;
  return [...fake.rpcRequests('SendStreamingMessage'), ...fake.rpcRequests('SendMessage')].filter((request) => inContext(request.body)).length;
}

/** What a Bailian user reads of one turn, and the state it ended in. */
export interface TurnRead {
  text: string;
  state: string;
}

/**
 * The two ways a Bailian user reads a turn of the facade at `gatewayUrl()` (read when called: the gateway
 * may start after this is made), with `headers` (its API key): message/stream (an error frame fails it) and
 * message/send.
 */
export function facadeTurnReads(
  gatewayUrl: () => string,
  headers: Record<string, string> = {},
): Record<'stream' | 'send', (prompt: string) => Promise<TurnRead>> {
  return {
    async stream(prompt) {
      const opened = await openStream(`${gatewayUrl()}/stream`, 'message/stream', { message: userMessage({ text: prompt }) }, { headers });
      const frames = await opened.rest();
      const failed = frames.filter((frame) => frame.json.error !== undefined);
      if (failed.length > 0) throw new Error(`message/stream answered an error: ${JSON.stringify(failed[0]!.json.error)}`);
      const events = results(frames);
      return { text: streamedText(events), state: events.at(-1)?.status?.state };
    },
    async send(prompt) {
      const answer = await rpc(gatewayUrl(), 'message/send', { message: userMessage({ text: prompt }) }, { headers });
      return { text: sentText(answer.body.result), state: answer.body.result?.status?.state };
    },
  };
}

/** Nothing a caller should ever see: stack frames, local paths, secrets. */
export function expectNoLeak(text: string): void {
  for (const leak of [/Traceback/, /\bat \S+ \(/, /\/home\//, /\/usr\/lib/, /node_modules/, /\/work\//, /sk-live/, /\.ts:\d+/]) {
    if (leak.test(text)) throw new Error(`leaked ${leak}: ${text.slice(0, 300)}`);
  }
}

/** The fetch init of a 0.2.5 message/send or message/stream call with one text, as Bailian posts it (no key). */
export const v025Request = (method: string, text: string): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ jsonrpc: '2.0', id: '1', method, params: { message: userMessage({ text }) } }),
});

/** Params of the official a2a-js 0.2.5 client's sendMessage / sendMessageStream for one text. */
export const sdkParams = (text: string, ids: { contextId?: string; taskId?: string } = {}): MessageSendParams => ({
  message: { kind: 'message', role: 'user', messageId: `m-${Math.random()}`, parts: [{ kind: 'text', text }], ...ids },
});

/** Every event of a client stream, read as plain JSON. */
export const collect: (stream: AsyncIterable<unknown>) => Promise<any[]> = collectItems;
