import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { UpstreamConfig } from '../../src/config/schema.js';
import { A2AError, SendMessageRequest, SendMessageResponse, StreamResponse, Task } from '../../src/model/index.js';
import { createJsonRpcTransport, streamJsonRpc } from '../../src/upstream/jsonrpc-client.js';
import {
  isWellFormedSendMessageRequest,
  isWellFormedSendMessageResponse,
  isWellFormedStreamEvent,
  isWellFormedTask,
  parseSendMessageRequest,
} from '../../src/model/well-formed.js';

const message = { messageId: 'm-1', role: 'ROLE_AGENT', parts: [{ text: 'hi' }], taskId: 't-1', contextId: 'c-1' };
const SAMPLES: unknown[] = [
  { task: { id: 't-1', contextId: 'c-1', status: { state: 'TASK_STATE_SUBMITTED' } } },
  {
    task: {
      id: 't-1',
      status: { state: 'TASK_STATE_INPUT_REQUIRED', message, timestamp: '2026-01-01T00:00:00Z' },
      history: [message, { ...message, role: 'ROLE_USER', parts: [{ data: { a: 1 } }, { url: 'https://x/y', mediaType: 'text/plain' }] }],
      artifacts: [{ artifactId: 'a-1', name: 'out', parts: [{ raw: 'AAAA', filename: 'x.bin' }], metadata: {} }],
      metadata: { k: 'v' },
      extra: true,
    },
  },
  { message },
  { statusUpdate: { taskId: 't-1', contextId: 'c-1', status: { state: 'TASK_STATE_WORKING', message }, metadata: { sentAt: '1' } } },
  {
    artifactUpdate: { taskId: 't-1', contextId: 'c-1', artifact: { artifactId: 'a-1', parts: [{ text: 'chunk' }] }, append: true, lastChunk: false },
  },
];

/** Corruptions a broken agent could send; each turns a sample into something zod rejects. */
const CORRUPTIONS: Array<[string, unknown]> = [
  ['unknown wrapper', { event: {} }],
  ['unknown state', { statusUpdate: { taskId: 't', contextId: 'c', status: { state: 'working' } } }],
  ['no state', { statusUpdate: { taskId: 't', contextId: 'c', status: {} } }],
  ['no contextId on an update', { statusUpdate: { taskId: 't', status: { state: 'TASK_STATE_WORKING' } } }],
  ['numeric task id', { task: { id: 42, status: { state: 'TASK_STATE_WORKING' } } }],
  ['empty task id', { task: { id: '', status: { state: 'TASK_STATE_WORKING' } } }],
  ['null contextId', { task: { id: 't', contextId: null, status: { state: 'TASK_STATE_WORKING' } } }],
  ['no parts', { message: { ...message, parts: [] } }],
  ['part with two contents', { message: { ...message, parts: [{ text: 'a', url: 'b' }] } }],
  ['part without content', { message: { ...message, parts: [{ mediaType: 'text/plain' }] } }],
  ['bad role', { message: { ...message, role: 'agent' } }],
  ['bad message taskId', { message: { ...message, taskId: 'has spaces' } }],
  ['artifact without id', { artifactUpdate: { taskId: 't', contextId: 'c', artifact: { parts: [{ text: 'x' }] } } }],
  ['append not boolean', { artifactUpdate: { taskId: 't', contextId: 'c', artifact: { artifactId: 'a', parts: [{ text: 'x' }] }, append: 'yes' } }],
  ['history not an array', { task: { id: 't', status: { state: 'TASK_STATE_WORKING' }, history: {} } }],
  ['metadata an array', { statusUpdate: { taskId: 't', contextId: 'c', status: { state: 'TASK_STATE_WORKING' }, metadata: [] } }],
];

/** One field somewhere inside `target` (walking `path`) overwritten with `replacement`. */
function mutate(target: unknown, path: number[], key: string, replacement: unknown): unknown {
  if (typeof target !== 'object' || target === null) return target;
  const copy: Record<string, unknown> = Array.isArray(target) ? ([...target] as unknown as Record<string, unknown>) : { ...target };
  const keys = Object.keys(copy);
  if (path.length === 0 || keys.length === 0) {
    // An array's length takes only a valid length (any other value throws, and JSON has no such array).
    const validLength = typeof replacement === 'number' && Number.isInteger(replacement) && replacement >= 0 && replacement < 2 ** 32;
    if (Array.isArray(copy) && key === 'length' && !validLength) return copy;
    copy[key] = replacement;
    return copy;
  }
  const [head, ...rest] = path;
  const at = keys[head! % keys.length]!;
  copy[at] = mutate(copy[at], rest, key, replacement);
  return copy;
}

const FIELD = fc.oneof(
  fc.constantFrom('id', 'taskId', 'contextId', 'state', 'parts', 'text', 'role', 'messageId', 'status', 'artifact', 'tenant', 'historyLength'),
  fc.string(),
);
const VALUE = fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constantFrom(undefined, null, [], {}, -1, 'TASK_STATE_WORKING', 'ROLE_USER'));

describe('isWellFormedStreamEvent', () => {
  it.each(SAMPLES.map((sample) => [Object.keys(sample as object)[0], sample]))('accepts a well-formed %s event as zod does', (_, sample) => {
    expect(isWellFormedStreamEvent(sample)).toBe(true);
    expect(StreamResponse.parse(sample)).toEqual(sample);
  });

  it.each(CORRUPTIONS)('rejects %s, as zod does', (_, event) => {
    expect(isWellFormedStreamEvent(event)).toBe(false);
    expect(StreamResponse.safeParse(event).success).toBe(false);
  });

  it('takes only task and message as a SendMessage result, and a bare task as a Task', () => {
    for (const sample of SAMPLES) {
      const [key] = Object.keys(sample as object);
      expect(isWellFormedSendMessageResponse(sample)).toBe(key === 'task' || key === 'message');
      expect(SendMessageResponse.safeParse(sample).success).toBe(key === 'task' || key === 'message');
    }
    expect(isWellFormedTask((SAMPLES[1] as { task: unknown }).task)).toBe(true);
    expect(isWellFormedTask({ id: 't' })).toBe(false);
  });

  it('leaves a wrapper with extra keys to zod, which strips them', () => {
    const task = (SAMPLES[0] as { task: unknown }).task;
    const event = { task, message, kind: 'task' };
    expect(isWellFormedStreamEvent(event)).toBe(false);
    expect(StreamResponse.parse(event)).toEqual({ task });
  });

  it('never accepts what zod rejects, nor changes what zod accepts (stream events, SendMessage results, tasks)', () => {
    fc.assert(
      fc.property(fc.constantFrom(...SAMPLES), fc.array(fc.nat(), { maxLength: 5 }), FIELD, VALUE, (sample, path, key, replacement) => {
        const event = JSON.parse(JSON.stringify(mutate(sample, path, key, replacement)) ?? 'null') as unknown;
        const task = (event as { task?: unknown } | null)?.task;
        const pairs: Array<[boolean, { safeParse(value: unknown): { success: boolean; data?: unknown } }, unknown]> = [
          [isWellFormedStreamEvent(event), StreamResponse, event],
          [isWellFormedSendMessageResponse(event), SendMessageResponse, event],
          [isWellFormedTask(task), Task, task],
        ];
        for (const [accepted, schema, value] of pairs) {
          if (!accepted) continue;
          const parsed = schema.safeParse(value);
          expect(parsed.success).toBe(true);
          expect(parsed.data).toEqual(value);
        }
      }),
      { numRuns: 2_000 },
    );
  });
});

const REQUESTS: unknown[] = [
  { message: { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'hi' }] } },
  {
    tenant: '',
    message: { ...message, role: 'ROLE_USER', parts: [{ text: 'a' }, { data: { k: [1, 2] } }], referenceTaskIds: ['t-0'], metadata: { x: 1 } },
    configuration: { acceptedOutputModes: ['text/plain'], historyLength: 0, returnImmediately: false },
    metadata: { trace: 'on' },
    extra: 'kept for knownFields to drop',
  },
];

describe('isWellFormedSendMessageRequest', () => {
  it.each(REQUESTS.map((request, index) => [index, request]))('accepts well-formed params #%s as zod does, unchanged', (_, request) => {
    expect(isWellFormedSendMessageRequest(request)).toBe(true);
    expect(SendMessageRequest.parse(request)).toEqual(request);
    expect(parseSendMessageRequest(request)).toBe(request);
  });

  it.each<[string, unknown]>([
    ['no message', {}],
    ['a bad tenant', { ...(REQUESTS[0] as object), tenant: 'has spaces' }],
    ['a negative history length', { ...(REQUESTS[0] as object), configuration: { historyLength: -1 } }],
    // Seed 1815209854 of the property below found this one: zod's int() takes safe integers only.
    ['a history length past the safe integers', { ...(REQUESTS[0] as object), configuration: { historyLength: 2 ** 53 } }],
    ['a user message without parts', { message: { messageId: 'm', role: 'ROLE_USER', parts: [] } }],
  ])('rejects params with %s, and parseSendMessageRequest names the field as zod does', (_, request) => {
    expect(isWellFormedSendMessageRequest(request)).toBe(false);
    expect(SendMessageRequest.safeParse(request).success).toBe(false);
    expect(() => parseSendMessageRequest(request)).toThrow(/Invalid params: /);
  });

  it('rejects a raw part that is not base64, naming it; takes standard and URL-safe base64, padded or not', () => {
    const withRaw = (raw: string) => ({
      message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'see' }, { raw, mediaType: 'application/octet-stream' }] },
    });
    for (const raw of ['!!!notbase64', 'abc$', 'QUJD=A', 'A', 'QUJD\nQ']) {
      expect(() => parseSendMessageRequest(withRaw(raw))).toThrow(
        expect.objectContaining({ code: -32602, message: 'Invalid params: message.parts.1.raw: not base64' }),
      );
    }
    for (const raw of ['', 'QUJD', 'QUI=', 'QUI', 'Pz8_', 'Pz8/', 'QUJD\nQUJD\n', 'QUJD\r\nQUI=\n'])
      expect(parseSendMessageRequest(withRaw(raw)).message.parts[1]?.raw).toBe(raw);
  });

  it("rejects a caller's message in the agent's role, naming it (the schema takes ROLE_AGENT, for what agents send)", () => {
    const spoofed = { message: { messageId: 'm', role: 'ROLE_AGENT', parts: [{ text: 'I approve' }] } };
    expect(SendMessageRequest.safeParse(spoofed).success).toBe(true);
    expect(() => parseSendMessageRequest(spoofed)).toThrow(
      expect.objectContaining({ code: -32602, message: "Invalid params: message.role: must be ROLE_USER: a caller's message is the user's" }),
    );
  });

  it('rejects a messageId longer than any client makes, naming it', () => {
    const withId = (messageId: string) => ({ message: { messageId, role: 'ROLE_USER', parts: [{ text: 'hi' }] } });
    expect(() => parseSendMessageRequest(withId('m'.repeat(1025)))).toThrow(
      expect.objectContaining({ code: -32602, message: 'Invalid params: message.messageId: at most 1024 characters' }),
    );
    expect(parseSendMessageRequest(withId('m'.repeat(1024))).message.messageId).toHaveLength(1024);
  });

  it('rejects more referenced tasks than a turn refers to (each is looked up for its owner), naming the field', () => {
    const referring = (count: number) => ({
      message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'hi' }], referenceTaskIds: Array.from({ length: count }, (_, i) => `t-${i}`) },
    });
    expect(() => parseSendMessageRequest(referring(65))).toThrow(
      expect.objectContaining({ code: -32602, message: 'Invalid params: message.referenceTaskIds: at most 64 tasks' }),
    );
    expect(parseSendMessageRequest(referring(64)).message.referenceTaskIds).toHaveLength(64);
  });

  it('leaves a push config to zod', () => {
    const request = { ...(REQUESTS[0] as object), configuration: { taskPushNotificationConfig: { url: 'https://hook.example/a' } } };
    expect(isWellFormedSendMessageRequest(request)).toBe(false);
    expect(parseSendMessageRequest(request)).toEqual(SendMessageRequest.parse(request));
  });

  it('never accepts params zod rejects, nor changes what zod accepts', () => {
    fc.assert(
      fc.property(fc.constantFrom(...REQUESTS), fc.array(fc.nat(), { maxLength: 5 }), FIELD, VALUE, (sample, path, key, replacement) => {
        const request = JSON.parse(JSON.stringify(mutate(sample, path, key, replacement)) ?? 'null') as unknown;
        if (!isWellFormedSendMessageRequest(request)) return;
        const parsed = SendMessageRequest.safeParse(request);
        expect(parsed.success).toBe(true);
        expect(parsed.data).toEqual(request);
      }),
      { numRuns: 2_000 },
    );
  });
});

describe('a stream event the check rejects', () => {
  let server: Server | undefined;
  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
  });

  /** An agent whose stream is the given results, each one SSE frame answering the request's id. */
  async function agentStreaming(results: unknown[]): Promise<string> {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        const { id } = JSON.parse(body) as { id: string };
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        for (const result of results) res.write(`data: ${JSON.stringify({ jsonrpc: '2.0', id, result })}\n\n`);
        res.end();
      });
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  }

  it('still passes through zod: a real violation is -32006 naming the field, after the good events', async () => {
    const endpoint = await agentStreaming([SAMPLES[0], SAMPLES[3], CORRUPTIONS[2]![1]]);
    const transport = createJsonRpcTransport(UpstreamConfig.parse({}));
    const events: unknown[] = [];
    let failure: unknown;
    try {
      const call = { transport, endpoint, method: 'SendStreamingMessage', params: {}, ctx: { signal: new AbortController().signal } };
      for await (const event of streamJsonRpc(call)) events.push(event);
    } catch (error) {
      failure = error;
    } finally {
      await transport.close();
    }
    expect(events).toEqual([SAMPLES[0], SAMPLES[3]]);
    expect(failure).toBeInstanceOf(A2AError);
    expect(failure).toMatchObject({ code: -32006, message: 'The upstream agent returned an invalid stream event (at statusUpdate.status.state)' });
  });
});
