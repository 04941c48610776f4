/**
 * The 0.2.5 facade's task methods as the A2A 0.2.5 spec and its official client (a2a-js 0.2.5
 * `A2AClient`) expect them, in front of the embedded demo agent (iac-code's wire behaviour, bailian
 * profile) and a real a2a-js 1.x server (a2a-0.2.5 profile):
 * - tasks/get: `historyLength` (0 none, N the last N, absent all); the history is the task's
 *   conversation: each user message and each turn's agent reply, in 0.2.5 shape;
 * - tasks/resubscribe and message/stream: always text/event-stream, an error as one SSE frame, then the end;
 * - tasks/cancel of a task already finished: -32002, not a second success.
 */
import { randomUUID } from 'node:crypto';
import { A2AClient } from 'a2a-sdk-025/client';
import type { MessageSendParams } from 'a2a-sdk-025';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { demoReply } from '../../../src/demo-agent/index.js';
import { sdkReply, startSdkV1Agent, type RunningSdkV1Agent } from '../../support/sdk-v1-agent.js';
import { collect, openStream, rpc, startFacadeGateway } from '../../support/facade.js';
import { REDIS_URL, requireRedis } from '../../support/redis.js';

beforeAll(requireRedis);

let counter = 0;
const params = (text: string, extra: { contextId?: string; taskId?: string } = {}): MessageSendParams => ({
  message: { kind: 'message', role: 'user', messageId: `conf-${++counter}`, parts: [{ kind: 'text', text }], ...extra },
});

/** What a person reads in a history: who said what. */
const said = (history: any[] | undefined): string[] =>
  (history ?? []).map((message) => `${message.role}: ${message.parts.map((part: any) => part.text ?? `[${part.kind}]`).join('')}`);

interface Upstream {
  name: string;
  start(): Promise<{ gateway: RunningGateway; close(): Promise<void> }>;
  reply(text: string, turn: number): string;
  /** Whether a contextId follow-up continues the same task (iac-code) or starts a new one (a2a-js). */
  followUpSameTask: boolean;
  canceledState: string;
  /** Whether its turns end waiting for input (the demo agent, like iac-code). */
  endsWaiting: boolean;
}

const demo = (name: string, overrides: Record<string, unknown>): Upstream => ({
  name,
  async start() {
    const gateway = await startFacadeGateway(overrides);
    return { gateway, close: () => gateway.close() };
  },
  reply: (text, turn) => demoReply(text, turn).full,
  followUpSameTask: true,
  canceledState: 'failed',
  endsWaiting: true,
});

const UPSTREAMS: Upstream[] = [
  demo('embedded demo agent (bailian profile)', {}),
  // The history the facade answers comes from the task registry: the same with the Redis one.
  demo('embedded demo agent (bailian profile, store: redis)', {
    store: 'redis',
    'redis-url': REDIS_URL,
    'redis-prefix': `a2a-bridge-test:facade-tasks:${randomUUID()}:`,
    tasks: { 'idle-ttl-ms': 600_000 },
  }),
  {
    name: 'a2a-js 1.x server (a2a-0.2.5 profile)',
    async start() {
      const agent: RunningSdkV1Agent = await startSdkV1Agent();
      const gateway = await startFacadeGateway({ upstream: { url: agent.url }, bailian: { profile: 'a2a-0.2.5' } });
      return {
        gateway,
        async close() {
          await gateway.close();
          await agent.close();
        },
      };
    },
    reply: (text, turn) => sdkReply(text, turn).full,
    followUpSameTask: false,
    canceledState: 'canceled',
    endsWaiting: false,
  },
];

describe.each(UPSTREAMS)('0.2.5 facade task methods → $name', (upstream) => {
  let running: Awaited<ReturnType<Upstream['start']>>;
  let client: A2AClient;
  beforeAll(async () => {
    running = await upstream.start();
    client = new A2AClient(running.gateway.url);
  });
  afterAll(() => running.close());

  it('tasks/get: the history holds every user message and each turn reply; historyLength cuts it from the end', async () => {
    const first: any = await client.sendMessage(params('one'));
    const second: any = await client.sendMessage(params('two', { contextId: first.result.contextId }));
    const taskId = second.result.id;
    const whole = upstream.followUpSameTask
      ? ['user: one', `agent: ${upstream.reply('one', 1)}`, 'user: two', `agent: ${upstream.reply('two', 2)}`]
      : ['user: two', `agent: ${upstream.reply('two', 2)}`];
    if (upstream.followUpSameTask) expect(taskId).toBe(first.result.id);

    const all: any = await client.getTask({ id: taskId });
    expect(all.error).toBeUndefined();
    expect(said(all.result.history)).toEqual(whole);
    for (const message of all.result.history) {
      expect(message).toMatchObject({ kind: 'message', taskId, contextId: first.result.contextId });
      expect(['user', 'agent']).toContain(message.role);
    }
    const none: any = await client.getTask({ id: taskId, historyLength: 0 });
    expect(none.result.history ?? []).toEqual([]);
    const last: any = await client.getTask({ id: taskId, historyLength: 1 });
    expect(said(last.result.history)).toEqual(whole.slice(-1));
    const lastTwo: any = await client.getTask({ id: taskId, historyLength: 2 });
    expect(said(lastTwo.result.history)).toEqual(whole.slice(-2));
  });

  it('tasks/get of a task the client named itself: its id on the task and on every message', async () => {
    const taskId = `conf-task-${randomUUID()}`;
    const sent: any = await client.sendMessage(params('named by me', { taskId }));
    expect(sent.result.id).toBe(taskId);
    const got: any = await client.getTask({ id: taskId });
    expect(got.result.id).toBe(taskId);
    expect(said(got.result.history)).toEqual(['user: named by me', `agent: ${upstream.reply('named by me', 1)}`]);
    for (const message of got.result.history) expect(message.taskId).toBe(taskId);
  });

  it('tasks/get after message/stream: the opening message and the reply, not the streamed pieces', async () => {
    const events = await collect(client.sendMessageStream(params('stream me please')));
    const got: any = await client.getTask({ id: events[0].id });
    expect(said(got.result.history)).toEqual(['user: stream me please', `agent: ${upstream.reply('stream me please', 1)}`]);
  });

  it('tasks/resubscribe answers text/event-stream also for an unknown or finished task: one error frame, then the end', async () => {
    const sent: any = await client.sendMessage(params('finished'));
    // A turn that ended waiting for input (the demo agent, like iac-code) is followed to its end: its Task alone.
    const waits = upstream.endsWaiting;
    for (const id of waits ? ['no-such-task'] : ['no-such-task', sent.result.id]) {
      const stream = await openStream(running.gateway.url, 'tasks/resubscribe', { id }, { id: 'resub-1' });
      expect(stream.response.status).toBe(200);
      expect(stream.response.headers.get('content-type')).toMatch(/^text\/event-stream/);
      const frames = await stream.rest();
      expect(frames).toHaveLength(1);
      expect(frames[0]?.json).toMatchObject({ jsonrpc: '2.0', id: 'resub-1', error: { code: expect.any(Number), message: expect.any(String) } });
      expect(frames[0]?.json.result).toBeUndefined();
    }
    if (waits) {
      const frames = await (await openStream(running.gateway.url, 'tasks/resubscribe', { id: sent.result.id }, { id: 'resub-2' })).rest();
      // The task as the facade shows a turn: the agent's words, then one final status.
      const results = frames.map((frame) => frame.json.result);
      expect(results[0]).toMatchObject({ kind: 'task', id: sent.result.id });
      const text = results
        .flatMap((result) => (result.kind === 'artifact-update' ? result.artifact.parts.map((part: any) => part.text) : []))
        .join('');
      expect(text).toContain(upstream.reply('finished', 1));
      expect(results.filter((result) => result.final === true)).toEqual([results.at(-1)]);
    }
    // The official client reads it as a stream and surfaces the error instead of failing on the content type.
    await expect(collect(client.resubscribeTask({ id: 'no-such-task' }))).rejects.toThrow(/-32001/);
  });

  it('message/stream that fails before its first event: one error frame, and the official client reports its words', async () => {
    const stream = await openStream(running.gateway.url, 'message/stream', params('   '), { id: 'stream-1' });
    expect(stream.response.status).toBe(200);
    expect(stream.response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const frames = await stream.rest();
    expect(frames.map((frame) => frame.json)).toEqual([
      { jsonrpc: '2.0', id: 'stream-1', error: { code: -32602, message: 'Invalid params: message.parts: the message text is empty' } },
    ]);
    await expect(collect(client.sendMessageStream(params('   ')))).rejects.toThrow(/the message text is empty \(Code: -32602\)/);
  });

  it('tasks/resubscribe with params the facade rejects is an SSE error frame too', async () => {
    const stream = await openStream(running.gateway.url, 'tasks/resubscribe', { nope: true }, { id: 7 });
    expect(stream.response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect((await stream.rest()).map((frame) => frame.json.error.code)).toEqual([-32602]);
  });

  it('tasks/cancel of a task that is already canceled is -32002 TaskNotCancelable, not a second success', async () => {
    const stream = client.sendMessageStream(params('slow: cancel me twice'));
    const head: any = (await stream.next()).value;
    const canceled: any = await client.cancelTask({ id: head.id });
    expect(canceled.error).toBeUndefined();
    expect(canceled.result).toMatchObject({ kind: 'task', id: head.id, status: { state: upstream.canceledState } });
    await collect(stream);
    const again: any = await client.cancelTask({ id: head.id });
    expect(again.result).toBeUndefined();
    expect(again.error).toMatchObject({ code: -32002 });
    // Raw HTTP, as any 0.2.5 client: the same.
    const raw = await rpc(running.gateway.url, 'tasks/cancel', { id: head.id });
    expect(raw.body.error.code).toBe(-32002);
  });

  it('tasks/cancel of a task that finished on its own is -32002', async () => {
    const sent: any = await client.sendMessage(params('done'));
    const answer: any = await client.cancelTask({ id: sent.result.id });
    expect(answer.error).toMatchObject({ code: -32002 });
  });
});
