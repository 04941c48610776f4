import { describe, expect, it } from 'vitest';
import type { StreamResponse, TaskStatus } from '../../../src/model/index.js';
import { eventExpiry, expiryOf } from '../../../src/upstream/iac-code/expiry.js';

const said = (state: string, ...texts: string[]): TaskStatus =>
  ({ state, message: { messageId: 'm', role: 'ROLE_AGENT', parts: texts.map((text) => ({ text })) } }) as TaskStatus;

describe("iac-code's failures for what it evicted", () => {
  it('reads its two reasons, with or without the class name, on a FAILED status only', () => {
    expect(expiryOf(said('TASK_STATE_FAILED', 'A2A task expired'))).toBe('task');
    expect(expiryOf(said('TASK_STATE_FAILED', 'ValueError: A2A task expired'))).toBe('task');
    expect(expiryOf(said('TASK_STATE_FAILED', 'ValueError: A2A context expired'))).toBe('context');
    expect(expiryOf(said('TASK_STATE_FAILED', 'A2A context expired'))).toBe('context');
    expect(expiryOf(said('TASK_STATE_INPUT_REQUIRED', 'A2A task expired'))).toBeUndefined();
    expect(expiryOf({ state: 'TASK_STATE_FAILED' })).toBeUndefined();
  });

  it("never takes the agent's own words for them", () => {
    expect(expiryOf(said('TASK_STATE_FAILED', 'Your A2A task expired, sorry'))).toBeUndefined();
    expect(expiryOf(said('TASK_STATE_FAILED', 'The certificate expired'))).toBeUndefined();
    expect(expiryOf(said('TASK_STATE_FAILED', 'A2A task expired', ' and more'))).toBeUndefined();
  });

  it('of the task asked about only, when one is named', () => {
    const update = { statusUpdate: { taskId: 'T', contextId: 'C', status: said('TASK_STATE_FAILED', 'A2A task expired') } } as StreamResponse;
    expect(eventExpiry(update, 'T')).toBe('task');
    expect(eventExpiry(update, 'OTHER')).toBeUndefined();
    expect(eventExpiry(update, undefined)).toBe('task');
    const task = { task: { id: 'T', contextId: 'C', status: said('TASK_STATE_FAILED', 'ValueError: A2A context expired') } } as StreamResponse;
    expect(eventExpiry(task, 'T')).toBe('context');
  });
});
