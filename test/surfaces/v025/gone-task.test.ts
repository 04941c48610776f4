import { describe, expect, it } from 'vitest';
import { A2AError, type SendMessageRequest, type StreamResponse } from '../../../src/model/index.js';
import { inNewTaskIfGone, isGoneTask } from '../../../src/surfaces/v025/gone-task.js';
import { collect } from '../../support/collect.js';

const request: SendMessageRequest = { message: { messageId: 'm', role: 'ROLE_USER', contextId: 'C', taskId: 'OLD', parts: [{ text: 'hi' }] } };
const answer: StreamResponse = { task: { id: 'NEW', contextId: 'C', status: { state: 'TASK_STATE_COMPLETED' } } };

describe('a follow-up the agent refuses because it no longer has the task', () => {
  it('knows the refusals of the agents it meets, and nothing else', () => {
    expect(isGoneTask(A2AError.taskNotFound('OLD'), 'OLD')).toBe(true);
    expect(isGoneTask(new A2AError(-32004, 'Task OLD is in a terminal state (3) and cannot be modified.'), 'OLD')).toBe(true);
    expect(isGoneTask(new A2AError(-32600, 'Task OLD is in a terminal state (completed) and cannot be modified.'), 'OLD')).toBe(true);
    expect(isGoneTask(new A2AError(-32602, 'Task OLD is in terminal state: 3'), 'OLD')).toBe(true);
    expect(isGoneTask(new A2AError(-32603, 'Internal error'), 'OLD')).toBe(false);
    expect(isGoneTask(new Error('Task not found'), 'OLD')).toBe(false);
    // A finished task that is not the one aimed at, or a failure that only mentions terminal states, is the turn's.
    expect(isGoneTask(new A2AError(-32602, 'Task OTHER is in terminal state: 3'), 'OLD')).toBe(false);
    expect(isGoneTask(new A2AError(-32603, 'Task OLD: a tool crashed in terminal state handling'), 'OLD')).toBe(false);
    expect(isGoneTask(new A2AError(-32005, 'Task OLD is in a terminal state; push is not supported'), 'OLD')).toBe(false);
  });

  it("goes on in a new task of the same context; any other failure is the turn's", async () => {
    const sent: SendMessageRequest[] = [];
    const run = (failure: A2AError) =>
      async function* (asked: SendMessageRequest): AsyncGenerator<StreamResponse> {
        sent.push(asked);
        if (asked.message.taskId) throw failure;
        yield answer;
      };
    expect(await collect(inNewTaskIfGone(request, run(A2AError.taskNotFound('OLD'))))).toEqual([answer]);
    expect(sent.map((asked) => [asked.message.taskId, asked.message.contextId])).toEqual([
      ['OLD', 'C'],
      [undefined, 'C'],
    ]);
    await expect(collect(inNewTaskIfGone(request, run(A2AError.internal())))).rejects.toMatchObject({ code: -32603 });
  });
});
