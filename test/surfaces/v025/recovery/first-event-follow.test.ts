/**
 * A facade turn's follow to its first event (first-event-follow.ts, through unwatched-turns.ts turnBound): the common
 * path, whose first event comes before any bound or hang-up, reads the agent's events as they are; a bound or a
 * hang-up before that first event ends the reply at once and reads the call on until the event names the task.
 */
import { describe, expect, it, vi } from 'vitest';
import { Forwarder } from '../../../../src/core/iterable-stages.js';
import { A2AError, type StreamResponse } from '../../../../src/model/index.js';
import { outlivingCallsEnded } from '../../../../src/surfaces/shared/outliving-calls.js';
import { turnBound, type UnwatchedTurn } from '../../../../src/surfaces/v025/recovery/unwatched-turns.js';

const FIRST: StreamResponse = { task: { id: 'T', contextId: 'C', status: { state: 'TASK_STATE_SUBMITTED' } } };
const SECOND: StreamResponse = { statusUpdate: { taskId: 'T', contextId: 'C', status: { state: 'TASK_STATE_WORKING' } } };
const NOT_STARTED = A2AError.upstreamTimedOut().toldAs('The agent has not started on it yet.');

/** The agent's call: its first event waits for `speak`, then the rest comes; `returned` once the call was ended. */
function agentCall(fails?: Error) {
  let speak!: () => void;
  const spoken = new Promise<void>((resolve) => (speak = resolve));
  const call = { speak, returned: false, iterator: undefined as unknown as AsyncIterator<StreamResponse> };
  async function* events(): AsyncGenerator<StreamResponse> {
    try {
      await spoken;
      if (fails) throw fails;
      yield FIRST;
      yield SECOND;
    } finally {
      call.returned = true;
    }
  }
  call.iterator = events();
  return call;
}

/** A new task's turn whose message was sent: followed past a bound or a hang-up before its first event. */
function newTaskTurn(): UnwatchedTurn & { noted: string[] } {
  const noted: string[] = [];
  return {
    noted,
    callerGone: () => void noted.push('caller gone'),
    timedOut: (timedOut) => (noted.push('timed out'), timedOut),
    followedToFirstEvent: () => (noted.push('followed past the bound'), NOT_STARTED),
    followedAfterHangUp: () => (noted.push('followed after the hang-up'), true),
    shownAsWritten: () => ({ mark: () => 0, wrote: () => undefined, leftAtEnd: () => undefined }),
  };
}

function followedTurn(call: ReturnType<typeof agentCall>) {
  const turn = newTaskTurn();
  const abort = vi.fn();
  const shutdown = new AbortController().signal;
  const onFollow = vi.fn();
  const bound = turnBound(turn, abort, { ms: 0, shutdown, principal: 'alice', onFollow });
  const reader = bound.events({ [Symbol.asyncIterator]: () => call.iterator })[Symbol.asyncIterator]();
  return { turn, abort, shutdown, onFollow, bound, reader };
}

describe('a turn whose first event comes before any bound or hang-up', () => {
  it("reads the agent's events as they are: past the first the layer hands a stage above the call itself", async () => {
    const call = agentCall();
    const { bound, reader, abort, turn } = followedTurn(call);
    call.speak();
    expect((await reader.next()).value).toBe(FIRST);
    // A stage above reads through a Forwarder: no promise of the follow's own per event from now on.
    expect(reader).toBeInstanceOf(Forwarder);
    expect((reader as unknown as Forwarder).forwardsTo()).toBe(call.iterator);
    expect((await reader.next()).value).toBe(SECOND);
    // The bound passing now is a time-out as before: told as it is, the call ended.
    const timedOut = A2AError.upstreamTimedOut();
    expect(bound.passed(timedOut)).toBe(timedOut);
    bound.abort(timedOut);
    expect(abort).toHaveBeenCalledWith(timedOut);
    expect(bound.callerGone()).toBe(false);
    expect(turn.noted).toEqual(['timed out']);
    await reader.return?.();
    expect(call.returned).toBe(true);
    const end = vi.fn();
    bound.ended(end);
    expect(end).toHaveBeenCalledOnce();
  });

  it('that failed before any event is not followed: the bound ends it as before', async () => {
    const failure = new Error('connection refused');
    const call = agentCall(failure);
    const { bound, reader, abort, turn } = followedTurn(call);
    const read = reader.next();
    call.speak();
    await expect(read).rejects.toBe(failure);
    expect(bound.passed(A2AError.upstreamTimedOut())).not.toBe(NOT_STARTED);
    bound.abort('bound');
    expect(abort).toHaveBeenCalledWith('bound');
    expect(turn.noted).toEqual(['timed out']);
  });
});

describe('a turn whose bound passes before its first event', () => {
  it('answers its caller at once, reads the call on to its first event, then ends it; the turn ends after', async () => {
    const call = agentCall();
    const { bound, reader, abort, shutdown, onFollow, turn } = followedTurn(call);
    const read = reader.next();
    expect(bound.passed(A2AError.upstreamTimedOut())).toBe(NOT_STARTED);
    await expect(read).rejects.toBe(NOT_STARTED);
    expect(turn.noted).toEqual(['followed past the bound']);
    expect(onFollow).toHaveBeenCalledOnce();
    // boundSendTurn aborts with what passed() told, and the reply, ended, returns its events: neither ends the call.
    bound.abort(NOT_STARTED);
    await reader.return?.();
    expect(abort).not.toHaveBeenCalled();
    expect(call.returned).toBe(false);
    await expect(reader.next()).rejects.toBe(NOT_STARTED);
    const end = vi.fn();
    bound.ended(end);
    let drained = false;
    const drain = outlivingCallsEnded(shutdown).then(() => (drained = true));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(end).not.toHaveBeenCalled();
    expect(drained).toBe(false);
    call.speak();
    await drain;
    // The first event named the task (the turn's tracker below notes it), then the call was ended and read out.
    expect(abort).toHaveBeenCalledWith(NOT_STARTED);
    expect(call.returned).toBe(true);
    expect(end).toHaveBeenCalledOnce();
  });
});

describe('a turn whose caller hangs up before its first event', () => {
  it('is followed the same way: its reply ends with the hang-up, and nothing else ends the call', async () => {
    const call = agentCall();
    const { bound, reader, abort, shutdown, turn } = followedTurn(call);
    const read = reader.next();
    const gone = new DOMException('The client went away', 'AbortError');
    expect(bound.callerGone(gone)).toBe(true);
    await expect(read).rejects.toBe(gone);
    expect(bound.callerGone()).toBe(true);
    expect(turn.noted).toEqual(['followed after the hang-up']);
    bound.abort(gone);
    expect(abort).not.toHaveBeenCalled();
    const end = vi.fn();
    bound.ended(end);
    call.speak();
    await outlivingCallsEnded(shutdown);
    expect(abort).toHaveBeenCalledWith(gone);
    expect(end).toHaveBeenCalledOnce();
  });
});
