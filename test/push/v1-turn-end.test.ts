/** What a 1.0 receiver under `push-events: terminal` is pushed for a turn's end, read from a real memory registry. */
import { describe, expect, it } from 'vitest';
import { createMemoryTaskRegistry } from '../../src/core/task-registry/memory.js';
import type { StreamResponse, TaskState } from '../../src/model/index.js';
import { v1TurnEnd } from '../../src/push/v1-turn-end.js';

const META = { owner: 'alice', upstream: 'agent' };

const status = (state: TaskState): StreamResponse => ({ statusUpdate: { taskId: 'T', contextId: 'C', status: { state } } });

/** A task recorded as a streamed turn leaves it: the user's message, the reply in artifact chunks, then `end`. */
async function recordedTurn(end: TaskState) {
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
    status(end),
  ];
  for (const event of events) await registry.apply(event, META);
  return { registry, deps, settledFor };
}

const textOf = (event: StreamResponse): string =>
  'task' in event ? (event.task.artifacts ?? []).flatMap((artifact) => artifact.parts.map((part) => part.text ?? '')).join('') : '';

describe('v1TurnEnd', () => {
  it("a turn's bare end: the task recorded once it settled, with the reply and the update's state", async () => {
    const { deps, settledFor } = await recordedTurn('TASK_STATE_COMPLETED');
    const pushed = await v1TurnEnd(deps, 'T', 'alice', status('TASK_STATE_COMPLETED'));
    expect(settledFor).toEqual(['T']);
    expect(pushed).toMatchObject({ task: { id: 'T', contextId: 'C', status: { state: 'TASK_STATE_COMPLETED' } } });
    expect(textOf(pushed)).toBe('Made the VPC.');
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
