/**
 * SendMessage with returnImmediately to a 0.2.5 agent whose card says it streams: sent as `message/stream`,
 * answered with the first event, the rest read to the turn's end past the caller, and ended by close().
 */
import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import type { SendMessageRequest } from '../../src/model/index.js';
import { frame, rpcResult, sse, type FakeCall } from '../support/fake-v025.js';
import { rejection } from '../support/rejection.js';
import { sendMessageParams } from '../support/v1-message.js';
import { closeAll, ctx, open, setup, v025 } from './support.js';

afterEach(closeAll);

const answeredEarly = (text: string, ids: { taskId?: string; contextId?: string } = { taskId: 't-1', contextId: 'c-1' }): SendMessageRequest => ({
  ...sendMessageParams(text, ids),
  configuration: { returnImmediately: true },
});

/** A turn whose stream opens with `first` and says the rest only once `release` is called. */
function heldTurn(first: unknown): { script: (call: FakeCall, res: ServerResponse) => void; opened: Promise<FakeCall>; release(): void } {
  let release = (): void => undefined;
  let opened = (_call: FakeCall): void => undefined;
  return {
    opened: new Promise<FakeCall>((resolve) => (opened = resolve)),
    release: () => release(),
    script(call, res) {
      sse(res, [frame(call, first)], { keepOpen: true });
      opened(call);
      release = () => {
        res.write(frame(call, v025.artifact('north')));
        res.end(frame(call, v025.status('completed', true)));
      };
    },
  };
}

const history = [{ kind: 'message', role: 'user', messageId: 'm-1', parts: [{ kind: 'text', text: 'ask' }] }];

describe('returnImmediately to a 0.2.5 agent that streams', () => {
  it('a continuation opening with a status-update is answered with the task as the agent keeps it, and read to its end after the caller left', async () => {
    const turn = heldTurn(v025.status('working', false));
    const { fake, upstream } = await setup({
      rpc: {
        'message/stream': turn.script,
        'tasks/get': (call, res) => rpcResult(call, res, v025.task('working', { history })),
      },
    });
    const caller = new AbortController();
    const answer = await upstream.sendMessage(answeredEarly('north'), ctx({ signal: caller.signal }));
    expect(answer).toMatchObject({ task: { id: 't-1', status: { state: 'TASK_STATE_WORKING' }, history: [{ messageId: 'm-1' }] } });
    expect(fake.rpcCalls().map((call) => call.method)).toEqual(['message/stream', 'tasks/get']);

    caller.abort();
    const stream = await turn.opened;
    turn.release();
    // The gateway, not the agent, would have hung up first had the caller's leaving ended the read.
    expect(await stream.closedByClient).toBe(false);
  });

  it('a new task opening with its Task is answered with it, without asking the agent again', async () => {
    const turn = heldTurn(v025.task('submitted', { history }));
    const { fake, upstream } = await setup({ rpc: { 'message/stream': turn.script } });
    const answer = await upstream.sendMessage(answeredEarly('go', {}), ctx());
    expect(answer).toMatchObject({ task: { id: 't-1', status: { state: 'TASK_STATE_SUBMITTED' } } });
    expect(fake.rpcCalls().map((call) => call.method)).toEqual(['message/stream']);
    turn.release();
  });

  it('close() ends a turn still read, and the agent sees the gateway hang up', async () => {
    const turn = heldTurn(v025.status('working', false));
    const { upstream } = await setup({
      rpc: { 'message/stream': turn.script, 'tasks/get': (call, res) => rpcResult(call, res, v025.task('working')) },
    });
    await upstream.sendMessage(answeredEarly('north'), ctx());
    open.splice(open.indexOf(upstream), 1);
    await upstream.close();
    expect(await (await turn.opened).closedByClient).toBe(true);
  });

  it('a stream that says nothing within request-timeout-ms fails the call as timed out and is hung up', async () => {
    let silent: Promise<FakeCall> | undefined;
    const { upstream } = await setup(
      {
        rpc: {
          'message/stream': (call, res) => {
            res.writeHead(200, { 'content-type': 'text/event-stream' });
            res.flushHeaders();
            silent = Promise.resolve(call);
          },
        },
      },
      { 'request-timeout-ms': 200 },
    );
    expect((await rejection(upstream.sendMessage(answeredEarly('north'), ctx()))).message).toBe('Upstream agent timed out');
    expect(await (await silent)!.closedByClient).toBe(true);
  });

  it('an agent that does not stream, or speaks 0.3, is sent message/send with blocking false', async () => {
    const answer = (call: FakeCall, res: ServerResponse): void => rpcResult(call, res, v025.task('working'));
    for (const { fake, upstream } of [
      await setup({ card: { capabilities: { streaming: false } }, rpc: { 'message/send': answer } }),
      await setup({ rpc: { 'message/send': answer } }, {}, '0.3'),
    ]) {
      await upstream.sendMessage(answeredEarly('north'), ctx());
      expect(fake.rpcCalls().map((call) => [call.method, (call.params as { configuration?: unknown }).configuration])).toEqual([
        ['message/send', { acceptedOutputModes: [], blocking: false }],
      ]);
    }
  });
});
