/**
 * HTTP+JSON SSE over a real socket (@hono/node-server + undici): bare StreamResponses flushed one by
 * one, a mid-stream failure as the REST error payload, and a client that goes away aborts the upstream call.
 */
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A2AError } from '../../../src/model/index.js';
import { StubPort, V1, buildApp, statusUpdate, task, userMessage } from '../support.js';
import { SseReader, controlledStream, listen, pooledClient } from './streaming-support.js';

const dispatcher = pooledClient();

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
