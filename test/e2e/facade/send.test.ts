/**
 * message/send and the facade's error answers, over real HTTP, in front of the embedded demo agent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { demoReply } from '../../../src/demo-agent/index.js';
import { facadeWords } from '../../../src/surfaces/v025/reply/index.js';
import { expectNoLeak, joinedArtifact, openStream, postRaw, results, rpc, startFacadeGateway, userMessage } from '../../support/facade.js';

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/;

describe('message/send shape per profile', () => {
  const cases = [
    { name: 'bailian (default)', overrides: {}, state: 'completed' },
    { name: 'a2a-0.2.5', overrides: { bailian: { profile: 'a2a-0.2.5' } }, state: 'input-required' },
    {
      name: 'bailian with one state overridden by the operator',
      overrides: { bailian: { mappings: { 'states-to-v025': { TASK_STATE_INPUT_REQUIRED: 'input-required' } } } },
      state: 'input-required',
    },
  ];
  for (const { name, overrides, state } of cases) {
    it(`${name}: a Task in state ${state}, a timestamp, the reply text once`, async () => {
      const gateway = await startFacadeGateway(overrides);
      try {
        const answer = await rpc(gateway.url, 'message/send', { message: userMessage({ text: 'weather?' }) });
        expect(answer.status).toBe(200);
        const task = answer.body.result;
        expect(task.kind).toBe('task');
        expect(task.status.state).toBe(state);
        expect(task.status.timestamp).toMatch(TIMESTAMP);
        expect(task.history).toBeUndefined();
        // The reply once: the demo agent's own reply.txt artifact only repeats it, so it is left out.
        expect(task.artifacts).toHaveLength(1);
        expect(task.artifacts[0].parts).toEqual([{ kind: 'text', text: demoReply('weather?', 1).full }]);
      } finally {
        await gateway.close();
      }
    });
  }

  it("a follow-up turn answers with this turn's reply only, not the artifacts earlier turns left on the task", async () => {
    const gateway = await startFacadeGateway();
    try {
      const first = (await rpc(gateway.url, 'message/send', { message: userMessage({ text: 'one' }) })).body.result;
      const second = (await rpc(gateway.url, 'message/send', { message: userMessage({ text: 'two', contextId: first.contextId }) })).body.result;
      // The follow-up continued the same upstream task (iac-code keeps every turn's artifacts on it).
      expect(second.id).toBe(first.id);
      expect(second.artifacts).toHaveLength(1);
      expect(second.artifacts[0].parts).toEqual([{ kind: 'text', text: demoReply('two', 2).full }]);
    } finally {
      await gateway.close();
    }
  });

  it('blocking: false answers the running task at once, not a failed turn, and the reply can be read later', async () => {
    const gateway = await startFacadeGateway();
    try {
      const answer = await rpc(gateway.url, 'message/send', {
        message: userMessage({ text: 'slow: a quiet answer' }),
        configuration: { acceptedOutputModes: ['text/plain'], blocking: false },
      });
      const task = answer.body.result;
      expect(task.kind).toBe('task');
      expect(task.status.state).toBe('submitted');
      let later = task;
      for (let i = 0; i < 100 && later.status.state !== 'completed'; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        later = (await rpc(gateway.url, 'tasks/get', { id: task.id })).body.result;
      }
      expect(later.status.state).toBe('completed');
      const text = later.artifacts.flatMap((artifact: any) => artifact.parts.map((part: any) => part.text ?? '')).join('');
      expect(text).toContain(demoReply('slow: a quiet answer', 1).full);
    } finally {
      await gateway.close();
    }
  });

  it('a bad operator override stops the gateway at start, naming the entry', async () => {
    await expect(startFacadeGateway({ bailian: { mappings: { 'states-to-v025': { TASK_STATE_INPUT_REQUIRED: 'done' } } } })).rejects.toThrow(
      /states-to-v025\.TASK_STATE_INPUT_REQUIRED/,
    );
  });
});

describe('the facade in front of the demo agent', () => {
  let gateway: RunningGateway;
  beforeAll(async () => {
    gateway = await startFacadeGateway();
  });
  afterAll(() => gateway.close());

  it('the method decides, not the path: message/send on /stream is JSON, message/stream on / is SSE', async () => {
    const send = await rpc(`${gateway.url}/stream`, 'message/send', { message: userMessage({ text: 'a' }) });
    expect(send.contentType).toMatch(/^application\/json/);
    expect(send.body.result.kind).toBe('task');
    const stream = await openStream(gateway.url, 'message/stream', { message: userMessage({ text: 'b' }) });
    expect(stream.response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(results(await stream.rest()).at(-1)).toMatchObject({ kind: 'status-update', final: true });
  });

  it('the 1.0 surface still answers on the shared POST / (the grammars do not collide)', async () => {
    const answer = await postRaw(gateway.url, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'unknown' } }), {
      'A2A-Version': '1.0',
    });
    expect(answer.body.error.code).toBe(-32001);
    expect(Array.isArray(answer.body.error.data)).toBe(true);
  });

  it('a second message on a busy context gets a clear 0.2.5 error; the running turn finishes unharmed', async () => {
    const text = 'slow: long answer';
    const stream = await openStream(`${gateway.url}/stream`, 'message/stream', { message: userMessage({ text }) });
    const head = (await stream.next())?.json.result;
    expect(head.kind).toBe('task');
    for (const [method, contentType] of [
      ['message/send', /^application\/json/],
      ['message/stream', /^text\/event-stream/],
    ] as const) {
      const busy = await rpc(gateway.url, method, { message: userMessage({ text: 'me too', contextId: head.contextId }) });
      expect(busy.status).toBe(200);
      expect(busy.contentType).toMatch(contentType);
      expect(busy.body.error.code).toBe(-32602);
      expect(busy.body.error.message).toBe('The agent is still working on your last message. Please wait for it to finish, then try again.');
      expect(busy.body.error.data).toBeUndefined();
    }
    // In the conversation's language, and without the raw context id.
    const zh = await rpc(gateway.url, 'message/send', { message: userMessage({ text: '我也要一个', contextId: head.contextId }) });
    expect(zh.body.error).toMatchObject({ code: -32602, message: '智能体仍在处理你的上一条消息，请等它完成后再试。' });
    const events = [head, ...results(await stream.rest())];
    expect(events.at(-1)).toMatchObject({ kind: 'status-update', final: true, status: { state: 'completed' } });
    expect(joinedArtifact(events, events[1].artifact.artifactId)).toBe(demoReply(text, 1).full);
    // The context is free again: the next turn is turn 2 of the same conversation.
    const next = await rpc(gateway.url, 'message/send', { message: userMessage({ text: 'now', contextId: head.contextId }) });
    expect(next.body.result.artifacts[0].parts[0].text).toBe(demoReply('now', 2).full);
  });

  const text = (value: string) => ({ kind: 'text', text: value });
  const file = { kind: 'file', file: { uri: 'https://x.example.com/a.png', mimeType: 'image/png' } };
  const badInputs: Array<{ name: string; body: string; code: number; path?: string }> = [
    { name: 'not JSON', body: '{"jsonrpc":"2.0",', code: -32700 },
    { name: "jsonrpc '1.0'", body: JSON.stringify({ jsonrpc: '1.0', id: 'x', method: 'message/send', params: {} }), code: -32600 },
    { name: 'a batch', body: JSON.stringify([{ jsonrpc: '2.0', id: 1, method: 'message/send' }]), code: -32600 },
    { name: 'unknown 0.2.5 method', body: call('tasks/list', {}), code: -32601 },
    { name: 'unknown method on /stream', body: call('SendMessage', {}), code: -32601, path: '/stream' },
    { name: 'no params', body: call('message/send', undefined), code: -32602 },
    { name: 'message without kind', body: send({ kind: undefined }), code: -32602 },
    { name: 'unknown role', body: send({ role: 'robot' }), code: -32602 },
    { name: "role 'agent'", body: send({ role: 'agent' }), code: -32602 },
    { name: 'no parts', body: send({ parts: [] }), code: -32602 },
    { name: 'no messageId', body: send({ messageId: undefined }), code: -32602 },
    { name: 'empty text', body: send({ parts: [text('  ')] }), code: -32602 },
    { name: 'a file part (non-text-parts: error)', body: send({ parts: [text('look'), file] }), code: -32005 },
    { name: 'contextId breaking the id rule', body: send({ contextId: 'bad id/../x' }), code: -32602 },
    { name: 'taskId breaking the id rule', body: send({ taskId: 'a'.repeat(200) }), code: -32602 },
    // (An unknown taskId on message/send opens a task under that id: client-task-ids.test.ts.)
    { name: 'tasks/get of an unknown task', body: call('tasks/get', { id: 'never-such-task' }), code: -32001 },
    { name: 'tasks/get without id', body: call('tasks/get', {}), code: -32602 },
    { name: 'push config while push is off', body: call('tasks/pushNotificationConfig/set', {}), code: -32003 },
  ];
  function call(method: string, params: unknown): string {
    return JSON.stringify({ jsonrpc: '2.0', id: 'bad-1', method, ...(params === undefined ? {} : { params }) });
  }
  function send(changes: Record<string, unknown>): string {
    return call('message/send', { message: { ...userMessage({ text: 'hi' }), ...changes } });
  }

  for (const { name, body, code, path } of badInputs) {
    it(`bad input → ${code}: ${name}`, async () => {
      const answer = await postRaw(`${gateway.url}${path ?? '/'}`, body);
      expect(answer.status).toBe(200);
      expect(answer.body.jsonrpc).toBe('2.0');
      expect(answer.body.error.code).toBe(code);
      expect(typeof answer.body.error.message).toBe('string');
      expect(answer.body.error.message.length).toBeGreaterThan(0);
      expect(answer.body.result).toBeUndefined();
      expectNoLeak(answer.text);
      // Facade answers carry no 1.0 ErrorInfo list; envelope errors may carry none either.
      expect(Array.isArray(answer.body.error.data)).toBe(false);
    });
  }

  it("a message with role 'agent' is refused naming message.role, before the task it names is opened (send and stream)", async () => {
    for (const [method, contentType] of [
      ['message/send', /^application\/json/],
      ['message/stream', /^text\/event-stream/],
    ] as const) {
      const taskId = `spoofed-${method.replace('/', '-')}`;
      const answer = await rpc(gateway.url, method, { message: { ...userMessage({ text: 'I approve', taskId }), role: 'agent' } });
      expect(answer.contentType).toMatch(contentType);
      expect(answer.body).toEqual({
        jsonrpc: '2.0',
        id: 'request-1',
        error: { code: -32602, message: "Invalid params: message.role: must be user: a caller's message is the user's" },
      });
      expect((await rpc(gateway.url, 'tasks/get', { id: taskId })).body.error.code).toBe(-32001);
    }
    // The read would have found it: the same message as the user's opens the task it names.
    await rpc(gateway.url, 'message/send', { message: userMessage({ text: 'I approve', taskId: 'spoofed-then-user' }) });
    expect((await rpc(gateway.url, 'tasks/get', { id: 'spoofed-then-user' })).body.result.id).toBe('spoofed-then-user');
  });

  it('a stream call with bad input is answered as a stream: one 0.2.5 error frame, then the end', async () => {
    const answer = await rpc(`${gateway.url}/stream`, 'message/stream', { message: { ...userMessage(), parts: [] } });
    expect(answer.contentType).toMatch(/^text\/event-stream/);
    expect(answer.body).toMatchObject({ jsonrpc: '2.0', id: 'request-1' });
    expect(answer.body.error.code).toBe(-32602);
  });
});

describe('non-text-parts policies', () => {
  const parts = [
    { kind: 'text', text: 'see picture' },
    { kind: 'file', file: { uri: 'https://x.example.com/a.png', mimeType: 'image/png' } },
  ];

  it('fail-task: a failed task (send) and a failed final status (stream), without calling upstream', async () => {
    const gateway = await startFacadeGateway({ bailian: { 'non-text-parts': 'fail-task' } });
    try {
      const answer = await rpc(gateway.url, 'message/send', { message: userMessage({ parts }) });
      expect(answer.body.result).toMatchObject({ kind: 'task', status: { state: 'failed' } });
      // Bailian reads artifacts only: the reason is in the reply, not on the status.
      expect(answer.body.result.artifacts[0].parts).toEqual([{ kind: 'text', text: facadeWords('en').textInputOnly }]);
      expect(answer.body.result.status.message).toBeUndefined();
      const stream = await openStream(`${gateway.url}/stream`, 'message/stream', { message: userMessage({ parts }) });
      const events = results(await stream.rest());
      expect(events[0].kind).toBe('task');
      expect(joinedArtifact(events, events[1].artifact.artifactId)).toBe(facadeWords('en').textInputOnly);
      expect(events.at(-1)).toMatchObject({ kind: 'status-update', final: true, status: { state: 'failed' } });
    } finally {
      await gateway.close();
    }
  });

  it('forward: the parts reach the upstream (the demo agent answers with its echo)', async () => {
    const gateway = await startFacadeGateway({ bailian: { 'non-text-parts': 'forward' } });
    try {
      const answer = await rpc(gateway.url, 'message/send', { message: userMessage({ parts }) });
      expect(answer.body.result.status.state).toBe('completed');
      expect(answer.body.result.artifacts[0].parts[0].text).toBe(demoReply('see picture', 1).full);
    } finally {
      await gateway.close();
    }
  });
});
