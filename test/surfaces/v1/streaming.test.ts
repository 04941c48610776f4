/**
 * JSON-RPC SSE over a real socket (@hono/node-server + undici): frames are flushed as they are
 * produced, pings keep idle streams alive, a client that goes away aborts the upstream call, and
 * errors before and after the first event take JSON-RPC's shape. REST streams:
 * streaming-rest.test.ts; unary calls: unary-abort.test.ts.
 */
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A2AError } from '../../../src/model/index.js';
import { StubPort, V1, buildApp, statusUpdate, task, userMessage } from '../support.js';
import { SseReader, controlledStream, listen, pooledClient } from './streaming-support.js';

const dispatcher = pooledClient();

const rpcBody = (method: string, params: unknown, id: unknown = 's1') => JSON.stringify({ jsonrpc: '2.0', id, method, params });

describe('JSON-RPC SendStreamingMessage over HTTP', () => {
  let stream: ReturnType<typeof controlledStream>;
  const port = new StubPort({ sendStreamingMessage: (_r, ctx) => stream.source(ctx) });
  let server: Awaited<ReturnType<typeof listen>>;
  beforeAll(async () => {
    server = await listen(buildApp({ port, config: { 'keepalive-ms': 40 } }).app);
  });
  afterAll(() => server.close());

  const open = (signal?: AbortSignal) =>
    request(`${server.url}/`, {
      method: 'POST',
      dispatcher,
      headers: { ...V1, 'content-type': 'application/json' },
      body: rpcBody('SendStreamingMessage', { message: userMessage() }),
      ...(signal ? { signal } : {}),
    });

  it('flushes each frame when it is produced, with SSE headers', async () => {
    stream = controlledStream();
    const response = await open();
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(response.headers['cache-control']).toBe('no-cache');
    expect(response.headers['x-accel-buffering']).toBe('no');
    expect(response.headers['content-length']).toBeUndefined();
    const reader = new SseReader(response.body);

    const first = await reader.nextData();
    // The second event does not exist yet: the first frame reached us on its own.
    expect(stream.state.released).toBe(false);
    expect(first).toBe(
      `data: ${JSON.stringify({ jsonrpc: '2.0', id: 's1', result: { task: task('task-1', { status: { state: 'TASK_STATE_SUBMITTED' } }) } })}`,
    );

    stream.release();
    const second = await reader.nextData();
    expect(JSON.parse((second as string).slice(6))).toEqual({
      jsonrpc: '2.0',
      id: 's1',
      result: statusUpdate('TASK_STATE_INPUT_REQUIRED', 'second'),
    });
    expect(await reader.nextData()).toBeUndefined();
    await stream.finished;
  });

  it('sends `: ping <ISO time>` comments while the stream is idle', async () => {
    stream = controlledStream();
    const response = await open();
    const reader = new SseReader(response.body);
    await reader.nextData();
    let block = await reader.next();
    expect(block).toMatch(/^: ping \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    block = await reader.next();
    expect(block).toMatch(/^: ping /);
    stream.release();
    expect(await reader.nextData()).toContain('TASK_STATE_INPUT_REQUIRED');
    expect(await reader.nextData()).toBeUndefined();
  });

  it('aborts the upstream call when the client disconnects', async () => {
    stream = controlledStream();
    const client = new AbortController();
    const response = await open(client.signal);
    const reader = new SseReader(response.body);
    expect(await reader.nextData()).toContain('TASK_STATE_SUBMITTED');
    client.abort();
    await stream.finished;
    expect(stream.state.finallyRan).toBe(true);
    expect(stream.state.released).toBe(false);
    expect(stream.state.ctx?.signal.aborted).toBe(true);
  });

  it('ends with an `event: error` frame carrying the JSON-RPC error, then closes cleanly', async () => {
    stream = controlledStream([], A2AError.taskNotFound('task-1'));
    const response = await open();
    const reader = new SseReader(response.body);
    await reader.nextData();
    stream.release();
    const block = await reader.nextData();
    const [eventLine, dataLine] = (block as string).split('\n');
    expect(eventLine).toBe('event: error');
    expect(JSON.parse((dataLine as string).slice(6))).toEqual({
      jsonrpc: '2.0',
      id: 's1',
      error: {
        code: -32001,
        message: 'Task task-1 not found',
        data: [
          {
            '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
            reason: 'TASK_NOT_FOUND',
            domain: 'a2a-protocol.org',
            metadata: { taskId: 'task-1' },
          },
        ],
      },
    });
    expect(await reader.nextData()).toBeUndefined();
  });

  it('answers an error before the first event as plain JSON (HTTP 200)', async () => {
    const failing = buildApp({
      port: new StubPort({
        // eslint-disable-next-line require-yield
        sendStreamingMessage: async function* () {
          throw A2AError.invalidParams('Task t is in terminal state: 4');
        },
      }),
    });
    const local = await listen(failing.app);
    try {
      const response = await request(`${local.url}/`, {
        method: 'POST',
        dispatcher,
        headers: V1,
        body: rpcBody('SendStreamingMessage', { message: userMessage() }, 9),
      });
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toBe('application/json');
      expect(await response.body.json()).toEqual({
        jsonrpc: '2.0',
        id: 9,
        error: {
          code: -32602,
          message: 'Task t is in terminal state: 4',
          data: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'INVALID_PARAMS', domain: 'a2a-protocol.org', metadata: {} }],
        },
      });
    } finally {
      await local.close();
    }
  });
});
