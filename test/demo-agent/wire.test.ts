import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentCard, StreamResponse, Task } from '../../src/model/index.js';
import { demoReply, startDemoAgent, type RunningDemoAgent } from '../../src/demo-agent/index.js';
import { describeEvent, openStream, rpc, rpcResult, sendMessage, streamTurn, V1 } from './helpers.js';
import { userMessage } from '../support/v1-message.js';

let agent: RunningDemoAgent;

beforeAll(async () => {
  agent = await startDemoAgent({ chunkDelayMs: 0 });
});
afterAll(async () => {
  await agent.close();
});

describe('card and health', () => {
  it('serves a 1.0 card advertising its own JSON-RPC URL, with iac-code cache headers', async () => {
    const response = await fetch(`${agent.url}/.well-known/agent-card.json`);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('public, max-age=60');
    const etag = response.headers.get('etag');
    expect(etag).toMatch(/^"sha256-[0-9a-f]{64}"$/);
    const card = AgentCard.parse(await response.json());
    expect(card.name).toBe('a2a-bridge-demo');
    expect(card.supportedInterfaces[0]).toEqual({ url: `${agent.url}/`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' });
    expect(card.capabilities).toMatchObject({ streaming: true, pushNotifications: false, extendedAgentCard: true });
    expect(card.capabilities.extensions?.map((e) => e.uri)).toContain('urn:iac-code:a2a:artifact-metadata:v1');
    expect(card.defaultInputModes).toEqual(['text/plain', 'application/json']);
    expect(card.defaultOutputModes).toEqual(['text/plain']);
    expect(card.skills.length).toBeGreaterThan(0);
    for (const skill of card.skills) {
      expect(skill.tags.length).toBeGreaterThan(0);
      expect(skill.examples?.length).toBeGreaterThan(0);
    }

    const cached = await fetch(`${agent.url}/.well-known/agent-card.json`, { headers: { 'if-none-match': etag ?? '' } });
    expect(cached.status).toBe(304);
    expect(await cached.text()).toBe('');
  });

  it('answers /health and serves the extended card over JSON-RPC', async () => {
    expect(await (await fetch(`${agent.url}/health`)).json()).toEqual({ status: 'healthy' });
    const extended = AgentCard.parse(await rpcResult(agent.url, 'GetExtendedAgentCard', {}));
    expect(extended.skills.length).toBeGreaterThan(2);
    expect('url' in extended).toBe(false);
  });
});

describe('SendStreamingMessage', () => {
  it('emits exactly the iac-code order of one turn', async () => {
    const { response, frames } = await openStream(agent.url, 'SendStreamingMessage', { message: userMessage('hello demo world') });
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('x-accel-buffering')).toBe('no');
    const events: StreamResponse[] = [];
    for await (const frame of frames) {
      expect(frame.data.jsonrpc).toBe('2.0');
      expect(frame.data.id).toMatch(/^s-/);
      events.push(StreamResponse.parse(frame.data.result));
    }
    const reply = demoReply('hello demo world', 1);
    expect(events.map(describeEvent)).toEqual([
      'task:TASK_STATE_SUBMITTED',
      'status:TASK_STATE_SUBMITTED+ts',
      'status:TASK_STATE_WORKING+ts',
      ...reply.chunks.map(() => 'status:TASK_STATE_WORKING+msg'),
      'status:TASK_STATE_WORKING+usage',
      'artifact',
      'status:TASK_STATE_WORKING+msg+ts+final',
      'status:TASK_STATE_INPUT_REQUIRED+ts',
    ]);

    const first = events[0] as { task: Task };
    const { id: taskId, contextId } = first.task;
    expect(first.task.status.timestamp).toBeUndefined();
    expect(first.task.history).toHaveLength(1);
    expect(first.task.history?.[0]).toMatchObject({ role: 'ROLE_USER', contextId, taskId, parts: [{ text: 'hello demo world' }] });

    const statusUpdates = events.flatMap((e) => ('statusUpdate' in e ? [e.statusUpdate] : []));
    for (const update of statusUpdates) {
      expect(update).toMatchObject({ taskId, contextId });
      expect((update.metadata?.iac_code as Record<string, unknown>).iacCodeSessionId).toEqual(expect.any(String));
    }
    const chunkTexts = statusUpdates.filter((u) => u.status.message && !u.status.timestamp).map((u) => u.status.message);
    expect(chunkTexts.map((m) => m?.parts[0]?.text)).toEqual(reply.chunks);
    for (const m of chunkTexts) expect(m).toMatchObject({ messageId: `${taskId}-message`, role: 'ROLE_AGENT', contextId, taskId });

    const artifact = events.find((e) => 'artifactUpdate' in e) as Extract<StreamResponse, { artifactUpdate: unknown }>;
    expect(artifact.artifactUpdate.lastChunk).toBe(true);
    expect(artifact.artifactUpdate.artifact).toMatchObject({ name: 'reply.txt', parts: [{ text: reply.full, mediaType: 'text/plain' }] });

    const final = statusUpdates.at(-2);
    expect(final?.status.message).toMatchObject({ messageId: `${taskId}-2`, parts: [{ text: reply.full }] });
    expect((final?.metadata?.iac_code as Record<string, unknown>).assistantFinal).toEqual({ complete: true });
  });

  it('sends pre-stream errors as plain JSON with HTTP 200', async () => {
    const response = await fetch(`${agent.url}/`, {
      method: 'POST',
      headers: V1,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 'x',
        method: 'SendStreamingMessage',
        params: { message: userMessage('hi', { taskId: 'no-such-task' }) },
      }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await response.json()).toMatchObject({ error: { code: -32001, message: 'Task no-such-task not found' }, id: 'x' });
  });
});

describe('SendMessage and follow-ups', () => {
  it('returns the task at INPUT_REQUIRED with artifacts and iac-code history', async () => {
    const task = Task.parse(await sendMessage(agent.url, userMessage('one two')));
    const reply = demoReply('one two', 1);
    expect(task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(task.status.timestamp).toEqual(expect.any(String));
    expect(task.artifacts?.[0]?.parts).toEqual([{ text: reply.full, mediaType: 'text/plain' }]);
    // iac-code (persistence on) drops the first user message; history = every chunk, then the final text.
    expect(task.history?.map((m) => m.parts[0]?.text)).toEqual([...reply.chunks, reply.full]);
    expect(task.history?.map((m) => m.messageId)).toEqual([...reply.chunks.map(() => `${task.id}-message`), `${task.id}-2`]);
    expect(task.metadata).toEqual({ iac_code: { iacCodeSessionId: expect.any(String) } });

    const short = await sendMessage(agent.url, userMessage('again'), { historyLength: 1 });
    expect(short.history).toHaveLength(1);
  });

  it('continues a context: a new task or the same task gets the next turn number', async () => {
    const first = await sendMessage(agent.url, userMessage('first'));
    const second = await sendMessage(agent.url, userMessage('second', { contextId: first.contextId }));
    expect(second.id).not.toBe(first.id);
    expect(second.status.message).toBeUndefined();
    expect(second.history?.at(-1)?.parts[0]?.text).toBe(demoReply('second', 2).full);

    const events = await streamTurn(agent.url, userMessage('third', { taskId: second.id }));
    expect(describeEvent(events[0] as StreamResponse)).toBe('status:TASK_STATE_SUBMITTED+ts');
    const resumed = await rpcResult<Task>(agent.url, 'GetTask', { id: second.id });
    const texts = resumed.history?.map((m) => `${m.role}:${m.parts[0]?.text}`) ?? [];
    expect(texts).toContain('ROLE_USER:third');
    expect(texts.at(-1)).toBe(`ROLE_AGENT:${demoReply('third', 3).full}`);
    expect(resumed.artifacts).toHaveLength(2);
  });

  it('accepts a client contextId and rejects an invalid one with -32602', async () => {
    const task = await sendMessage(agent.url, userMessage('mine', { contextId: 'client-ctx_1.a:b' }));
    expect(task.contextId).toBe('client-ctx_1.a:b');
    const bad = await rpc(agent.url, 'SendMessage', { message: userMessage('x', { contextId: 'has space' }) });
    expect(bad.error?.code).toBe(-32602);
  });

  it('returnImmediately answers SUBMITTED while the turn goes on', async () => {
    const task = await sendMessage(agent.url, userMessage('later'), { returnImmediately: true });
    expect(task.status.state).toBe('TASK_STATE_SUBMITTED');
    let state = task.status.state;
    for (let i = 0; i < 100 && state !== 'TASK_STATE_INPUT_REQUIRED'; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      state = (await rpcResult<Task>(agent.url, 'GetTask', { id: task.id })).status.state;
    }
    expect(state).toBe('TASK_STATE_INPUT_REQUIRED');
  });

  it('fails deterministic failure prompts inside the turn, then refuses the terminal task', async () => {
    const failed = await sendMessage(agent.url, userMessage('fail: boom'));
    expect(failed.status).toMatchObject({ state: 'TASK_STATE_FAILED', message: { messageId: `${failed.id}-4`, parts: [{ text: 'boom' }] } });
    const again = await rpc(agent.url, 'SendMessage', { message: userMessage('x', { taskId: failed.id }) });
    expect(again.error).toMatchObject({ code: -32602, message: `Task ${failed.id} is in terminal state: 4` });
    const dataOnly = await sendMessage(agent.url, { messageId: 'd1', role: 'ROLE_USER', parts: [{ data: { a: 1 } }] });
    expect(dataOnly.history?.at(-1)?.parts[0]?.text).toBe(demoReply('{"a":1}', 1).full);
  });
});

describe('JSON-RPC errors', () => {
  it('rejects a missing, empty or 2.x A2A-Version with -32009 and ErrorInfo', async () => {
    for (const headers of [{}, { 'A2A-Version': '' }, { 'A2A-Version': '2.0' }] as Record<string, string>[]) {
      const reply = await rpc(agent.url, 'GetTask', { id: 'x' }, { 'content-type': 'application/json', ...headers });
      expect(reply.error?.code).toBe(-32009);
      expect(reply.error?.data).toEqual([expect.objectContaining({ reason: 'VERSION_NOT_SUPPORTED', domain: 'a2a-protocol.org' })]);
    }
    const missing = await rpc(agent.url, 'GetTask', { id: 'x' }, { 'content-type': 'application/json' });
    expect(missing.error?.message).toBe("A2A version '0.3' is not supported by this handler. Expected version '1.0'.");
    expect((await rpc(agent.url, 'GetTask', { id: 'x' }, { 'A2A-Version': '1.7' })).error?.code).toBe(-32001);
  });

  it('maps parse errors, unknown methods, bad params, push methods and unknown tasks', async () => {
    const parse = await fetch(`${agent.url}/`, { method: 'POST', headers: V1, body: '{nope' });
    expect(parse.status).toBe(200);
    expect(await parse.json()).toMatchObject({ error: { code: -32700 }, id: null });
    expect((await rpc(agent.url, 'message/send', {})).error?.code).toBe(-32601);
    expect((await rpc(agent.url, 'SendMessage', { message: { role: 'user', parts: [] } })).error?.code).toBe(-32602);
    expect((await rpc(agent.url, 'GetTask', { id: 'x', historyLength: -1 })).error?.code).toBe(-32602);
    expect((await rpc(agent.url, 'GetTask', { id: 'nope' })).error).toMatchObject({ code: -32001, message: 'Task not found' });
    expect((await rpc(agent.url, 'CancelTask', { id: 'nope' })).error).toMatchObject({ code: -32001, message: 'Task nope not found' });
    const push = await rpc(agent.url, 'CreateTaskPushNotificationConfig', { taskId: 't', url: 'https://example.com/hook' });
    expect(push.error).toMatchObject({ code: -32003, message: 'Push notifications are not supported by the agent' });
  });

  it('applies historyLength on GetTask without changing the stored task', async () => {
    const task = await sendMessage(agent.url, userMessage('keep history'));
    const full = task.history?.length ?? 0;
    expect(full).toBeGreaterThan(2);
    expect((await rpcResult<Task>(agent.url, 'GetTask', { id: task.id, historyLength: 0 })).history).toBeUndefined();
    expect((await rpcResult<Task>(agent.url, 'GetTask', { id: task.id, historyLength: 2 })).history).toHaveLength(2);
    expect((await rpcResult<Task>(agent.url, 'GetTask', { id: task.id })).history).toHaveLength(full);
  });
});
