/**
 * Which tasks keep their context busy after their stream ended before the turn's end (core/unended-turns.ts): only a
 * task the agent ended a turn's stream of cleanly, still working, is asked about, and only a subscription the agent
 * ends right after the task's snapshot says no run of it goes on. Anything else (a subscription that stays open, a
 * refusal, another state) keeps the context busy, as before.
 */
import { describe, expect, it } from 'vitest';
import type { StreamResponse, Task, TaskState } from '../../src/model/index.js';
import { createUnendedTurns } from '../../src/core/unended-turns.js';

const task = (state: TaskState): Task => ({ id: 'T', contextId: 'C', status: { state } });
const working: StreamResponse = { task: task('TASK_STATE_WORKING') };
const status = (state: TaskState): StreamResponse => ({ statusUpdate: { taskId: 'T', contextId: 'C', status: { state } } });

/** A turn's stream of `events` watched, ended `cleanly` or not. */
function noted(events: StreamResponse[], cleanly = true) {
  const unended = createUnendedTurns(300);
  const watch = unended.watch();
  for (const event of events) watch.saw(event);
  watch.ended(cleanly);
  return unended;
}

/** A subscription that opens with `first`, then ends (`then: 'end'`), stays open, or fails. */
function subscription(first: StreamResponse | Error, then: 'end' | 'open' = 'end') {
  const calls: string[] = [];
  const subscribe = (signal: AbortSignal): AsyncIterable<StreamResponse> => ({
    async *[Symbol.asyncIterator]() {
      calls.push('subscribed');
      if (first instanceof Error) throw first;
      yield first;
      if (then === 'open') await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
    },
  });
  return { subscribe, calls };
}

describe('a task whose turn stream ended before the turn’s end', () => {
  it('the agent ends its subscription right after the snapshot, still working: no run goes on', async () => {
    const unended = noted([working, status('TASK_STATE_WORKING')]);
    expect(await unended.runsNothing('T', subscription(working).subscribe)).toBe(true);
  });

  it('a subscription that stays open: the task runs (the context stays busy)', async () => {
    const unended = noted([working]);
    expect(await unended.runsNothing('T', subscription(working, 'open').subscribe)).toBe(false);
  });

  it('a refused subscription, or one that opens with the task no longer working: the agent cannot say so', async () => {
    const unended = noted([working]);
    expect(await unended.runsNothing('T', subscription(new Error('Task T is not active')).subscribe)).toBe(false);
    expect(await unended.runsNothing('T', subscription({ task: task('TASK_STATE_INPUT_REQUIRED') }).subscribe)).toBe(false);
  });

  it('no task is asked about whose stream ended at the turn’s end, broke off, or was never noted', async () => {
    for (const unended of [
      noted([working, status('TASK_STATE_COMPLETED')]),
      noted([working, status('TASK_STATE_INPUT_REQUIRED')]),
      noted([working], false),
      createUnendedTurns(300),
    ]) {
      const { subscribe, calls } = subscription(working);
      expect(await unended.runsNothing('T', subscribe)).toBe(false);
      expect(calls).toEqual([]);
    }
  });
});
