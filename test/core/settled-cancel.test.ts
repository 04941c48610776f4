/** The answer to CancelTask once the cancel settled: CANCELED, or TaskNotCancelable as a2a-js 1.x answers. */
import { describe, expect, it, vi } from 'vitest';
import { A2AError, type Task, type TaskState } from '../../src/model/index.js';
import { settledCancel } from '../../src/core/settled-cancel.js';
import { rejection } from '../support/rejection.js';

const task = (state: TaskState): Task => ({ id: 't-1', contextId: 'c-1', status: { state } });
/** Reads `states` in turn, the last one again once they run out. */
const reads = (...states: TaskState[]) => vi.fn(async () => task(states.length > 1 ? states.shift()! : states[0]!));
const signal = new AbortController().signal;

describe('settledCancel', () => {
  it('an answer CANCELED is the answer, the task not read again', async () => {
    const read = reads('TASK_STATE_WORKING');
    expect(await settledCancel(task('TASK_STATE_CANCELED'), read, signal)).toEqual(task('TASK_STATE_CANCELED'));
    expect(read).not.toHaveBeenCalled();
  });

  it('an answer still WORKING is followed until the task is CANCELED', async () => {
    const read = reads('TASK_STATE_WORKING', 'TASK_STATE_CANCELED');
    expect((await settledCancel(task('TASK_STATE_WORKING'), read, signal)).status.state).toBe('TASK_STATE_CANCELED');
    expect(read).toHaveBeenCalledTimes(2);
  });

  it('a task that ended otherwise, answered or read so, is not cancelable (-32002)', async () => {
    expect(await rejection(settledCancel(task('TASK_STATE_COMPLETED'), reads('TASK_STATE_COMPLETED'), signal))).toMatchObject({ code: -32002 });
    expect(await rejection(settledCancel(task('TASK_STATE_WORKING'), reads('TASK_STATE_FAILED'), signal))).toMatchObject({ code: -32002 });
  });

  it('a task still running at the bound is not cancelable; an interrupted one is followed too', async () => {
    const started = Date.now();
    const read = reads('TASK_STATE_INPUT_REQUIRED');
    expect(await rejection(settledCancel(task('TASK_STATE_INPUT_REQUIRED'), read, signal, 300))).toMatchObject({ code: -32002 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(read.mock.calls.length).toBeGreaterThanOrEqual(2);
  });

  it('the caller leaving ends the follow with its reason', async () => {
    const leaving = new AbortController();
    const following = settledCancel(task('TASK_STATE_WORKING'), reads('TASK_STATE_WORKING'), leaving.signal);
    const reason = A2AError.internal('caller left');
    leaving.abort(reason);
    expect(await rejection(following)).toBe(reason);
  });
});
