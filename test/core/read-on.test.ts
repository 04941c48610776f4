/**
 * Which breaks of a turn's own stream end the turn (recording.ts records it failed): the agent's own error before the
 * turn's end (endsTheTurn, createTurnWatch), not a connection lost or gone quiet, the gateway's own failures, the
 * caller gone, or a break after the turn ended or paused.
 */
import { describe, expect, it } from 'vitest';
import { A2AError, ErrorCode, type StreamResponse, type TaskState } from '../../src/model/index.js';
import { createTurnWatch, endsTheTurn } from '../../src/core/read-on.js';

const ids = { taskId: 't-1', contextId: 'c-1' };
const opening: StreamResponse = { task: { id: ids.taskId, contextId: ids.contextId, status: { state: 'TASK_STATE_SUBMITTED' } } };
const status = (state: TaskState): StreamResponse => ({ statusUpdate: { ...ids, status: { state } } });
const AGENTS_OWN = new A2AError(ErrorCode.UnsupportedOperation, 'Stream ordering violation: received task in task lifecycle stream.');
const calling = (): AbortSignal => new AbortController().signal;

/** The failed update a stream that said `events` and broke with `error` makes, or undefined. */
function failedAfter(events: StreamResponse[], error: unknown, signal = calling()): StreamResponse | undefined {
  const turn = createTurnWatch();
  events.forEach((event) => turn.saw(event));
  return endsTheTurn(error, signal) ? turn.failedBy(error) : undefined;
}

describe('a turn stream the agent breaks off', () => {
  it('with its own error mid-turn: the task failed with its words', () => {
    expect(failedAfter([opening, status('TASK_STATE_WORKING')], AGENTS_OWN)).toMatchObject({
      statusUpdate: { ...ids, status: { state: 'TASK_STATE_FAILED', message: { role: 'ROLE_AGENT', parts: [{ text: AGENTS_OWN.message }] } } },
    });
  });

  it.each([
    ['a connection lost', A2AError.upstreamConnectionLost()],
    ['the agent unreachable', A2AError.upstreamUnavailable()],
    ['a call timed out', A2AError.upstreamTimedOut()],
    ['the gateway stopping', A2AError.shuttingDown()],
    ["the gateway's refusal of what the agent sent", A2AError.invalidAgentResponse('The upstream agent returned an invalid stream event')],
    ["the gateway's own failure", A2AError.internal()],
    ['something not an A2A error', new Error('socket hang up')],
  ])('by %s: not ended (the agent may run the turn on)', (_, error) => {
    expect(failedAfter([opening, status('TASK_STATE_WORKING')], error)).toBeUndefined();
  });

  it('after its caller left: not ended', () => {
    const left = new AbortController();
    left.abort();
    expect(failedAfter([opening, status('TASK_STATE_WORKING')], AGENTS_OWN, left.signal)).toBeUndefined();
  });

  it('after the turn paused for its caller or ended, or before any task: not ended', () => {
    expect(failedAfter([opening, status('TASK_STATE_INPUT_REQUIRED')], AGENTS_OWN)).toBeUndefined();
    expect(failedAfter([opening, status('TASK_STATE_COMPLETED')], AGENTS_OWN)).toBeUndefined();
    expect(failedAfter([], AGENTS_OWN)).toBeUndefined();
  });
});
