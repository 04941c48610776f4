/**
 * The task writer's failed writes (task-writer.ts, write-retries.ts): tried again, ahead of the task's later writes
 * (which wait in the task's fold meanwhile and go in one write), quickly and then at a slower pace until they land
 * or the bound passes, logged lost once, without their words, when given up. A read of the task has a waiting
 * write tried at once and waits for that one try, never for the outage. The registry is the memory store behind a
 * fault: what a Redis outage does to a write (test/e2e/hardening/registry-write-blip.test.ts runs it against a real
 * Redis, and the stop).
 */
import { describe, expect, it } from 'vitest';
import type { StreamResponse } from '../../src/model/index.js';
import { createTaskWriter } from '../../src/core/task-writer.js';
import { createMemoryTaskRegistry } from '../../src/core/task-registry/memory.js';
import type { TaskRegistry } from '../../src/core/task-registry/types.js';
import { capturedLog } from '../support/captured-log.js';
import { statusFrame, taskFrame, userMessage } from '../support/gateway-stubs.js';
import { waitUntil } from '../support/wait-until.js';
import { createGatewayMetrics } from '../../src/observability/metrics.js';

const META = { owner: 'alice', upstream: 'up' };
/** The retries' pace, shortened: the order, the log and what lands are what is tested, not the production delays. */
const PACE = { delaysMs: [10, 20, 40], everyMs: 50, forMs: 2_000, stopWithinMs: 1_000 };
/** A pace whose next try after the quick ones is far off: only a read brings it sooner. */
const SLOW_PACE = { ...PACE, everyMs: 60_000, forMs: 120_000 };

/**
 * The memory store, whose writes fail while `fails` says so (called with each write's events); `batches`: every
 * write tried; `closing`: what the Redis store's close waits for first (its writers' last tries).
 */
function failing(fails: (events: readonly StreamResponse[]) => boolean) {
  const registry = createMemoryTaskRegistry({ maxTasks: 100, idleTtlMs: 60_000, historyLimit: 100 });
  const batches: Array<readonly StreamResponse[]> = [];
  const flushes: Array<() => Promise<void>> = [];
  const faulty: TaskRegistry = {
    ...registry,
    applyAll: async (events, meta, writeId) => {
      batches.push(events);
      if (fails(events)) throw new Error('Command timed out');
      return registry.applyAll(events, meta, writeId);
    },
    beforeClose: (flush) => void flushes.push(flush),
  };
  return { registry: faulty, batches, closing: () => Promise.all(flushes.map((flush) => flush())) };
}

const stateOf = async (registry: TaskRegistry, taskId: string) => (await registry.get(taskId, META.owner))?.status.state;

describe('task writer: a write that fails', () => {
  it('is tried again before the task’s later writes, which wait in its fold and land after it in one write', async () => {
    let failures = 0;
    const { registry, batches } = failing((events) => 'task' in events[0]! && failures++ < 2);
    const writer = createTaskWriter(registry, undefined, PACE);
    const opening = userMessage({ contextId: 'C', taskId: 'T' });
    await writer.record(taskFrame('T', 'C', [opening]), META, 'T');
    await writer.record(statusFrame('T', 'C', 'TASK_STATE_WORKING'), META, 'T');
    await writer.record(
      { artifactUpdate: { taskId: 'T', contextId: 'C', artifact: { artifactId: 'report', parts: [{ text: 'Three VPCs.' }] } } },
      META,
      'T',
    );
    await writer.record(statusFrame('T', 'C', 'TASK_STATE_COMPLETED', 'Done.'), META, 'T');
    await waitUntil(async () => (await stateOf(registry, 'T')) === 'TASK_STATE_COMPLETED');
    const stored = await registry.get('T', META.owner);
    expect(stored?.history?.map((message) => message.messageId)).toEqual([opening.messageId]);
    expect(stored?.artifacts?.[0]?.parts[0]).toMatchObject({ text: 'Three VPCs.' });
    expect(failures).toBe(3);
    // The task's write three times (two failed), then the three events folded meanwhile in one.
    expect(batches.map((batch) => batch.length)).toEqual([1, 1, 1, 3]);
  });

  it('through an outage longer than the quick retries is tried on at a slower pace until it lands, warned once', async () => {
    const log = capturedLog();
    const outageEnds = Date.now() + 300;
    const { registry } = failing(() => Date.now() < outageEnds);
    const writer = createTaskWriter(registry, log.logger, PACE);
    await writer.record(statusFrame('O', 'C', 'TASK_STATE_COMPLETED', 'Done.'), META, 'O');
    await waitUntil(async () => (await stateOf(registry, 'O')) === 'TASK_STATE_COMPLETED');
    const messages = log.lines.map((line) => `${line.level} ${line.msg}`);
    expect(messages.filter((line) => line.includes('task registry write'))).toEqual([
      '40 task registry write failed; trying again',
      '40 task registry write still failing; trying on',
    ]);
    expect(log.lines.find((line) => line.msg === 'task registry write still failing; trying on')).toMatchObject({
      taskId: 'O',
      waiting: { events: 1, kinds: ['statusUpdate'], state: 'TASK_STATE_COMPLETED' },
    });
  });

  it('every time until the bound passes is logged lost once, at error, with what it held and none of its words', async () => {
    const log = capturedLog();
    const { registry } = failing(() => true);
    const writer = createTaskWriter(registry, log.logger, { ...PACE, forMs: 200 });
    await writer.record(statusFrame('G', 'C', 'TASK_STATE_COMPLETED', 'The secret report.'), META, 'G');
    await waitUntil(async () => log.lines.some((line) => line.msg === 'task registry write lost'));
    const lost = log.lines.filter((line) => line.msg === 'task registry write lost');
    expect(lost).toHaveLength(1);
    expect(lost[0]).toMatchObject({ level: 50, taskId: 'G', lost: { events: 1, kinds: ['statusUpdate'], state: 'TASK_STATE_COMPLETED' } });
    expect(lost[0]!.attempts).toBeGreaterThan(PACE.delaysMs.length + 1);
    expect(JSON.stringify(log.lines)).not.toContain('secret');
  });

  it('is counted for operators: a2a_bridge_task_registry_writes_retrying while tried again, _lost_total once given up', async () => {
    const metrics = createGatewayMetrics({ defaultMetrics: false });
    const sample = async (name: string) => (await metrics.registry.getSingleMetric(name)?.get())?.values[0]?.value;
    let down = true;
    const { registry } = failing((events) => down || events.some((event) => JSON.stringify(event).includes('"G"')));
    const writer = createTaskWriter(registry, undefined, { ...PACE, forMs: 300 }, metrics.registryWrites);
    await writer.record(statusFrame('O', 'C', 'TASK_STATE_COMPLETED', 'Done.'), META, 'O');
    await writer.record(statusFrame('G', 'C', 'TASK_STATE_COMPLETED', 'Done.'), META, 'G');
    await waitUntil(async () => (await sample('a2a_bridge_task_registry_writes_retrying')) === 2);
    expect(await sample('a2a_bridge_task_registry_writes_lost_total')).toBe(0);
    // Redis is back for the one task: its write lands; the other's is given up at the bound.
    down = false;
    await waitUntil(async () => (await sample('a2a_bridge_task_registry_writes_lost_total')) === 1);
    expect(await stateOf(registry, 'O')).toBe('TASK_STATE_COMPLETED');
    expect(await sample('a2a_bridge_task_registry_writes_retrying')).toBe(0);
  });

  it('is tried at once by a read of its task, which waits for that one try only: failing, the read goes on', async () => {
    let down = true;
    const { registry, batches } = failing(() => down);
    const writer = createTaskWriter(registry, undefined, SLOW_PACE);
    await writer.record(statusFrame('R', 'C', 'TASK_STATE_WORKING', 'Counting.'), META, 'R');
    // The quick retries are over: the next try is a minute away.
    await waitUntil(async () => batches.length === PACE.delaysMs.length + 1);
    await writer.record(statusFrame('R', 'C', 'TASK_STATE_COMPLETED', 'Done.'), META, 'R');
    await writer.settled('R');
    expect(batches).toHaveLength(PACE.delaysMs.length + 2);
    expect(await stateOf(registry, 'R')).toBeUndefined();
    // Redis is back: the next read's try lands, and what the task folded meanwhile is written before the read goes on.
    down = false;
    await writer.settledAll();
    expect(await stateOf(registry, 'R')).toBe('TASK_STATE_COMPLETED');
    expect(batches.slice(-2).map((batch) => batch.length)).toEqual([1, 1]);
  });

  it('still waiting when the store closes (the gateway stops), is tried once more, and logged lost when that fails', async () => {
    const log = capturedLog();
    const { registry, batches, closing } = failing(() => true);
    const writer = createTaskWriter(registry, log.logger, SLOW_PACE);
    await writer.record(statusFrame('S', 'C', 'TASK_STATE_COMPLETED', 'Done.'), META, 'S');
    await waitUntil(async () => batches.length === PACE.delaysMs.length + 1);
    await closing();
    expect(batches).toHaveLength(PACE.delaysMs.length + 2);
    const lost = log.lines.filter((line) => line.msg === 'task registry write lost');
    expect(lost).toHaveLength(1);
    expect(lost[0]).toMatchObject({
      level: 50,
      taskId: 'S',
      atStop: true,
      attempts: PACE.delaysMs.length + 2,
      lost: { state: 'TASK_STATE_COMPLETED' },
    });
  });
});
