/**
 * An agent that mixes its tasks up may answer a caller's GetTask or CancelTask of its own task with another
 * caller's task, as it may a message (gateway-task-access.test.ts): the answer is -32006 on every method, and
 * nothing of the other caller's task is relayed or recorded. Before, only a message's answer and a stream's
 * events were checked; GetTask and CancelTask relayed the other caller's task as it came.
 */
import { describe, expect, it } from 'vitest';
import type { Task } from '../../src/model/index.js';
import { finishedTask, stubUpstream, userMessage } from '../support/gateway-stubs.js';
import { rejection } from '../support/rejection.js';
import { ALICE, BOB, setup } from './gateway-harness.js';

const ALICES_SECRET = 'secret of alice';

/** Alice's task T as the mixed-up agent answers it, whatever task it was asked about. */
const alicesTask = (): Task => ({
  ...finishedTask('T', 'C', 'TASK_STATE_CANCELED'),
  history: [{ messageId: 'a-1', role: 'ROLE_AGENT', parts: [{ text: ALICES_SECRET }] }],
});

describe("gateway: an agent that answers GetTask or CancelTask with another caller's task", () => {
  it('is -32006, and nothing of that task is relayed or recorded', async () => {
    let mixedUp = false;
    const upstream = stubUpstream({
      sendMessage: async (request) => ({ task: finishedTask(request.message.contextId === 'C' ? 'T' : 'B', request.message.contextId ?? 'D') }),
      getTask: async (request) => (mixedUp ? alicesTask() : finishedTask(request.id, request.id === 'T' ? 'C' : 'D')),
      cancelTask: async () => alicesTask(),
    });
    const { gateway, registry } = setup(upstream);
    await gateway.sendMessage({ message: userMessage({ contextId: 'C' }) }, ALICE);
    await gateway.sendMessage({ message: userMessage({ contextId: 'D' }) }, BOB);
    const alicesRecord = await registry.get('T', ALICE.principal);

    mixedUp = true;
    for (const call of [
      gateway.getTask({ id: 'B' }, BOB),
      gateway.getTask({ id: 'B', historyLength: 5 }, BOB),
      gateway.cancelTask({ id: 'B' }, BOB),
    ]) {
      const error = await rejection(call);
      expect(error).toMatchObject({ code: -32006, message: "The upstream agent answered with another caller's task" });
      expect(JSON.stringify(error)).not.toContain(ALICES_SECRET);
    }
    expect(await registry.get('T', ALICE.principal)).toEqual(alicesRecord);
    expect((await registry.get('B', BOB.principal))?.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
  });
});
