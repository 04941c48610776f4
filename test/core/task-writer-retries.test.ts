/**
 * The task writer's failed writes (task-writer.ts): tried again, ahead of the task's later writes, and logged lost
 * once, without their words, when every attempt failed. The registry is the memory store behind a fault: what a
 * Redis blip does to a write (test/e2e/hardening/registry-write-blip.test.ts runs it against a real Redis).
 */
import { describe, expect, it } from 'vitest';
import type { StreamResponse } from '../../src/model/index.js';
import { createTaskWriter } from '../../src/core/task-writer.js';
import { createMemoryTaskRegistry } from '../../src/core/task-registry/memory.js';
import type { TaskRegistry } from '../../src/core/task-registry/types.js';
import { capturedLog } from '../support/captured-log.js';
import { statusFrame, taskFrame, userMessage } from '../support/gateway-stubs.js';

const META = { owner: 'alice', upstream: 'up' };
/** The retries' waits, shortened: the order and the log are what is tested, not the production delays. */
const DELAYS_MS = [10, 20, 40];

/** The memory store, whose writes fail while `fails` says so (called with each write's first event). */
function failing(fails: (event: StreamResponse) => boolean): TaskRegistry {
  const registry = createMemoryTaskRegistry({ maxTasks: 100, idleTtlMs: 60_000, historyLimit: 100 });
  return {
    ...registry,
    applyAll: async (events, meta, writeId) => {
      if (events[0] && fails(events[0])) throw new Error('Command timed out');
      return registry.applyAll(events, meta, writeId);
    },
  };
}

describe('task writer: a write that fails', () => {
  it('is tried again before the task’s later writes, which land after it', async () => {
    let failures = 0;
    const registry = failing((event) => 'task' in event && failures++ < 2);
    const writer = createTaskWriter(registry, undefined, DELAYS_MS);
    const opening = userMessage({ contextId: 'C', taskId: 'T' });
    await writer.record(taskFrame('T', 'C', [opening]), META, 'T');
    await writer.record(statusFrame('T', 'C', 'TASK_STATE_COMPLETED', 'Done.'), META, 'T');
    await writer.settled('T');
    const stored = await registry.get('T', META.owner);
    expect(stored?.status.state).toBe('TASK_STATE_COMPLETED');
    expect(stored?.history?.map((message) => message.messageId)).toEqual([opening.messageId]);
    expect(failures).toBe(3);
  });

  it('every time is logged lost once, at error, with what it held and none of its words', async () => {
    const log = capturedLog();
    const writer = createTaskWriter(
      failing(() => true),
      log.logger,
      DELAYS_MS,
    );
    await writer.record(statusFrame('G', 'C', 'TASK_STATE_COMPLETED', 'The secret report.'), META, 'G');
    await writer.settled('G');
    const lost = log.lines.filter((line) => line.msg === 'task registry write lost');
    expect(lost).toHaveLength(1);
    expect(lost[0]).toMatchObject({ level: 50, taskId: 'G', lost: { events: 1, kinds: ['statusUpdate'], state: 'TASK_STATE_COMPLETED' } });
    expect(JSON.stringify(log.lines)).not.toContain('secret');
  });
});
