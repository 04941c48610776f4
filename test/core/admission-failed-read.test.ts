/**
 * A message whose admission fails after it took its context's lane (the registry's read of the context's latest task
 * failing: a Redis blip) lets the lane go: the conversation's next message is let in, not refused as a turn in progress
 * for as long as the process lives.
 */
import { describe, expect, it } from 'vitest';
import { createMemoryTaskRegistry } from '../../src/core/task-registry/memory.js';
import { A2AError, GATEWAY_FAILURES } from '../../src/model/index.js';
import { collect } from '../support/collect.js';
import { statusFrame, stubUpstream, taskFrame, userMessage } from '../support/gateway-stubs.js';
import { rejection } from '../support/rejection.js';
import { ALICE, setup } from './gateway-harness.js';

describe("a message whose admission failed once the context's lane was taken", () => {
  it("lets the lane go: the conversation's next message is let in", async () => {
    const memory = createMemoryTaskRegistry({ maxTasks: 100, idleTtlMs: 60_000, historyLimit: 100 });
    let failing = true;
    const registry = {
      ...memory,
      latestInContext: (contextId: string, owner: string) =>
        failing ? Promise.reject(A2AError.registryOutOfReach()) : memory.latestInContext(contextId, owner),
    };
    const upstream = stubUpstream({
      async *sendStreamingMessage(request) {
        yield taskFrame('t-1', 'c-1', [request.message]);
        yield statusFrame('t-1', 'c-1', 'TASK_STATE_INPUT_REQUIRED', 'Which region?');
      },
    });
    const { gateway } = setup(upstream, { registry });
    const failed = await rejection(collect(gateway.sendStreamingMessage({ message: userMessage({ contextId: 'c-1' }) }, ALICE)));
    expect(failed.message).toBe(GATEWAY_FAILURES.registryOutOfReach);
    failing = false;
    const events = await collect(gateway.sendStreamingMessage({ message: userMessage({ contextId: 'c-1' }) }, ALICE));
    expect(events.map((event) => ('task' in event ? 'task' : 'statusUpdate' in event ? event.statusUpdate.status.state : 'other'))).toEqual([
      'task',
      'TASK_STATE_INPUT_REQUIRED',
    ]);
  });
});
