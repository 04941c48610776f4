/**
 * The Task a SubscribeToTask opens with, of a task recorded as the caller's, is shown as GetTask answers it
 * (recording.ts: recordAnswer): an agent that leaves the caller's opening message out of its stored Task (iac-code,
 * the demo agent) opens the subscription without it, and the caller read it there without its own message, where
 * GetTask showed it. The message is the record's, redacted as recorded; the record itself is what it was.
 */
import { describe, expect, it } from 'vitest';
import type { Message, StreamResponse, Task } from '../../src/model/index.js';
import { collect } from '../support/collect.js';
import { statusFrame, stubUpstream, userMessage } from '../support/gateway-stubs.js';
import { ALICE, setup } from './gateway-harness.js';

const API_KEY = 'sk-live-123456789';
const reply: Message = { messageId: 'T-message', role: 'ROLE_AGENT', taskId: 'T', contextId: 'C', parts: [{ text: 'Planning. ' }] };
/** The agent's Task: running, its reply so far, the caller's opening message left out. */
const agentsTask = (id = 'T', history: Message[] = [reply]): Task => ({ id, contextId: 'C', status: { state: 'TASK_STATE_WORKING' }, history });

function agent() {
  return stubUpstream({
    sendMessage: async () => ({ task: agentsTask('T', []) }),
    getTask: async (request) => agentsTask(request.id),
    async *subscribeToTask(request) {
      yield { task: agentsTask(request.id) };
      yield statusFrame(request.id, 'C', 'TASK_STATE_COMPLETED', 'Done.');
    },
  });
}

const openingTask = (events: StreamResponse[]): Task => {
  const first = events[0];
  if (!first || !('task' in first)) throw new Error(`a subscription opens with a Task, not ${JSON.stringify(first)}`);
  return first.task;
};
const texts = (task: Task | undefined): string[] => (task?.history ?? []).map((message) => message.parts[0]?.text ?? '');

describe("a subscription's opening Task", () => {
  it("holds the caller's opening message, redacted as recorded, as GetTask answers it", async () => {
    const { gateway, registry } = setup(agent());
    const opening = userMessage({ contextId: 'C', text: 'template: a VPC', metadata: { iac_code: { iac_code_api_key: API_KEY } } });
    await gateway.sendMessage({ message: opening }, ALICE);
    const got = await gateway.getTask({ id: 'T' }, ALICE);
    const recorded = await registry.get('T', ALICE.principal);

    const events = await collect(gateway.subscribeToTask({ id: 'T' }, ALICE));
    expect(texts(openingTask(events))).toEqual(['template: a VPC', 'Planning. ']);
    expect(openingTask(events).history).toEqual(got.history);
    expect(openingTask(events).history?.[0]?.metadata).toEqual({ iac_code: { iac_code_api_key: '[REDACTED]' } });
    expect(JSON.stringify(events)).not.toContain(API_KEY);
    // The record folds the agent's Task as it did: the same history, the turn ended.
    const after = await registry.get('T', ALICE.principal);
    expect(after?.history).toEqual(recorded?.history);
    expect(after?.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it("is the agent's own of a task the registry does not know", async () => {
    const { gateway } = setup(agent());
    const events = await collect(gateway.subscribeToTask({ id: 'X' }, ALICE));
    expect(openingTask(events)).toEqual(agentsTask('X'));
  });
});
