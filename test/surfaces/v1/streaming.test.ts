/**
 * SSE over a real socket (@hono/node-server + undici): frames are flushed as they are produced, pings
 * keep idle streams alive, a client that goes away aborts the upstream call, and errors before and
 * after the first event take their protocol's shape.
 */
import { serve } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallContext } from '../../../src/core/agent-port.js';
import { A2AError, type StreamResponse } from '../../../src/model/index.js';
import { StubPort, V1, buildApp, statusUpdate, task, userMessage } from '../support.js';

/** A promise the test resolves by hand. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

/** Resolves when ctx.signal aborts, rejecting so the awaiting generator unwinds like a real upstream call would. */
const abortedBy = (signal: AbortSignal) =>
  new Promise<never>((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });

/** A stream source the test steers: it yields the first event, waits for `release`, then yields the rest. */
function controlledStream(rest: StreamResponse[] = [statusUpdate('TASK_STATE_INPUT_REQUIRED', 'second')], fail?: A2AError) {
  const release = gate();
  const finished = gate();
  const state = { ctx: undefined as CallContext | undefined, released: false, finallyRan: false };
  async function* source(ctx: CallContext): AsyncGenerator<StreamResponse> {
    state.ctx = ctx;
    try {
      yield { task: task('task-1', { status: { state: 'TASK_STATE_SUBMITTED' } }) };
      await Promise.race([release.opened, abortedBy(ctx.signal)]);
      state.released = true;
      if (fail) throw fail;
      for (const event of rest) yield event;
    } finally {
      state.finallyRan = true;
      finished.open();
    }
  }
  return { source, release: release.open, finished: finished.opened, state };
}

/** Reads an SSE body block by block (blocks end with a blank line). */
class SseReader {
  private buffer = '';
  private readonly chunks: AsyncIterator<Buffer>;
  constructor(body: AsyncIterable<Buffer>) {
    this.chunks = body[Symbol.asyncIterator]();
  }
  async next(): Promise<string | undefined> {
    for (;;) {
      const end = this.buffer.indexOf('\n\n');
      if (end >= 0) {
        const block = this.buffer.slice(0, end);
        this.buffer = this.buffer.slice(end + 2);
        return block;
      }
      const { done, value } = await this.chunks.next();
      if (done) return undefined;
      this.buffer += value.toString('utf8');
    }
  }
  async nextData(): Promise<string | undefined> {
    for (;;) {
      const block = await this.next();
      if (block === undefined || !block.startsWith(':')) return block;
    }
  }
}

const dispatcher = new Agent({ connections: 8 });
afterAll(() => dispatcher.close());

async function listen(app: ReturnType<typeof buildApp>['app']) {
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, () => resolve(s));
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        if ('closeAllConnections' in server) server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

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

describe('REST streams over HTTP', () => {
  let stream: ReturnType<typeof controlledStream>;
  const port = new StubPort({ subscribeToTask: (_r, ctx) => stream.source(ctx), sendStreamingMessage: (_r, ctx) => stream.source(ctx) });
  let server: Awaited<ReturnType<typeof listen>>;
  beforeAll(async () => {
    server = await listen(buildApp({ port, config: { 'keepalive-ms': 0 } }).app);
  });
  afterAll(() => server.close());

  it('streams bare StreamResponses, flushed one by one', async () => {
    stream = controlledStream();
    const response = await request(`${server.url}/t1/message:stream`, {
      method: 'POST',
      dispatcher,
      headers: { ...V1, 'content-type': 'application/a2a+json' },
      body: JSON.stringify({ message: userMessage() }),
    });
    const reader = new SseReader(response.body);
    expect(await reader.nextData()).toBe(`data: ${JSON.stringify({ task: task('task-1', { status: { state: 'TASK_STATE_SUBMITTED' } }) })}`);
    expect(stream.state.released).toBe(false);
    stream.release();
    expect(await reader.nextData()).toBe(`data: ${JSON.stringify(statusUpdate('TASK_STATE_INPUT_REQUIRED', 'second'))}`);
    expect(await reader.nextData()).toBeUndefined();
  });

  it('renders a mid-stream failure as `event: error` with the REST error payload', async () => {
    stream = controlledStream([], A2AError.internal());
    const response = await request(`${server.url}/tasks/task-1:subscribe`, { dispatcher, headers: V1 });
    const reader = new SseReader(response.body);
    await reader.nextData();
    stream.release();
    expect(await reader.nextData()).toBe(
      `event: error\ndata: ${JSON.stringify({ error: { code: 500, status: 'INTERNAL', message: 'Internal error', details: [] } })}`,
    );
    expect(await reader.nextData()).toBeUndefined();
  });

  it('aborts the upstream call when the client disconnects', async () => {
    stream = controlledStream();
    const client = new AbortController();
    const response = await request(`${server.url}/tasks/task-1:subscribe`, { method: 'POST', dispatcher, headers: V1, signal: client.signal });
    await new SseReader(response.body).nextData();
    client.abort();
    await stream.finished;
    expect(stream.state.ctx?.signal.aborted).toBe(true);
  });
});

describe('non-streaming calls over HTTP', () => {
  it('abort ctx.signal when the client disconnects (@hono/node-server aborts the request signal)', async () => {
    const entered = gate();
    const aborted = gate();
    const port = new StubPort({
      getTask: async (_r, ctx) => {
        ctx.signal.addEventListener('abort', () => aborted.open(), { once: true });
        entered.open();
        return abortedBy(ctx.signal);
      },
    });
    const server = await listen(buildApp({ port }).app);
    try {
      const client = new AbortController();
      const pending = request(`${server.url}/tasks/slow`, { dispatcher, headers: V1, signal: client.signal }).catch((error: Error) => error);
      await entered.opened;
      client.abort();
      await aborted.opened;
      expect(port.last().ctx.signal.aborted).toBe(true);
      expect(await pending).toBeInstanceOf(Error);
    } finally {
      await server.close();
    }
  });
});
