/**
 * SendMessage with returnImmediately to a 0.2.5 agent whose card says it streams: sent as `message/stream`,
 * answered with the first event, the rest read to the turn's end past the caller, and ended by close().
 */
import type { ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { UpstreamConfig } from '../../../src/config/schema.js';
import type { SendMessageRequest } from '../../../src/model/index.js';
import { createV025Upstream } from '../../../src/upstream/v025/client.js';
import { frame, rpcError, rpcResult, sse, startFakeV025, type FakeCall, type FakeV025Options } from '../../support/fake-v025.js';
import { rejection } from '../../support/rejection.js';
import { sendMessageParams } from '../../support/v1-message.js';
import { closeAll, ctx, open, setup, v025 } from '../support.js';

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

/** Every turn streamed opens with `first` (or what it makes of the call) and stays open, the agent at work, until `releaseAll`. */
function heldTurns(first: unknown): { script: (call: FakeCall, res: ServerResponse) => void; streams: FakeCall[]; releaseAll(): void } {
  const open: Array<{ call: FakeCall; res: ServerResponse }> = [];
  const streams: FakeCall[] = [];
  return {
    streams,
    script(call, res) {
      sse(res, [frame(call, typeof first === 'function' ? (first as (call: FakeCall) => unknown)(call) : first)], { keepOpen: true });
      open.push({ call, res });
      streams.push(call);
    },
    releaseAll: () => {
      for (const { call, res } of open.splice(0)) res.end(frame(call, v025.status('completed', true)));
    },
  };
}

/**
 * An agent as a2a-js 0.2.5 with an executor following its samples: a new task's stream opens with its Task, a
 * message going on with a task with a status-update, each held open, the agent at work, until `releaseAll`; a
 * non-blocking `message/send` answers a new task and fails a continuation though the agent runs it.
 */
function sdkLikeAgent(): { rpc: FakeV025Options['rpc']; streams: FakeCall[]; releaseAll(): void } {
  const goesOn = (call: FakeCall): boolean => Boolean((call.params as { message?: { taskId?: string } }).message?.taskId);
  const held = heldTurns((call: FakeCall) => (goesOn(call) ? v025.status('working', false) : v025.task('submitted', { history })));
  return {
    streams: held.streams,
    releaseAll: held.releaseAll,
    rpc: {
      'message/stream': held.script,
      'message/send': (call, res) =>
        goesOn(call)
          ? rpcError(call, res, { code: -32603, message: 'Execution finished before a message or task was produced.' })
          : rpcResult(call, res, v025.task('submitted', { history })),
      'tasks/get': (call, res) => rpcResult(call, res, v025.task('working', { history })),
    },
  };
}

/** A client of its own config and a logger to watch; closed after the test. */
async function setupLogged(fakeOptions: FakeV025Options, config: Record<string, unknown>) {
  const fake = await startFakeV025(fakeOptions);
  open.push(fake);
  const logger = { warn: vi.fn() };
  const upstream = createV025Upstream({ baseUrl: fake.url, config: UpstreamConfig.parse(config), dialect: '0.2.5', logger });
  open.push(upstream);
  return { fake, upstream, logger };
}

const sentAs = (fake: { rpcCalls(): FakeCall[] }): string[] =>
  fake
    .rpcCalls()
    .filter((call) => call.method !== 'tasks/get')
    .map((call) => `${call.method} blocking ${(call.params as { configuration?: { blocking?: boolean } }).configuration?.blocking}`);
const STREAMED = 'message/stream blocking false';
const NOT_BLOCKING = 'message/send blocking false';
/** `request-timeout-ms` here: a call queued behind held turns waits until it, or the pool's queue-timeout-ms, ends it. */
const QUEUED_BOUND_MS = 20_000;

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
      // It bounds the card's read too: 200 ms was not enough for that on a busy host ("card is unavailable").
      { 'request-timeout-ms': 1_500 },
    );
    expect((await rejection(upstream.sendMessage(answeredEarly('north'), ctx()))).message).toBe('Upstream agent timed out');
    expect(await (await silent)!.closedByClient).toBe(true);
  });

  it('an agent that does not stream is sent message/send with blocking false', async () => {
    const answer = (call: FakeCall, res: ServerResponse): void => rpcResult(call, res, v025.task('working'));
    const { fake, upstream } = await setup({ card: { capabilities: { streaming: false } }, rpc: { 'message/send': answer } });
    await upstream.sendMessage(answeredEarly('north', {}), ctx());
    expect(fake.rpcCalls().map((call) => [call.method, (call.params as { configuration?: unknown }).configuration])).toEqual([
      ['message/send', { acceptedOutputModes: [], blocking: false }],
    ]);
  });

  it('an agent whose card says 0.3 is streamed too: an a2a-js 0.2.5 server serves any card it is given', async () => {
    const agent = sdkLikeAgent();
    const { fake, upstream } = await setup({ rpc: agent.rpc }, {}, '0.3');
    expect(await upstream.sendMessage(answeredEarly('north'), ctx())).toMatchObject({ task: { id: 't-1' } });
    expect(sentAs(fake)).toEqual([STREAMED]);
    agent.releaseAll();
  });

  it('with upstream.connections 2 one turn is read in the background: the next new tasks go as message/send with blocking false, a GetTask is answered meanwhile, and the operator is told once', async () => {
    const turns = heldTurns(v025.status('working', false));
    const { fake, upstream, logger } = await setupLogged(
      {
        rpc: {
          'message/stream': turns.script,
          'message/send': (call, res) => rpcResult(call, res, v025.task('submitted', { history })),
          'tasks/get': (call, res) => rpcResult(call, res, v025.task('working', { history })),
        },
      },
      // A request bound far from what a busy host adds to an answer, so that the two cannot be mistaken (at 3 s, the bound
      // on the answer below was 1.5 s).
      { connections: 2, 'request-timeout-ms': QUEUED_BOUND_MS },
    );
    await upstream.sendMessage(answeredEarly('north'), ctx());
    const past = [await upstream.sendMessage(answeredEarly('south', {}), ctx()), await upstream.sendMessage(answeredEarly('west', {}), ctx())];
    expect(past).toMatchObject([{ task: { status: { state: 'TASK_STATE_SUBMITTED' } } }, { task: { status: { state: 'TASK_STATE_SUBMITTED' } } }]);
    expect(sentAs(fake)).toEqual([STREAMED, NOT_BLOCKING, NOT_BLOCKING]);
    // The other connection stays free for the calls a caller waits on (before: queued until the turns ended).
    const started = Date.now();
    expect(await upstream.getTask({ id: 't-1' }, ctx())).toMatchObject({ status: { state: 'TASK_STATE_WORKING' } });
    // Queued, it would be refused once the pool's queue-timeout-ms is out (seen: 10 s, "Every connection to the upstream
    // agent is in use"), or fail at request-timeout-ms: half of that, which a busy host does not reach.
    expect(Date.now() - started).toBeLessThan(QUEUED_BOUND_MS / 2);
    expect(logger.warn).toHaveBeenCalledTimes(1);
    expect(logger.warn.mock.calls[0]).toMatchObject([{ limit: 1, connections: 2 }, expect.stringContaining('blocking false')]);

    // A turn that ended makes room for the next.
    turns.releaseAll();
    expect(await turns.streams[0]!.closedByClient).toBe(false);
    await vi.waitFor(
      async () => {
        await upstream.sendMessage(answeredEarly('east', {}), ctx());
        expect(sentAs(fake).at(-1)).toBe(STREAMED);
      },
      { timeout: 5_000, interval: 20 },
    );
    // Past QUEUED_BOUND_MS: a GetTask kept queued fails on the bounds above, not on the test's.
  }, 30_000);

  it('without a connection cap, 100 turns are read in the background at once and the next goes as message/send with blocking false', async () => {
    const turns = heldTurns(v025.task('submitted', { history }));
    const { fake, upstream } = await setupLogged(
      { rpc: { 'message/stream': turns.script, 'message/send': (call, res) => rpcResult(call, res, v025.task('submitted', { history })) } },
      {},
    );
    await Promise.all(Array.from({ length: 100 }, () => upstream.sendMessage(answeredEarly('go', {}), ctx())));
    await upstream.sendMessage(answeredEarly('go', {}), ctx());
    expect(turns.streams).toHaveLength(100);
    expect(sentAs(fake).at(-1)).toBe(NOT_BLOCKING);
  });

  it('a turn still talking at request-timeout-ms (an agent sending keep-alives) is hung up, as a blocking call of it would be', async () => {
    let talking: FakeCall | undefined;
    const { upstream } = await setup(
      {
        rpc: {
          'message/stream': (call, res) => {
            sse(res, [frame(call, v025.task('working', { history }))], { keepOpen: true });
            const keepAlive = setInterval(() => res.write(': ping\n\n'), 50);
            res.on('close', () => clearInterval(keepAlive));
            talking = call;
          },
        },
      },
      // It bounds the card's read too: 300 ms was not enough for that on a busy host ("card is unavailable").
      { 'request-timeout-ms': 1_500 },
    );
    expect(await upstream.sendMessage(answeredEarly('go', {}), ctx())).toMatchObject({ task: { status: { state: 'TASK_STATE_WORKING' } } });
    // Hung up at the 1.5 s bound, not read for as long as the agent talks (forever).
    expect(await Promise.race([talking!.closedByClient, sleep(10_000, 'still read')])).toBe(true);
  });
  it("with upstream.connections 1, an answer to the agent's question with nothing else running is streamed and answered with the task at once", async () => {
    const agent = sdkLikeAgent();
    const { fake, upstream } = await setupLogged({ rpc: agent.rpc }, { connections: 1, 'request-timeout-ms': 3_000 });
    expect(await upstream.sendMessage(answeredEarly('north'), ctx())).toMatchObject({
      task: { id: 't-1', status: { state: 'TASK_STATE_SUBMITTED' } },
    });
    // Not asked how the task stands: that call would wait for the turn's end behind the one connection.
    expect(fake.rpcCalls().map((call) => call.method)).toEqual(['message/stream']);
    agent.releaseAll();
  });

  it("at the cap, an answer to the agent's question waits for a read to end and is then streamed; a new task is not kept waiting", async () => {
    const agent = sdkLikeAgent();
    const { fake, upstream, logger } = await setupLogged({ rpc: agent.rpc }, { connections: 2, 'request-timeout-ms': 3_000 });
    await upstream.sendMessage(answeredEarly('go', {}), ctx());
    const answering = upstream.sendMessage(answeredEarly('north'), ctx());
    const settled = answering.then(
      () => 'answered',
      (error: Error) => `failed: ${error.message}`,
    );
    expect(await Promise.race([settled, sleep(300, 'waiting')])).toBe('waiting');
    expect(await upstream.sendMessage(answeredEarly('go on', {}), ctx())).toMatchObject({ task: { status: { state: 'TASK_STATE_SUBMITTED' } } });
    expect(sentAs(fake)).toEqual([STREAMED, NOT_BLOCKING]);

    agent.releaseAll();
    expect(await answering).toMatchObject({ task: { id: 't-1', status: { state: 'TASK_STATE_WORKING' }, history: [{ messageId: 'm-1' }] } });
    expect(sentAs(fake)).toEqual([STREAMED, NOT_BLOCKING, STREAMED]);
    expect(logger.warn).toHaveBeenCalledTimes(1);
    agent.releaseAll();
  });
});
