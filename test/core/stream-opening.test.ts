import { describe, expect, it } from 'vitest';
import { streamsOpeningWithTask } from '../../src/core/stream-opening.js';
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

/** What a stream relays when the agent opens it with `first`, the registry answering `get`; a follow-up of `taskId` unless ''. */
async function relayed(first: StreamResponse, get: () => Promise<Task | undefined> = async () => recorded, taskId = 't-1') {
  const agent = stubUpstream({
    async *sendStreamingMessage() {
      yield first;
      yield statusFrame('t-1', 'c-1', 'TASK_STATE_WORKING');
    },
  });
  const followUp = userMessage({ text: 'north', ...(taskId ? { taskId } : {}) });
  const events = await collect(streamsOpeningWithTask(agent, { get }).sendStreamingMessage({ message: followUp }, ctxOf('alice')));
  return { events, followUp };
}

const submittedAt = (update: StreamResponse) => ({
  state: 'TASK_STATE_SUBMITTED',
  timestamp: 'statusUpdate' in update ? update.statusUpdate.status.timestamp : undefined,
});

describe('streamsOpeningWithTask', () => {
  it("a follow-up's bare opening Task becomes the recorded task: the question, then the follow-up, in its history; the agent's status", async () => {
    const bare: StreamResponse = { task: { id: 't-1', contextId: 'c-1', status: { state: 'TASK_STATE_WORKING' } } };
    const { events, followUp } = await relayed(bare);
    expect(events[0]).toEqual({
      task: { ...recorded, status: { state: 'TASK_STATE_WORKING' }, history: [opening, question, { ...followUp, contextId: 'c-1' }] },
    });
    expect(events).toHaveLength(2);
  });

  it("a follow-up's stream that opens with an update (iac-code's) opens with the recorded task, SUBMITTED at the update's time, the update next", async () => {
    const update = statusFrame('t-1', 'c-1', 'TASK_STATE_SUBMITTED');
    const { events, followUp } = await relayed(update);
    expect(events[0]).toEqual({
      task: { ...recorded, status: submittedAt(update), history: [opening, question, { ...followUp, contextId: 'c-1' }] },
    });
    expect(events[1]).toBe(update);
    expect(events).toHaveLength(3);
  });

  it('an update first with nothing recorded, or in a new task, gets a Task of its ids in front, SUBMITTED at its time', async () => {
    const update = statusFrame('t-1', 'c-1', 'TASK_STATE_WORKING', 'On it.');
    const expected = { task: { id: 't-1', contextId: 'c-1', status: submittedAt(update) } };
    expect((await relayed(update, async () => undefined)).events.slice(0, 2)).toEqual([expected, update]);
    expect((await relayed(update, async () => recorded, '')).events.slice(0, 2)).toEqual([expected, update]);
  });

  it("leaves an opening Task that tells the task's past, a new task's Task, a Message and, with an unreadable record, an update as they are", async () => {
    const told = taskFrame('t-1', 'c-1', [opening]);
    expect((await relayed(told)).events[0]).toBe(told);
    const bare: StreamResponse = { task: { id: 't-1', contextId: 'c-1', status: { state: 'TASK_STATE_WORKING' } } };
    expect((await relayed(bare, async () => recorded, '')).events[0]).toBe(bare);
    const answer: StreamResponse = { message: { messageId: 'm', role: 'ROLE_AGENT', parts: [{ text: 'hi' }] } };
    expect((await relayed(answer)).events[0]).toBe(answer);
    expect((await relayed(bare, () => Promise.reject(new Error('redis down')))).events[0]).toBe(bare);
    const update = statusFrame('t-1', 'c-1', 'TASK_STATE_SUBMITTED');
    expect((await relayed(update, () => Promise.reject(new Error('redis down')))).events[0]).toBe(update);
  });
});
