import { describe, expect, it } from 'vitest';
import { openingFollowUpsWithRecord } from '../../src/core/follow-up-task.js';
import type { StreamResponse, Task } from '../../src/model/index.js';
import { collect } from '../support/collect.js';
import { ctxOf, statusFrame, stubUpstream, taskFrame, userMessage } from '../support/gateway-stubs.js';

const question = { messageId: 'q', role: 'ROLE_AGENT' as const, parts: [{ text: 'Which region?' }] };
const opening = userMessage({ text: 'make vpc', taskId: 't-1', contextId: 'c-1' });
const recorded: Task = {
  id: 't-1',
  contextId: 'c-1',
  status: { state: 'TASK_STATE_INPUT_REQUIRED', message: question },
  history: [opening],
  artifacts: [{ artifactId: 'a-1', parts: [{ text: 'plan' }] }],
};

/** What a follow-up's stream relays when the agent opens it with `first`, the registry answering `get`. */
async function relayed(first: StreamResponse, get: () => Promise<Task | undefined> = async () => recorded, taskId = 't-1') {
  const agent = stubUpstream({
    async *sendStreamingMessage() {
      yield first;
      yield statusFrame('t-1', 'c-1', 'TASK_STATE_WORKING');
    },
  });
  const followUp = userMessage({ text: 'north', ...(taskId ? { taskId } : {}) });
  const events = await collect(openingFollowUpsWithRecord(agent, { get }).sendStreamingMessage({ message: followUp }, ctxOf('alice')));
  return { events, followUp };
}

describe('openingFollowUpsWithRecord', () => {
  it("a bare opening Task becomes the recorded task: the question, then the follow-up, in its history; the agent's status", async () => {
    const bare: StreamResponse = { task: { id: 't-1', contextId: 'c-1', status: { state: 'TASK_STATE_WORKING' } } };
    const { events, followUp } = await relayed(bare);
    expect(events[0]).toEqual({
      task: { ...recorded, status: { state: 'TASK_STATE_WORKING' }, history: [opening, question, { ...followUp, contextId: 'c-1' }] },
    });
    expect(events).toHaveLength(2);
  });

  it("leaves an opening Task that tells the task's past, an update first, a new task's stream, and an unreadable record as they are", async () => {
    const told = taskFrame('t-1', 'c-1', [opening]);
    expect((await relayed(told)).events[0]).toBe(told);
    const update = statusFrame('t-1', 'c-1', 'TASK_STATE_WORKING');
    expect((await relayed(update)).events[0]).toBe(update);
    const bare: StreamResponse = { task: { id: 't-1', contextId: 'c-1', status: { state: 'TASK_STATE_WORKING' } } };
    expect((await relayed(bare, async () => recorded, '')).events[0]).toBe(bare);
    expect((await relayed(bare, () => Promise.reject(new Error('redis down')))).events[0]).toBe(bare);
  });
});
