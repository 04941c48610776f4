/**
 * The answer to a non-blocking follow-up a non-streaming 0.2.5/0.3 agent failed: the task, only when the agent's
 * own InternalError came with the task moved on; any other failure stays as it was.
 */
import { describe, expect, it, vi } from 'vitest';
import { A2AError, ErrorCode, type Task } from '../../../src/model/index.js';
import { fromTransportError } from '../../../src/upstream/upstream-errors.js';
import { followUpAnsweredByTask } from '../../../src/upstream/v025/unstreamed-follow-up.js';
import { rejection } from '../../support/rejection.js';

const asking: Task = { id: 't-1', contextId: 'c-1', status: { state: 'TASK_STATE_INPUT_REQUIRED', timestamp: '2026-12-05T10:00:00.000Z' } };
const done: Task = { id: 't-1', contextId: 'c-1', status: { state: 'TASK_STATE_COMPLETED', timestamp: '2026-12-05T10:00:02.000Z' } };
const agentsError = (): A2AError => new A2AError(ErrorCode.Internal, 'Execution finished before a message or task was produced.');

/** Reads `tasks` in turn, the last one again once they run out. */
function reads(...tasks: Task[]) {
  return vi.fn(async () => (tasks.length > 1 ? tasks.shift()! : tasks[0]!));
}

describe('followUpAnsweredByTask', () => {
  it('the send answered: its answer, after one read', async () => {
    const readTask = reads(asking);
    expect(await followUpAnsweredByTask(async () => ({ task: done }), readTask, new AbortController().signal)).toEqual({ task: done });
    expect(readTask).toHaveBeenCalledTimes(1);
  });

  it("the agent's InternalError with the task moved on: the task as it now stands", async () => {
    const answer = followUpAnsweredByTask(() => Promise.reject(agentsError()), reads(asking, done), new AbortController().signal);
    expect(await answer).toEqual({ task: done });
  });

  it("the agent's InternalError with the task as it was: the failure", async () => {
    const failure = agentsError();
    expect(await rejection(followUpAnsweredByTask(() => Promise.reject(failure), reads(asking, asking), new AbortController().signal))).toBe(failure);
  });

  it('a transport failure, another code, or a caller gone: the failure, the task not read again', async () => {
    const left = new AbortController();
    left.abort();
    const cases: Array<[A2AError, AbortSignal]> = [
      [fromTransportError(new Error('socket hang up'), { timedOut: true }), new AbortController().signal],
      [new A2AError(ErrorCode.InvalidRequest, 'terminal'), new AbortController().signal],
      [A2AError.internal('Upstream call aborted'), left.signal],
    ];
    for (const [failure, signal] of cases) {
      const readTask = reads(asking, done);
      expect(await rejection(followUpAnsweredByTask(() => Promise.reject(failure), readTask, signal))).toBe(failure);
      expect(readTask).toHaveBeenCalledTimes(1);
    }
  });
});
