/** The A2A-Event-Id every replica derives alike for one status change, and when there is none to derive. */
import { describe, expect, it } from 'vitest';
import type { StreamResponse, TaskState, TaskStatus } from '../../src/model/index.js';
import { instanceEventId, stableEventId } from '../../src/push/event-id.js';

const T1 = '2026-11-29T11:25:08.861112Z';
const T2 = '2026-11-29T11:25:09.000001Z';

const status = (state: TaskState, timestamp?: string, messageId?: string): TaskStatus => ({
  state,
  ...(timestamp ? { timestamp } : {}),
  ...(messageId ? { message: { messageId, role: 'ROLE_AGENT' as const, parts: [{ text: 'Which region?' }] } } : {}),
});
const update = (value: TaskStatus, taskId = 'T'): StreamResponse => ({ statusUpdate: { taskId, contextId: 'C', status: value } });
const snapshot = (value: TaskStatus, taskId = 'T'): StreamResponse => ({ task: { id: taskId, contextId: 'C', status: value, artifacts: [] } });

describe('stableEventId', () => {
  it('is the same for the same change, whether a stream relays the update or a follow reads the Task', () => {
    const id = stableEventId('T', update(status('TASK_STATE_INPUT_REQUIRED', T1, 'm-1')));
    expect(id).toMatch(/^T:[0-9a-f]{32}$/);
    expect(stableEventId('T', update(status('TASK_STATE_INPUT_REQUIRED', T1, 'm-1')))).toBe(id);
    expect(stableEventId('T', snapshot(status('TASK_STATE_INPUT_REQUIRED', T1, 'm-1')))).toBe(id);
  });

  it('differs when the state, the timestamp, the status message or the task differs', () => {
    const ids = [
      stableEventId('T', update(status('TASK_STATE_INPUT_REQUIRED', T1))),
      stableEventId('T', update(status('TASK_STATE_COMPLETED', T1))),
      stableEventId('T', update(status('TASK_STATE_INPUT_REQUIRED', T2))),
      stableEventId('T', update(status('TASK_STATE_INPUT_REQUIRED', T1, 'm-1'))),
      stableEventId('T', update(status('TASK_STATE_INPUT_REQUIRED', T1, 'm-2'))),
      stableEventId('U', update(status('TASK_STATE_INPUT_REQUIRED', T1), 'U')),
    ];
    expect(ids.every((id) => id !== undefined)).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('keeps the task id as the prefix, which a 0.2.5 receiver has swapped for the caller-chosen id', () => {
    const id = stableEventId('upstream-1', update(status('TASK_STATE_COMPLETED', T1), 'upstream-1'))!;
    expect(id.startsWith('upstream-1:')).toBe(true);
    expect(id.slice('upstream-1'.length)).toMatch(/^:[0-9a-f]{32}$/);
  });

  it('names a Task of a turn under way by its artifacts too: a take-over reads in it the text streamed meanwhile', () => {
    const withText = (value: TaskStatus, text: string): StreamResponse => ({
      task: { id: 'T', contextId: 'C', status: value, artifacts: [{ artifactId: 'a', parts: [{ text }] }] },
    });
    const working = status('TASK_STATE_WORKING', T1);
    const id = stableEventId('T', withText(working, 'SDK echo'));
    expect(id).not.toBe(stableEventId('T', update(working)));
    expect(id).not.toBe(stableEventId('T', snapshot(working)));
    expect(id).not.toBe(stableEventId('T', withText(working, 'SDK echo (turn 1)')));
    // Read twice, by a restarted process or another replica: one id.
    expect(stableEventId('T', withText(working, 'SDK echo'))).toBe(id);
    // A Task ending the turn names the same change as the statusUpdate another replica relays.
    const completed = status('TASK_STATE_COMPLETED', T2);
    expect(stableEventId('T', withText(completed, 'SDK echo'))).toBe(stableEventId('T', update(completed)));
  });

  it('is undefined without a status timestamp, and for artifact updates and messages', () => {
    expect(stableEventId('T', update(status('TASK_STATE_INPUT_REQUIRED')))).toBeUndefined();
    expect(stableEventId('T', update(status('TASK_STATE_INPUT_REQUIRED', undefined, 'm-1')))).toBeUndefined();
    expect(stableEventId('T', snapshot(status('TASK_STATE_COMPLETED')))).toBeUndefined();
    expect(
      stableEventId('T', { artifactUpdate: { taskId: 'T', contextId: 'C', artifact: { artifactId: 'a', parts: [{ text: 'x' }] } } }),
    ).toBeUndefined();
    expect(stableEventId('T', { message: { messageId: 'm', role: 'ROLE_AGENT', parts: [{ text: 'hi' }] } })).toBeUndefined();
  });
});

describe('instanceEventId', () => {
  it('is the per-process fallback: task id, instance and sequence', () => {
    expect(instanceEventId('T', 'a1b2c3', 7)).toBe('T:a1b2c3-7');
    expect(instanceEventId('T', 'a1b2c3', 8)).not.toBe(instanceEventId('T', 'a1b2c3', 7));
  });
});
