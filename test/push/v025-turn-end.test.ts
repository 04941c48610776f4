/** What a 0.2.5 body is made of for a change, given the task the registry holds once the change settled. */
import { describe, expect, it } from 'vitest';
import type { StreamResponse, Task, TaskState } from '../../src/model/index.js';
import { v025Source } from '../../src/push/v025-turn-end.js';

const AT_1 = '2026-12-06T00:00:01.000Z';
const AT_2 = '2026-12-06T00:00:02.000Z';

/** The record once the caller's `u2` began the next turn and it ended `state` at AT_2, its reply in an artifact. */
const nextTurnRecorded = (state: TaskState): Task => ({
  id: 'T',
  contextId: 'C',
  status: { state, timestamp: AT_2 },
  history: [
    { messageId: 'u1', role: 'ROLE_USER', parts: [{ text: 'make a vpc' }] },
    { messageId: 'u2', role: 'ROLE_USER', parts: [{ text: 'now a subnet' }] },
  ],
  artifacts: [{ artifactId: 'a2', parts: [{ text: 'Made the subnet.' }] }],
});

const update = (state: TaskState, timestamp?: string): StreamResponse => ({
  statusUpdate: {
    taskId: 'T',
    contextId: 'C',
    status: { state, ...(timestamp !== undefined ? { timestamp } : {}) },
    metadata: { prompt: 'asked' },
  },
});

describe('v025Source', () => {
  it("the first turn's end read once the next one ended the same way: a Task of that end alone, not read as tasks/get", () => {
    const recorded = nextTurnRecorded('TASK_STATE_INPUT_REQUIRED');
    expect(v025Source(recorded, update('TASK_STATE_INPUT_REQUIRED', AT_1), true)).toEqual({
      task: { id: 'T', contextId: 'C', status: { state: 'TASK_STATE_INPUT_REQUIRED', timestamp: AT_1 }, metadata: { prompt: 'asked' } },
      asTasksGet: false,
    });
  });

  it("the first turn's blocking answer read once the next turn is at work: that answer as it came", () => {
    const answer: Task = { id: 'T', contextId: 'C', status: { state: 'TASK_STATE_INPUT_REQUIRED', timestamp: AT_1 } };
    expect(v025Source(nextTurnRecorded('TASK_STATE_WORKING'), { task: answer }, true, 'u1')).toEqual({ task: answer, asTasksGet: false });
  });

  it("a turn's end the record holds (stamped, or unstamped with the turn's message the caller's last): the record, as tasks/get", () => {
    const recorded = nextTurnRecorded('TASK_STATE_INPUT_REQUIRED');
    expect(v025Source(recorded, update('TASK_STATE_INPUT_REQUIRED', AT_2), true)).toEqual({ task: recorded, asTasksGet: true });
    const unstamped = { ...recorded, status: { state: 'TASK_STATE_COMPLETED' as const } };
    expect(v025Source(unstamped, update('TASK_STATE_COMPLETED'), true, 'u2')).toEqual({ task: unstamped, asTasksGet: true });
    expect(v025Source(unstamped, update('TASK_STATE_COMPLETED'), true, 'u1')?.asTasksGet).toBe(false);
  });

  it('a change before the turn ends (push-events: all): the record, whatever turn it holds', () => {
    const recorded = nextTurnRecorded('TASK_STATE_WORKING');
    expect(v025Source(recorded, update('TASK_STATE_WORKING', AT_1), false)).toEqual({ task: recorded, asTasksGet: true });
  });

  it('a task the registry does not hold: a Task as it came, through the facade; a status update not at all', () => {
    const answer: Task = { id: 'T', status: { state: 'TASK_STATE_COMPLETED' } };
    expect(v025Source(undefined, { task: answer }, true)).toEqual({ task: answer, asTasksGet: true });
    expect(v025Source(undefined, update('TASK_STATE_COMPLETED', AT_1), true)).toBeUndefined();
  });
});
