import { describe, expect, it } from 'vitest';
import type { StreamResponse, TaskStatus } from '../../../src/model/index.js';
import { eventRefusal, refusalOf } from '../../../src/upstream/iac-code/expiry.js';

const said = (state: string, ...texts: string[]): TaskStatus =>
  ({ state, message: { messageId: 'm', role: 'ROLE_AGENT', parts: texts.map((text) => ({ text })) } }) as TaskStatus;

describe("iac-code's refusals of a turn before it did anything", () => {
  it('reads its three reasons, with or without the class name, on a FAILED status only', () => {
    expect(refusalOf(said('TASK_STATE_FAILED', 'A2A task expired'))).toBe('task');
    expect(refusalOf(said('TASK_STATE_FAILED', 'ValueError: A2A task expired'))).toBe('task');
    expect(refusalOf(said('TASK_STATE_FAILED', 'ValueError: A2A context expired'))).toBe('context');
    expect(refusalOf(said('TASK_STATE_FAILED', 'A2A context expired'))).toBe('context');
    expect(refusalOf(said('TASK_STATE_FAILED', 'ValueError: A2A context belongs to a different workspace'))).toBe('workspace');
    expect(refusalOf(said('TASK_STATE_FAILED', 'A2A context belongs to a different workspace.'))).toBe('workspace');
    expect(refusalOf(said('TASK_STATE_INPUT_REQUIRED', 'A2A task expired'))).toBeUndefined();
    expect(refusalOf({ state: 'TASK_STATE_FAILED' })).toBeUndefined();
  });

  it("never takes the agent's own words for them", () => {
    expect(refusalOf(said('TASK_STATE_FAILED', 'Your A2A task expired, sorry'))).toBeUndefined();
    expect(refusalOf(said('TASK_STATE_FAILED', 'The certificate expired'))).toBeUndefined();
    expect(refusalOf(said('TASK_STATE_FAILED', 'main.tf belongs to a different workspace'))).toBeUndefined();
    expect(refusalOf(said('TASK_STATE_FAILED', 'A2A task expired', ' and more'))).toBeUndefined();
  });

  it('of the task asked about only, when one is named', () => {
    const update = { statusUpdate: { taskId: 'T', contextId: 'C', status: said('TASK_STATE_FAILED', 'A2A task expired') } } as StreamResponse;
    expect(eventRefusal(update, 'T')).toBe('task');
    expect(eventRefusal(update, 'OTHER')).toBeUndefined();
    expect(eventRefusal(update, undefined)).toBe('task');
    const task = { task: { id: 'T', contextId: 'C', status: said('TASK_STATE_FAILED', 'ValueError: A2A context expired') } } as StreamResponse;
    expect(eventRefusal(task, 'T')).toBe('context');
  });
});
