/**
 * Which failures of a turn's stream the facade takes for a stream that broke off (and follows the task again)
 * is told by the upstream clients' errors, not by their words: a refusal of the gateway's credentials reads
 * "Upstream agent is unavailable" as a lost connection does, and is not retried; lost connections and quiet
 * streams still are.
 */
import { describe, expect, it } from 'vitest';
import { A2AError, GATEWAY_FAILURES, type Message, type StreamResponse, type Task } from '../../../../src/model/index.js';
import { recoverableTurn } from '../../../../src/surfaces/v025/recovery/turn-recovery.js';
import { brokeOff } from '../../../../src/surfaces/v025/recovery/turn-resubscribe.js';
import { TurnTracker } from '../../../../src/surfaces/v025/recovery/turn-tracker.js';
import { notJsonRpcAnswer } from '../../../../src/upstream/jsonrpc-client.js';
import { credentialsRefused, fromJsonRpcError, fromTransportError, streamWentIdle } from '../../../../src/upstream/upstream-errors.js';

const reset = (): Error => Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' });
const refused = (): Error => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });

describe('brokeOff: what the upstream clients tell, not the words', () => {
  it.each([
    ['a connection lost mid-stream', () => fromTransportError(reset()), true],
    ['an agent never reached', () => fromTransportError(refused()), true],
    ["the gateway's bound on the call", () => fromTransportError(new Error('x'), { timedOut: true }), true],
    ['a stream gone quiet', () => streamWentIdle(1_000), true],
    ['anything not an A2AError', () => new Error('socket hang up'), true],
    ["the agent's 401 to a call", () => notJsonRpcAnswer(401), false],
    ["the agent's 403 to a card", () => credentialsRefused(403, 'refused'), false],
    // A chained gateway's own words for its agent are that gateway's answer about its turn, not a break of this stream.
    ['an agent error in the same words', () => fromJsonRpcError({ code: -32603, message: GATEWAY_FAILURES.upstreamUnavailable }), false],
    ['the same, timed out', () => fromJsonRpcError({ code: -32603, message: GATEWAY_FAILURES.upstreamTimedOut }), false],
    ['the gateway shutting down', () => A2AError.shuttingDown(), false],
  ])('%s: %s', (_name, error, expected) => {
    expect(brokeOff(error())).toBe(expected);
  });
});

/** A turn whose stream names a working task, then fails with `failure`; the calls made to follow it. */
function turnFailingWith(failure: () => Error) {
  const working: Task = { id: 'T', contextId: 'C', status: { state: 'TASK_STATE_WORKING' }, history: [] };
  const calls = { subscribe: 0, getTask: 0 };
  const port = {
    async *sendStreamingMessage(): AsyncGenerator<StreamResponse> {
      yield { task: working };
      yield { statusUpdate: { taskId: 'T', contextId: 'C', status: { state: 'TASK_STATE_WORKING', message: said('Drafting') } } };
      throw failure();
    },
    getTask: async (): Promise<Task> => {
      calls.getTask++;
      return { ...working, status: { state: 'TASK_STATE_COMPLETED', message: said('Done.') } };
    },
    // eslint-disable-next-line require-yield
    async *subscribeToTask(): AsyncGenerator<StreamResponse> {
      calls.subscribe++;
      throw A2AError.taskNotActive('T');
    },
  };
  const deps = { port, options: { requestTimeoutMs: 10_000 } } as never;
  const sent: Message = { messageId: 'u1', role: 'ROLE_USER', parts: [{ text: 'Create a VPC' }] };
  const events = recoverableTurn({ message: sent }, { signal: new AbortController().signal } as never, deps, new TurnTracker({ sent }));
  return { calls, events };
}

const said = (text: string): Message => ({ messageId: `m-${text}`, role: 'ROLE_AGENT', parts: [{ text }] });

async function ending(events: AsyncIterable<StreamResponse>): Promise<{ count: number; error?: unknown }> {
  let count = 0;
  try {
    for await (const _event of events) count++;
    return { count };
  } catch (error) {
    return { count, error };
  }
}

describe("a turn's stream that fails after it named its task", () => {
  it("refused the gateway's credentials: no call follows the task, the turn fails with the refusal", async () => {
    const turn = turnFailingWith(() => notJsonRpcAnswer(401));
    const ended = await ending(turn.events);
    expect(turn.calls).toStrictEqual({ subscribe: 0, getTask: 0 });
    expect(ended.count).toBe(2);
    // Told to the Bailian user in the gateway's words, in their language (iac-code-resubscribe-refused.test.ts).
    expect((ended.error as A2AError).message).toBe(GATEWAY_FAILURES.upstreamUnavailable);
  });

  it.each([
    ['a lost connection', () => fromTransportError(reset())],
    ['a quiet stream', () => streamWentIdle(1_000)],
  ])('%s: the task is followed again, and the turn ends as the agent ended it', async (_name, failure) => {
    const turn = turnFailingWith(failure);
    const ended = await ending(turn.events);
    expect(turn.calls.subscribe).toBe(1);
    expect(turn.calls.getTask).toBeGreaterThan(0);
    expect(ended.error).toBeUndefined();
  });
});
