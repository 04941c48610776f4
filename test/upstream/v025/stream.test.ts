/**
 * The 0.2.5 client's streams against a hand-written agent: the wire quirks of 0.2.5 streams and how
 * the 1.0 stream the gateway sees is shaped from them.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ErrorCode } from '../../../src/model/index.js';
import { errorFrame, frame, rpcError, rpcResult, sse } from '../../support/fake-v025.js';
import { closeAll, ctx, outline, setup, v025 } from '../support.js';
import { collect } from '../../support/collect.js';
import { rejection } from '../../support/rejection.js';
import { sendMessageParams } from '../../support/v1-message.js';

afterEach(closeAll);

describe('message/stream → SendStreamingMessage', () => {
  it('synthesises a SUBMITTED Task, at the time of the status-update the agent starts with; kind/final dropped, enums converted', async () => {
    const { upstream } = await setup({
      rpc: {
        'message/stream': (call, res) =>
          sse(res, [
            frame(call, v025.status('working', false, { timestamp: '2025-06-30T12:00:00+02:00' })),
            frame(call, v025.artifact('hel')),
            frame(call, v025.artifact('lo', true)),
            frame(call, v025.status('completed', true)),
          ]),
      },
    });
    const events = await collect(upstream.sendStreamingMessage(sendMessageParams('hi'), ctx()));
    expect(events.map(outline)).toEqual([
      'task:TASK_STATE_SUBMITTED',
      'status:TASK_STATE_WORKING',
      'artifact:hel',
      'artifact:lo',
      'status:TASK_STATE_COMPLETED',
    ]);
    expect(events[0]).toEqual({
      task: { id: 't-1', contextId: 'c-1', status: { state: 'TASK_STATE_SUBMITTED', timestamp: '2025-06-30T10:00:00Z' } },
    });
    expect(JSON.stringify(events)).not.toMatch(/"kind"|"final"/);
  });

  it('starts with SUBMITTED when the first event is an artifact-update', async () => {
    const { upstream } = await setup({
      rpc: { 'message/stream': (call, res) => sse(res, [frame(call, v025.artifact('x')), frame(call, v025.status('completed', true))]) },
    });
    const events = await collect(upstream.sendStreamingMessage(sendMessageParams('hi'), ctx()));
    expect(events.map(outline)).toEqual(['task:TASK_STATE_SUBMITTED', 'artifact:x', 'status:TASK_STATE_COMPLETED']);
  });

  it('closes after final:true although the agent keeps the connection open (and hangs up on it)', async () => {
    const { fake, upstream } = await setup({
      rpc: {
        'message/stream': (call, res) =>
          sse(res, [frame(call, v025.task('submitted')), frame(call, v025.status('input-required', true))], { keepOpen: true }),
      },
    });
    const events = await collect(upstream.sendStreamingMessage(sendMessageParams('hi'), ctx()));
    expect(events.map(outline)).toEqual(['task:TASK_STATE_SUBMITTED', 'status:TASK_STATE_INPUT_REQUIRED']);
    expect(await fake.rpcCalls('message/stream')[0]?.closedByClient).toBe(true);
  });

  it('a Message ends the stream, and gets the request contextId when it has none', async () => {
    const { upstream } = await setup({
      rpc: { 'message/stream': (call, res) => sse(res, [frame(call, v025.message('hello')), frame(call, v025.task('working'))], { keepOpen: true }) },
    });
    const events = await collect(upstream.sendStreamingMessage(sendMessageParams('hi', { contextId: 'ctx-9' }), ctx()));
    expect(events).toEqual([{ message: { messageId: 'm-a', role: 'ROLE_AGENT', parts: [{ text: 'hello' }], contextId: 'ctx-9' } }]);
  });

  it('an `event: error` frame after `id:` lines becomes the mapped, scrubbed A2AError', async () => {
    const { upstream } = await setup(
      {
        rpc: {
          'message/stream': (call, res) =>
            sse(res, [
              frame(call, v025.task('working')),
              errorFrame(call, {
                code: -32603,
                message: 'boom at /srv/agent/secret.py with Bearer abcdef123 and s3cr3t-token\nTraceback (most recent call last):\n  File "x"',
                data: { detail: 'see /home/me/file.txt', stack: 'nope' },
              }),
            ]),
        },
      },
      { auth: { token: 's3cr3t-token' } },
    );
    const seen: string[] = [];
    const error = await rejection(
      (async () => {
        for await (const event of upstream.sendStreamingMessage(sendMessageParams('hi'), ctx())) seen.push(outline(event));
      })(),
    );
    expect(seen).toEqual(['task:TASK_STATE_WORKING']);
    expect(error.code).toBe(ErrorCode.Internal);
    expect(error.message).not.toMatch(/srv|abcdef123|s3cr3t-token|Traceback/);
    expect(error.metadata).toEqual({ detail: 'see [path]' });
  });

  it('an error before the stream starts (plain JSON-RPC answer) is thrown; codes map through the profile', async () => {
    const { upstream } = await setup({
      rpc: { 'message/stream': (call, res) => rpcError(call, res, { code: -32001, message: 'Task not found: t-x' }) },
    });
    const error = await rejection(collect(upstream.sendStreamingMessage(sendMessageParams('hi', { taskId: 't-x' }), ctx())));
    expect(error.code).toBe(ErrorCode.TaskNotFound);
    expect(error.message).toBe('Task not found: t-x');
  });

  it('a result that is not a 0.2.5 stream event is an invalid agent response', async () => {
    const { upstream } = await setup({ rpc: { 'message/stream': (call, res) => sse(res, [frame(call, { kind: 'nonsense' })]) } });
    expect((await rejection(collect(upstream.sendStreamingMessage(sendMessageParams('hi'), ctx())))).code).toBe(ErrorCode.InvalidAgentResponse);
  });

  it('sends the 0.2.5 request: no A2A-Version, X-A2A-Extensions, credentials, kind and lower-case role', async () => {
    const { fake, upstream } = await setup(
      { rpc: { 'message/stream': (call, res) => sse(res, [frame(call, v025.status('completed', true))]) } },
      { auth: { 'api-key': 'k-123', 'api-key-header': 'X-Agent-Key' } },
    );
    await collect(upstream.sendStreamingMessage(sendMessageParams('hi'), ctx({ extensions: ['https://ext/a', 'https://ext/b'] })));
    const call = fake.rpcCalls('message/stream')[0]!;
    expect(call.headers['a2a-version']).toBeUndefined();
    expect(call.headers['a2a-extensions']).toBeUndefined();
    expect(call.headers['x-a2a-extensions']).toBe('https://ext/a, https://ext/b');
    expect(call.headers['x-agent-key']).toBe('k-123');
    expect(call.params).toMatchObject({ message: { kind: 'message', role: 'user', parts: [{ kind: 'text', text: 'hi' }] } });
  });

  it('leaving the loop early hangs up on the agent', async () => {
    const { fake, upstream } = await setup({
      rpc: { 'message/stream': (call, res) => sse(res, [frame(call, v025.task('working'))], { keepOpen: true }) },
    });
    for await (const event of upstream.sendStreamingMessage(sendMessageParams('hi'), ctx())) {
      expect(outline(event)).toBe('task:TASK_STATE_WORKING');
      break;
    }
    expect(await fake.rpcCalls('message/stream')[0]?.closedByClient).toBe(true);
  });
});

describe('tasks/resubscribe → SubscribeToTask', () => {
  it('emits the tasks/get snapshot first, drops a leading repeat of it, then follows to final', async () => {
    const { fake, upstream } = await setup({
      rpc: {
        'tasks/get': (call, res) => rpcResult(call, res, v025.task('working')),
        'tasks/resubscribe': (call, res) =>
          sse(
            res,
            [frame(call, v025.task('working', { history: [] })), frame(call, v025.artifact('a')), frame(call, v025.status('completed', true))],
            {
              keepOpen: true,
            },
          ),
      },
    });
    const events = await collect(upstream.subscribeToTask({ id: 't-1' }, ctx()));
    expect(events.map(outline)).toEqual(['task:TASK_STATE_WORKING', 'artifact:a', 'status:TASK_STATE_COMPLETED']);
    expect(fake.rpcCalls().map((call) => call.method)).toEqual(['tasks/get', 'tasks/resubscribe']);
    expect(fake.rpcCalls('tasks/resubscribe')[0]?.params).toEqual({ id: 't-1' });
  });

  it('relays a leading snapshot that shows progress since tasks/get', async () => {
    const { upstream } = await setup({
      rpc: {
        'tasks/get': (call, res) => rpcResult(call, res, v025.task('submitted')),
        'tasks/resubscribe': (call, res) => sse(res, [frame(call, v025.task('working')), frame(call, v025.status('completed', true))]),
      },
    });
    const events = await collect(upstream.subscribeToTask({ id: 't-1' }, ctx()));
    expect(events.map(outline)).toEqual(['task:TASK_STATE_SUBMITTED', 'task:TASK_STATE_WORKING', 'status:TASK_STATE_COMPLETED']);
  });

  it('a task that is finished or waiting for input is "not active" (-32001) without a resubscribe', async () => {
    for (const state of ['completed', 'input-required', 'canceled']) {
      const { fake, upstream } = await setup({ rpc: { 'tasks/get': (call, res) => rpcResult(call, res, v025.task(state)) } });
      const error = await rejection(collect(upstream.subscribeToTask({ id: 't-1' }, ctx())));
      expect(error.code).toBe(ErrorCode.TaskNotFound);
      expect(error.message).toBe('Task t-1 is not active');
      expect(fake.rpcCalls('tasks/resubscribe')).toHaveLength(0);
    }
  });
});
