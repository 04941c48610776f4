import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ListTasksResponse, StreamResponse, Task } from '../../src/model/index.js';
import { demoReply, startDemoAgent, type RunningDemoAgent } from '../../src/demo-agent/index.js';
import { collect, describeEvent, openStream, rpc, rpcResult, sendMessage, type SseFrame } from './helpers.js';
import { userMessage } from '../support/v1-message.js';

let agent: RunningDemoAgent;

beforeAll(async () => {
  agent = await startDemoAgent({ chunkDelayMs: 0, slowChunkDelayMs: 20, contextLockTimeoutMs: 100 });
});
afterAll(async () => {
  await agent.close();
});

/** Start a slow streamed turn and wait for its first text chunk, so it is known to be running. */
async function startSlowTurn(message: Record<string, unknown>): Promise<{ task: Task; rest: AsyncGenerator<SseFrame> }> {
  const { frames } = await openStream(agent.url, 'SendStreamingMessage', { message });
  let task: Task | undefined;
  // next() rather than for-await: breaking out of for-await would close the generator.
  for (let next = await frames.next(); !next.done; next = await frames.next()) {
    const event = next.value.data.result as StreamResponse;
    if ('task' in event) task = event.task;
    if ('statusUpdate' in event && event.statusUpdate.status.message) break;
  }
  if (!task) throw new Error('no task frame');
  return { task, rest: frames };
}

describe('busy context', () => {
  it('fails a second task on a running context with "Task is already working." and the first turn completes', async () => {
    const contextId = 'busy-ctx-1';
    const { task: first, rest } = await startSlowTurn(userMessage('slow: first', { contextId }));

    const second = await sendMessage(agent.url, userMessage('second', { contextId }));
    expect(second.id).not.toBe(first.id);
    expect(second.status).toMatchObject({
      state: 'TASK_STATE_FAILED',
      message: { messageId: `${second.id}-4`, role: 'ROLE_AGENT', parts: [{ text: 'Task is already working.' }] },
    });

    const remaining = await collect(rest);
    expect(describeEvent(remaining.at(-1) as StreamResponse)).toBe('status:TASK_STATE_INPUT_REQUIRED+ts');
    const done = await rpcResult<Task>(agent.url, 'GetTask', { id: first.id });
    expect(done.history?.at(-1)?.parts[0]?.text).toBe(demoReply('slow: first', 1).full);

    // The failed attempt did not use up a turn.
    const next = await sendMessage(agent.url, userMessage('next', { contextId }));
    expect(next.history?.at(-1)?.parts[0]?.text).toBe(demoReply('next', 2).full);
  });

  it('refuses a message to the same task while its turn runs, without corrupting it', async () => {
    const { task, rest } = await startSlowTurn(userMessage('slow: same task'));
    const reply = await rpc(agent.url, 'SendMessage', { message: userMessage('again', { taskId: task.id }) });
    expect(reply.error?.code).toBe(-32602);
    const remaining = await collect(rest);
    expect(describeEvent(remaining.at(-1) as StreamResponse)).toBe('status:TASK_STATE_INPUT_REQUIRED+ts');
  });
});

describe('CancelTask', () => {
  it('stops a running turn, ends its stream with CANCELED and returns the task', async () => {
    const { task, rest } = await startSlowTurn(userMessage('slow: cancel me'));
    const canceled = await rpcResult<Task>(agent.url, 'CancelTask', { id: task.id });
    expect(canceled.status).toMatchObject({
      state: 'TASK_STATE_CANCELED',
      message: { messageId: `${task.id}-5`, parts: [{ text: 'Task canceled.' }] },
      timestamp: expect.any(String),
    });

    const remaining = await collect(rest);
    const last = remaining.at(-1) as StreamResponse;
    expect(describeEvent(last)).toBe('status:TASK_STATE_CANCELED+msg+ts');
    expect(remaining.filter((e) => 'artifactUpdate' in e)).toHaveLength(0);

    const again = await rpc(agent.url, 'CancelTask', { id: task.id });
    expect(again.error).toMatchObject({ code: -32002, message: 'Task cannot be canceled' });
    const stored = await rpcResult<Task>(agent.url, 'GetTask', { id: task.id });
    expect(stored.status.state).toBe('TASK_STATE_CANCELED');
  });

  it('refuses to cancel a task whose turn ended', async () => {
    const task = await sendMessage(agent.url, userMessage('quick'));
    expect((await rpc(agent.url, 'CancelTask', { id: task.id })).error?.code).toBe(-32002);
  });
});

describe('SubscribeToTask', () => {
  it('streams the current task, then the live events of the running turn', async () => {
    const { task, rest } = await startSlowTurn(userMessage('slow: watch me'));
    const { frames } = await openStream(agent.url, 'SubscribeToTask', { id: task.id });
    const events = await collect(frames);
    const first = events[0] as { task: Task };
    expect(first.task).toMatchObject({ id: task.id, status: { state: 'TASK_STATE_WORKING' } });
    expect(describeEvent(events.at(-1) as StreamResponse)).toBe('status:TASK_STATE_INPUT_REQUIRED+ts');
    expect(events.some((e) => 'artifactUpdate' in e)).toBe(true);
    await collect(rest);
  });

  it('answers plain JSON -32001 for an inactive or unknown task', async () => {
    const task = await sendMessage(agent.url, userMessage('done already'));
    const { response, frames } = await openStream(agent.url, 'SubscribeToTask', { id: task.id });
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await response.json()).toMatchObject({ error: { code: -32001, message: `Task ${task.id} is not active` } });
    await frames.return(undefined);
    expect((await rpc(agent.url, 'SubscribeToTask', { id: 'ghost' })).error).toMatchObject({ code: -32001, message: 'Task ghost not found' });
  });
});

describe('ListTasks', () => {
  it('filters by context, orders newest first and pages with base64 task-id tokens', async () => {
    const contextId = 'list-ctx';
    const ids: string[] = [];
    for (const text of ['a', 'b', 'c', 'd', 'e']) ids.push((await sendMessage(agent.url, userMessage(text, { contextId }))).id);

    const seen: string[] = [];
    let pageToken: string | undefined;
    let pages = 0;
    do {
      const page: ListTasksResponse = await rpcResult(agent.url, 'ListTasks', { contextId, pageSize: 2, ...(pageToken ? { pageToken } : {}) });
      expect(page.pageSize).toBe(2);
      expect(page.totalSize).toBe(5);
      for (const task of page.tasks) expect(task.artifacts).toBeUndefined();
      seen.push(...page.tasks.map((t) => t.id));
      if (page.nextPageToken) {
        expect(Buffer.from(page.nextPageToken, 'base64').toString()).toBe(ids[ids.length - 1 - seen.length]);
      }
      pageToken = page.nextPageToken;
      pages += 1;
    } while (pageToken);
    expect(pages).toBe(3);
    expect(seen).toEqual([...ids].reverse());

    const withArtifacts: ListTasksResponse = await rpcResult(agent.url, 'ListTasks', { contextId, includeArtifacts: true, historyLength: 0 });
    expect(withArtifacts.tasks[0]?.artifacts).toHaveLength(1);
    expect(withArtifacts.tasks[0]?.history).toBeUndefined();
    expect(withArtifacts.nextPageToken).toBe('');

    const failedOnly: ListTasksResponse = await rpcResult(agent.url, 'ListTasks', { contextId, status: 'TASK_STATE_FAILED' });
    expect(failedOnly).toMatchObject({ tasks: [], totalSize: 0, nextPageToken: '' });
  });

  it('rejects bad page tokens and sizes with -32602', async () => {
    expect((await rpc(agent.url, 'ListTasks', { pageToken: '%%%' })).error?.message).toBe('Token is not a valid base64-encoded cursor.');
    const unknown = Buffer.from('missing-id').toString('base64');
    expect((await rpc(agent.url, 'ListTasks', { pageToken: unknown })).error?.message).toBe(`Invalid page token: ${unknown}`);
    expect((await rpc(agent.url, 'ListTasks', { pageSize: 0 })).error?.code).toBe(-32602);
    expect((await rpc(agent.url, 'ListTasks', { pageSize: 101 })).error?.code).toBe(-32602);
  });
});

describe('bounded state', () => {
  it('evicts the oldest finished tasks beyond maxTasks', async () => {
    const small = await startDemoAgent({ chunkDelayMs: 0, maxTasks: 3 });
    try {
      const ids: string[] = [];
      for (let i = 0; i < 5; i += 1) ids.push((await sendMessage(small.url, userMessage(`t${i}`))).id);
      const list: ListTasksResponse = await rpcResult(small.url, 'ListTasks', {});
      expect(list.totalSize).toBe(3);
      expect((await rpc(small.url, 'GetTask', { id: ids[0] })).error?.code).toBe(-32001);
      expect((await rpcResult<Task>(small.url, 'GetTask', { id: ids[4] })).id).toBe(ids[4]);
    } finally {
      await small.close();
    }
  });

  it('close() ends an open stream', async () => {
    const other = await startDemoAgent({ slowChunkDelayMs: 50 });
    const { frames } = await openStream(other.url, 'SendStreamingMessage', { message: userMessage('slow: never finishes') });
    const first = await frames.next();
    expect(first.done).toBe(false);
    await other.close();
    const rest: SseFrame[] = [];
    try {
      for await (const frame of frames) rest.push(frame);
    } catch {
      // A cut connection is an acceptable end too; the point is that it ends.
    }
    expect(rest.every((f) => !('artifactUpdate' in (f.data.result ?? {})))).toBe(true);
  });
});

describe('stream transport', () => {
  it('keeps the turn running when the streaming client goes away', async () => {
    const controller = new AbortController();
    const { frames } = await openStream(agent.url, 'SendStreamingMessage', { message: userMessage('slow: abandoned') }, controller.signal);
    const first = (await frames.next()).value as SseFrame;
    const task = (first.data.result as { task: Task }).task;
    controller.abort();
    await frames.return(undefined).catch(() => undefined);
    let state = task.status.state;
    for (let i = 0; i < 200 && state !== 'TASK_STATE_INPUT_REQUIRED'; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      state = (await rpcResult<Task>(agent.url, 'GetTask', { id: task.id })).status.state;
    }
    expect(state).toBe('TASK_STATE_INPUT_REQUIRED');
  });

  it('frames events with CRLF and sends sse-starlette style keep-alive comments', async () => {
    const pinging = await startDemoAgent({ slowChunkDelayMs: 30, pingIntervalMs: 10 });
    try {
      const response = await fetch(`${pinging.url}/`, {
        method: 'POST',
        headers: { 'A2A-Version': '1.0' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'SendStreamingMessage', params: { message: userMessage('slow: ping') } }),
      });
      const raw = await response.text();
      expect(raw).toMatch(/^data: \{"result":\{"task":/);
      expect(raw).toMatch(/: ping - \d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{6}\+00:00\r\n\r\n/);
      const dataFrames = raw.split('\r\n\r\n').filter((block) => block.startsWith('data: '));
      for (const block of dataFrames) expect(block).toMatch(/^data: \{"result":\{.*\},"id":7,"jsonrpc":"2\.0"\}$/);
      expect(raw.endsWith('\r\n\r\n')).toBe(true);
    } finally {
      await pinging.close();
    }
  });
});
