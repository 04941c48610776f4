/** What a 1.0 receiver under `push-events: terminal` is pushed for a turn's end, read from a real memory registry. */
import { describe, expect, it } from 'vitest';
import { createMemoryTaskRegistry } from '../../src/core/task-registry/memory.js';
import type { StreamResponse, TaskState } from '../../src/model/index.js';
import { v1TurnEnd } from '../../src/push/v1-turn-end.js';

const META = { owner: 'alice', upstream: 'agent' };

const status = (state: TaskState, timestamp?: string): StreamResponse => ({
  statusUpdate: { taskId: 'T', contextId: 'C', status: { state, ...(timestamp !== undefined ? { timestamp } : {}) } },
});

/** A task recorded as a streamed turn leaves it: the user's message, the reply in artifact chunks, then `end`. */
async function recordedTurn(end: TaskState, endedAt?: string) {
  const registry = createMemoryTaskRegistry({ maxTasks: 10, idleTtlMs: 60_000, historyLimit: 100 });
  const settledFor: string[] = [];
  const deps = {
    registry,
    settled: async (taskId: string) => {
      settledFor.push(taskId);
    },
  };
  const events: StreamResponse[] = [
    {
      task: {
        id: 'T',
        contextId: 'C',
        status: { state: 'TASK_STATE_SUBMITTED' },
        history: [{ messageId: 'u1', role: 'ROLE_USER', parts: [{ text: 'make a vpc' }] }],
      },
    },
    status('TASK_STATE_WORKING'),
    { artifactUpdate: { taskId: 'T', contextId: 'C', artifact: { artifactId: 'a', parts: [{ text: 'Made ' }] } } },
    { artifactUpdate: { taskId: 'T', contextId: 'C', append: true, artifact: { artifactId: 'a', parts: [{ text: 'the VPC.' }] } } },
    status(end, endedAt),
  ];
  for (const event of events) await registry.apply(event, META);
  return { registry, deps, settledFor };
}

const textOf = (event: StreamResponse): string =>
  'task' in event ? (event.task.artifacts ?? []).flatMap((artifact) => artifact.parts.map((part) => part.text ?? '')).join('') : '';

const AT_1 = '2026-12-06T00:00:01.000Z';
const AT_2 = '2026-12-06T00:00:02.000Z';

/** The recorded turn, then a second turn (the caller's `u2`, the reply in a status message) ending in the same state. */
async function secondTurnRecorded(end: TaskState, endedAt?: string) {
  const recorded = await recordedTurn(end, endedAt === undefined ? undefined : AT_1);
  const events: StreamResponse[] = [
    { message: { messageId: 'u2', role: 'ROLE_USER', taskId: 'T', parts: [{ text: 'now a subnet' }] } },
    {
      statusUpdate: {
        taskId: 'T',
        contextId: 'C',
        status: { state: 'TASK_STATE_WORKING', message: { messageId: 'a2', role: 'ROLE_AGENT', parts: [{ text: 'Made the subnet.' }] } },
      },
    },
    status(end, endedAt),
  ];
  for (const event of events) await recorded.registry.apply(event, META);
  return recorded;
}

describe('v1TurnEnd', () => {
  it("a turn's bare end, stamped: the task recorded once it settled, with the reply and the update's state", async () => {
    const { deps, settledFor } = await recordedTurn('TASK_STATE_COMPLETED', AT_1);
    const pushed = await v1TurnEnd(deps, 'T', 'alice', status('TASK_STATE_COMPLETED', AT_1));
    expect(settledFor).toEqual(['T']);
    expect(pushed).toMatchObject({ task: { id: 'T', contextId: 'C', status: { state: 'TASK_STATE_COMPLETED' } } });
    expect(textOf(pushed)).toBe('Made the VPC.');
  });

  it("a turn's bare end without a timestamp, on its send's stream: the task, the turn's message the caller's last", async () => {
    const { deps } = await recordedTurn('TASK_STATE_COMPLETED');
    const pushed = await v1TurnEnd(deps, 'T', 'alice', status('TASK_STATE_COMPLETED'), 'u1');
    expect(textOf(pushed)).toBe('Made the VPC.');
  });

  it("an unstamped end of a turn not known (a subscription's stream): the update as it is", async () => {
    const { deps } = await recordedTurn('TASK_STATE_COMPLETED');
    const update = status('TASK_STATE_COMPLETED');
    expect(await v1TurnEnd(deps, 'T', 'alice', update)).toBe(update);
  });

  describe("a turn's end read after the next turn ended in the same state (iac-code: input-required)", () => {
    it("stamped: the update as it is, not the later turn's Task", async () => {
      const { deps } = await secondTurnRecorded('TASK_STATE_INPUT_REQUIRED', AT_2);
      const update = status('TASK_STATE_INPUT_REQUIRED', AT_1);
      expect(await v1TurnEnd(deps, 'T', 'alice', update)).toBe(update);
    });

    it("unstamped, on its send's stream: the update as it is", async () => {
      const { deps } = await secondTurnRecorded('TASK_STATE_INPUT_REQUIRED');
      const update = status('TASK_STATE_INPUT_REQUIRED');
      expect(await v1TurnEnd(deps, 'T', 'alice', update, 'u1')).toBe(update);
    });

    it("the later turn's own end: its Task, with its words", async () => {
      const { deps } = await secondTurnRecorded('TASK_STATE_INPUT_REQUIRED', AT_2);
      const pushed = await v1TurnEnd(deps, 'T', 'alice', status('TASK_STATE_INPUT_REQUIRED', AT_2));
      expect(JSON.stringify(pushed)).toContain('Made the subnet.');
      const unstamped = await secondTurnRecorded('TASK_STATE_INPUT_REQUIRED');
      expect(JSON.stringify(await v1TurnEnd(unstamped.deps, 'T', 'alice', status('TASK_STATE_INPUT_REQUIRED'), 'u2'))).toContain('Made the subnet.');
    });
  });

  describe("a turn's end whose fold the record lacks (a write lost while Redis was out): the record holds the turn before, in the same state", () => {
    it("stamped: the update as it is, not the earlier turn's Task", async () => {
      const { deps } = await recordedTurn('TASK_STATE_INPUT_REQUIRED', AT_1);
      const update = status('TASK_STATE_INPUT_REQUIRED', AT_2);
      expect(await v1TurnEnd(deps, 'T', 'alice', update)).toBe(update);
    });

    it("unstamped, on its send's stream: the update as it is", async () => {
      const { deps } = await recordedTurn('TASK_STATE_INPUT_REQUIRED');
      const update = status('TASK_STATE_INPUT_REQUIRED');
      expect(await v1TurnEnd(deps, 'T', 'alice', update, 'u2')).toBe(update);
    });
  });

  it('a change read once the task moved on (a held change): the update as it is, not the later state', async () => {
    const { deps } = await recordedTurn('TASK_STATE_WORKING');
    const update = status('TASK_STATE_INPUT_REQUIRED');
    expect(await v1TurnEnd(deps, 'T', 'alice', update)).toBe(update);
  });

  it('a task the registry does not hold for that owner: the update as it is', async () => {
    const { deps } = await recordedTurn('TASK_STATE_COMPLETED');
    const update = status('TASK_STATE_COMPLETED');
    expect(await v1TurnEnd(deps, 'T', 'mallory', update)).toBe(update);
  });

  it('a Task is pushed as it is, without a registry read', async () => {
    const { deps, settledFor } = await recordedTurn('TASK_STATE_COMPLETED');
    const answer: StreamResponse = { task: { id: 'T', contextId: 'C', status: { state: 'TASK_STATE_COMPLETED' } } };
    expect(await v1TurnEnd(deps, 'T', 'alice', answer)).toBe(answer);
    expect(settledFor).toEqual([]);
  });
});
