/**
 * Bad input, fixed examples the generators of bad-input-generators.ts (run by bad-input.test.ts)
 * would rarely reach. Decisions documented here:
 * - JSON nested deeper than 100 levels is -32600 (protobuf's JSON limit; JSON.parse copes with any
 *   depth, but JSON.stringify and every recursive walk after it overflow the stack past a few thousand).
 * - A body over `max-body-bytes` is -32600 "Request payload too large" (HTTP 200 on JSON-RPC, 400 on
 *   REST), refused on its declared length or as soon as a chunked upload passes the limit.
 * - Part sizes are the agent's business: under `max-body-bytes` the gateway forwards a 2 MiB text part,
 *   a >1 MiB data part or a >5 MiB raw part unchanged and relays the agent's answer (iac-code enforces
 *   its own per-part limits and says so in its own error).
 * - A 1.0 request must declare a JSON body (application/json or application/a2a+json): else JSON-RPC
 *   -32005, HTTP+JSON 415. The 0.2.5 facade reads any body that parses, whatever its Content-Type says.
 * - A request without `id` (a JSON-RPC notification) is -32600 with `id: null` before anything runs: A2A
 *   defines no notifications, so it would be a turn nobody reads. `id: null` is a request, and is served.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestGateway } from '../../support/gateway.js';
import { ALL_SECRETS, PROTOTYPE_NAMES, envelope, post as postTo, startHardenedGateway, v025Message, v1Message } from './inputs.js';
import { V025_HEADERS, V1_HEADERS, exchange, expectHealthy, expectRestAnswer, expectRpcEnvelope, type Exchange } from './support.js';

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startHardenedGateway();
});
afterAll(async () => {
  await gateway?.close();
});

const post = (path: string, body: NonNullable<RequestInit['body']>, headers: Record<string, string>): Promise<Exchange> =>
  postTo(gateway.url, path, body, headers);

const DEEP = 10_000;
const deepArrays = `${'['.repeat(DEEP)}${']'.repeat(DEEP)}`;

describe('deep nesting (10,000 levels) is -32600, never a stack overflow', () => {
  const v1Send = (params: string) => `{"jsonrpc":"2.0","id":"deep","method":"SendMessage","params":${params}}`;
  const cases: Array<{ name: string; path: string; headers: Record<string, string>; body: string; id: unknown }> = [
    { name: 'the whole body', path: '/', headers: V1_HEADERS, body: deepArrays, id: null },
    { name: '1.0 params', path: '/', headers: V1_HEADERS, body: v1Send(deepArrays), id: 'deep' },
    {
      name: '1.0 data part',
      path: '/',
      headers: V1_HEADERS,
      body: v1Send(`{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"x"},{"data":${deepArrays}}]}}`),
      id: 'deep',
    },
    {
      name: '1.0 metadata object chain',
      path: '/',
      headers: V1_HEADERS,
      body: v1Send(`{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"x"}],"metadata":${'{"a":'.repeat(DEEP)}1${'}'.repeat(DEEP)}}}`),
      id: 'deep',
    },
    {
      name: '0.2.5 message/stream metadata',
      path: '/stream',
      headers: V025_HEADERS,
      body: `{"jsonrpc":"2.0","id":7,"method":"message/stream","params":{"message":{"kind":"message","role":"user","messageId":"m","parts":[{"kind":"text","text":"x"}],"metadata":{"a":${deepArrays}}}}}`,
      id: 7,
    },
  ];

  it.each(cases)('$name', async ({ path, headers, body, id }) => {
    const answer = await post(path, body, headers);
    expect(answer.status).toBe(200);
    // A 0.2.5 streaming method answers its errors as one SSE frame (docs/conformance.md).
    if (answer.frames) expect(answer.frames).toHaveLength(1);
    const json = answer.frames ? (JSON.parse(answer.frames[0]!.data) as unknown) : answer.json;
    const envelopeBody = expectRpcEnvelope(json, '0.2.5', id);
    expect((envelopeBody.error as { code: number }).code).toBe(-32600);
    expectNoLeakAt(answer);
    await expectHealthy(gateway.url);
  });

  it('a REST body nested 10,000 levels deep is 400 INVALID_ARGUMENT', async () => {
    const answer = await post(
      '/message:send',
      `{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"x"}],"metadata":{"a":${deepArrays}}}}`,
      V1_HEADERS,
    );
    expectRestAnswer(answer);
    expect(answer.status).toBe(400);
    expect((answer.json as { error: { message: string } }).error.message).toMatch(/nested deeper than 100/);
  });

  it('100 levels are still accepted (the limit is not off by one)', async () => {
    // envelope(1) + params(2) + message(3) + metadata(4): 96 more levels make exactly 100.
    const nested = `${'['.repeat(96)}${']'.repeat(96)}`;
    const ok = await post(
      '/',
      v1Send(`{"message":{"messageId":"m-100","role":"ROLE_USER","parts":[{"text":"x"}],"metadata":{"a":${nested}}}}`),
      V1_HEADERS,
    );
    expect((ok.json as { result?: unknown }).result).toBeDefined();
    const tooDeep = await post(
      '/',
      v1Send(`{"message":{"messageId":"m-101","role":"ROLE_USER","parts":[{"text":"x"}],"metadata":{"a":[${nested}]}}}`),
      V1_HEADERS,
    );
    expect((tooDeep.json as { error?: { code: number } }).error?.code).toBe(-32600);
  });
});

/**
 * The one error envelope of an answer: its JSON body, or the one SSE frame a 0.2.5 stream answers errors in (the
 * facade's `/stream`, where Bailian posts message/stream, when the body names no method that could be read).
 */
function envelopeOf(answer: Exchange): unknown {
  if (!answer.frames) return answer.json;
  expect(answer.frames).toHaveLength(1);
  return JSON.parse(answer.frames[0]!.data) as unknown;
}

/** At the facade's `/stream` a body that cannot be read is answered as a stream: the 0.2.5 client refuses JSON there. */
function expectStreamAt(path: string, answer: Exchange): void {
  expect(answer.contentType.startsWith('text/event-stream')).toBe(path === '/stream');
}

function expectNoLeakAt(answer: Exchange): void {
  for (const secret of ALL_SECRETS) expect(answer.text).not.toContain(secret);
  expect(answer.text).not.toMatch(/^\s+at /m);
}

describe('sizes', () => {
  const MAX_BODY = 8 * 1024 * 1024; // the default max-body-bytes

  it('a body over max-body-bytes is refused without reading it all: declared length and chunked', async () => {
    const oversized = `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"pad":"${'x'.repeat(MAX_BODY)}"}}`;
    for (const [path, headers] of [
      ['/', V1_HEADERS],
      ['/', V025_HEADERS],
      ['/stream', V025_HEADERS],
    ] as const) {
      const declared = await post(path, oversized, headers);
      expect(declared.status).toBe(200);
      expectStreamAt(path, declared);
      expect(envelopeOf(declared)).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Request payload too large' } });
    }
    // An upload without a length that would go on for 64 MiB: the answer must not wait for its end.
    const chunk = new TextEncoder().encode('x'.repeat(1024 * 1024));
    const CHUNKS = 64;
    let sent = 0;
    const chunked = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ < CHUNKS) controller.enqueue(chunk);
        else controller.close();
      },
    });
    const answer = await exchange(`${gateway.url}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...V1_HEADERS },
      body: chunked,
      duplex: 'half',
    });
    expect(answer.json).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Request payload too large' } });
    expect(sent).toBeLessThan(CHUNKS);
    const rest = await post('/message:send', oversized, V1_HEADERS);
    expectRestAnswer(rest);
    expect(rest.status).toBe(400);
    await expectHealthy(gateway.url);
  });

  it('a 2 MiB text part is accepted and forwarded whole on both surfaces (decision: no per-part limit below max-body-bytes)', async () => {
    const text = `big:${'y'.repeat(2 * 1024 * 1024)}`;
    const v1 = await post(
      '/',
      JSON.stringify(envelope('SendMessage', { message: { messageId: 'm-big', role: 'ROLE_USER', parts: [{ text }] } })),
      V1_HEADERS,
    );
    const task = (v1.json as { result: { task: { artifacts: Array<{ parts: Array<{ text?: string }> }> } } }).result.task;
    const echoed = task.artifacts
      .flatMap((artifact) => artifact.parts)
      .map((part) => part.text ?? '')
      .join('');
    expect(echoed).toContain(text);

    const v025 = await post(
      '/',
      JSON.stringify(
        envelope('message/send', {
          message: { ...v025Message.message, contextId: undefined, messageId: 'm-big-025', parts: [{ kind: 'text', text }] },
        }),
      ),
      V025_HEADERS,
    );
    const result = (v025.json as { result: { status: { state: string }; artifacts: Array<{ parts: Array<{ text?: string }> }> } }).result;
    expect(result.status.state).toBe('completed');
    expect(
      result.artifacts
        .flatMap((artifact) => artifact.parts)
        .map((part) => part.text ?? '')
        .join(''),
    ).toContain(text);
  });

  it('a >1 MiB data part and a >5 MiB raw part reach the agent unchanged (its limits are its own)', async () => {
    const data = { blob: 'z'.repeat(1024 * 1024 + 10) };
    const raw = Buffer.alloc(5 * 1024 * 1024 + 10, 7).toString('base64');
    for (const part of [
      { data, mediaType: 'application/json' },
      { raw, mediaType: 'image/png', filename: 'x.png' },
    ]) {
      const answer = await post(
        '/',
        JSON.stringify(envelope('SendMessage', { message: { messageId: 'm-part', role: 'ROLE_USER', parts: [{ text: 'see attached' }, part] } })),
        V1_HEADERS,
      );
      expect(answer.status).toBe(200);
      expect((answer.json as { result?: unknown }).result, answer.text.slice(0, 300)).toBeDefined();
    }
    // The 0.2.5 facade's own rule (non-text-parts: error) still applies to Bailian's callers.
    const v025 = await post(
      '/',
      JSON.stringify(envelope('message/send', { message: { ...v025Message.message, parts: [{ kind: 'data', data }] } })),
      V025_HEADERS,
    );
    expect(v025.json).toMatchObject({ id: 'req-1', error: { code: -32005 } });
  });
});

describe('bytes, content types and methods', () => {
  it('invalid UTF-8 is -32700 on every JSON-RPC endpoint and 400 on the REST routes', async () => {
    const bytes = Uint8Array.from([0x7b, 0x22, 0x69, 0x64, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0xc3, 0x28, 0x22, 0x7d]);
    for (const [path, headers] of [
      ['/', V1_HEADERS],
      ['/', V025_HEADERS],
      ['/stream', V025_HEADERS],
    ] as const) {
      const answer = await post(path, bytes, headers);
      expect(answer.status).toBe(200);
      expectStreamAt(path, answer);
      expect(envelopeOf(answer)).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: the body is not valid UTF-8' } });
    }
    const rest = await post('/message:send', bytes, V1_HEADERS);
    expectRestAnswer(rest);
    expect(rest.status).toBe(400);
  });

  it('a 1.0 call with text/plain, form, multipart or no Content-Type is -32005; the facade reads the body anyway', async () => {
    const body = JSON.stringify(envelope('GetTask', { id: 'no-such-task' }));
    const legacy = JSON.stringify(envelope('tasks/get', { id: 'no-such-task' }));
    for (const contentType of [
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=b',
      'application/octet-stream',
      undefined,
    ]) {
      const headers: Record<string, string> = { ...V1_HEADERS };
      if (contentType) headers['content-type'] = contentType;
      const answer = await exchange(`${gateway.url}/`, { method: 'POST', headers, body: new TextEncoder().encode(body) });
      expect(answer.status).toBe(200);
      expect((answer.json as { error: { code: number } }).error.code).toBe(-32005);
      const facadeHeaders: Record<string, string> = { ...V025_HEADERS };
      if (contentType) facadeHeaders['content-type'] = contentType;
      const facade = await exchange(`${gateway.url}/`, { method: 'POST', headers: facadeHeaders, body: new TextEncoder().encode(legacy) });
      expect((facade.json as { error: { code: number } }).error.code).toBe(-32001);
    }
  });

  it.each([...PROTOTYPE_NAMES, 'Foo', 'message/foo', 'tasks/list', 'a/b/c', 'SendMessage/x', ''])(
    'unknown method %j is -32601 (or -32600 when empty) with the id echoed, on both dialects',
    async (method) => {
      for (const [path, headers] of [
        ['/', { ...V1_HEADERS, ...V025_HEADERS }],
        ['/stream', V025_HEADERS],
      ] as const) {
        const answer = await post(path, JSON.stringify({ jsonrpc: '2.0', id: 42, method, params: {} }), headers);
        expect(answer.status).toBe(200);
        const body = expectRpcEnvelope(envelopeOf(answer), '0.2.5', 42);
        expect((body.error as { code: number }).code).toBe(method === '' ? -32600 : -32601);
      }
    },
  );
});

describe('a JSON-RPC notification (no id) is refused before anything runs', () => {
  const refusal = { jsonrpc: '2.0', id: null, error: { code: -32600, message: "Invalid request: 'id' is required (A2A has no notifications)" } };
  const notify = (method: string, params: unknown, headers: Record<string, string>, path = '/') =>
    post(path, JSON.stringify({ jsonrpc: '2.0', method, params }), headers);

  it('1.0 SendMessage: no task is made in its context; with id null the turn runs', async () => {
    const message = { ...v1Message.message, messageId: 'm-notified', contextId: 'ctx-notified' };
    expect((await notify('SendMessage', { message }, V1_HEADERS)).json).toEqual(refusal);
    const listed = async () => {
      const answer = await post('/', JSON.stringify(envelope('ListTasks', { contextId: 'ctx-notified' })), V1_HEADERS);
      return (answer.json as { result: { tasks: unknown[] } }).result.tasks;
    };
    expect(await listed()).toEqual([]);
    const nullId = await post('/', JSON.stringify({ jsonrpc: '2.0', id: null, method: 'SendMessage', params: { message } }), V1_HEADERS);
    expect(nullId.json).toMatchObject({ id: null, result: { task: { contextId: 'ctx-notified' } } });
    expect(await listed()).toHaveLength(1);
  });

  it('0.2.5 message/send and message/stream: the task the caller named is never opened', async () => {
    for (const [method, path] of [
      ['message/send', '/'],
      ['message/stream', '/stream'],
    ] as const) {
      const taskId = `notified-${method.replace('/', '-')}`;
      const params = { message: { ...v025Message.message, contextId: undefined, taskId } };
      expect(envelopeOf(await notify(method, params, V025_HEADERS, path))).toEqual(refusal);
      const read = async () => (await post('/', JSON.stringify(envelope('tasks/get', { id: taskId })), V025_HEADERS)).json as any;
      expect((await read()).error.code).toBe(-32001);
      // The same call as a request opens it: the read above would have found a task run for the notification.
      await post(path, JSON.stringify(envelope(method, params)), V025_HEADERS);
      expect((await read()).result.id).toBe(taskId);
    }
  });
});
