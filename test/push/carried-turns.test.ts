/**
 * Turns that callers' streams carry (src/push/carried-turns.ts) over the real follower and watcher of
 * follow-harness.ts: journaled while a stream carries a task with configs, off the journal when the
 * stream sees the end, followed when the last stream stops before it, kept when the gateway stops.
 */
import { describe, expect, it } from 'vitest';
import { withFields, type StreamResponse } from '../../src/model/index.js';
import { createCarriedTurns } from '../../src/push/carried-turns.js';
import type { StoredConfig } from '../../src/push/config-store/types.js';
import type { PushLogger } from '../../src/push/queue/types.js';
import { caller, mapJournal, setup, status, task, waitForCalls } from './follow-harness.js';

/** A caller reading a stream: `read` takes its next `count` events, `leave` returns it early. */
function reader(stream: AsyncIterable<StreamResponse>) {
  const iterator = stream[Symbol.asyncIterator]();
  return {
    async read(count = 1) {
      for (let i = 0; i < count; i++) await iterator.next();
      return this;
    },
    leave: async () => void (await iterator.return?.()),
  };
}

async function* events(...items: StreamResponse[]): AsyncIterable<StreamResponse> {
  yield* items;
  await new Promise(() => undefined);
}

async function carriedSetup(
  configs: StoredConfig[] | 'from-store',
  subscriptions: Parameters<typeof setup>[0] = [],
  journal: ReturnType<typeof mapJournal> = mapJournal(),
  logger: PushLogger = { info() {}, warn() {}, error() {} },
) {
  const harness = await setup(subscriptions, [], { journal, logger });
  const registry = { get: async () => task('TASK_STATE_WORKING') };
  const store = { forTask: async () => (configs === 'from-store' ? [{} as StoredConfig] : configs) };
  const carried = createCarriedTurns({
    follower: harness.follower,
    store,
    registry,
    timeoutMs: 60_000,
    logger: { info() {}, warn() {}, error() {} },
  });
  const settle = async () => {
    await carried.stop();
    await new Promise((resolve) => setTimeout(resolve, 10));
  };
  return { ...harness, journal, carried, settle };
}

describe('turns carried by callers’ streams', () => {
  it("a turn's end under its stream leaves the next turn of its task on the journal (its first write still pending then)", async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const kept = mapJournal();
    let adds = 0;
    const journal = withFields(kept, {
      async add(entry: Parameters<typeof kept.add>[0]) {
        if (adds++ === 0) await gate;
        await kept.add(entry);
      },
    });
    const { carried, settle } = await carriedSetup('from-store', [], journal);
    // Configs from the store (not sent with the turn): the stream does not wait for the journal.
    const first = carried.carry(
      events({ task: task('TASK_STATE_SUBMITTED') }, status('TASK_STATE_INPUT_REQUIRED', 'Which date?')),
      caller,
      '',
      false,
    );
    const firstReading = await reader(first).read(2);
    await firstReading.leave();
    // The answer's turn of the same task, carried while the first turn's journal write still waits.
    await reader(carried.carry(events({ task: task('TASK_STATE_WORKING') }), caller, '', false)).read();
    release();
    await settle();
    expect(kept.kept.has('T')).toBe(true);
  });

  it('sent with its webhook, its first event reaches the caller only once the journal holds the turn', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const kept = mapJournal();
    const journal = withFields(kept, {
      async add(entry: Parameters<typeof kept.add>[0]) {
        await gate;
        await kept.add(entry);
      },
    });
    const { carried, settle } = await carriedSetup([], [], journal);
    const iterator = carried.carry(events({ task: task('TASK_STATE_SUBMITTED') }), caller, '', true)[Symbol.asyncIterator]();
    const journaledWhenRead = iterator.next().then(() => kept.kept.has('T'));
    await new Promise((resolve) => setImmediate(resolve));
    release();
    expect(await journaledWhenRead).toBe(true);
    await iterator.return?.();
    await settle();
  });

  it('sent with its webhook, a journal that fails to write: the stream goes on, and the failure is logged at warn', async () => {
    const warnings: string[] = [];
    const logger: PushLogger = { info() {}, warn: (_fields, message) => void warnings.push(message), error() {} };
    const journal = withFields(mapJournal(), {
      add: async () => {
        throw new Error('ENOSPC: no space left on device');
      },
    });
    const { carried, settle } = await carriedSetup([], [], journal, logger);
    const stream = carried.carry(events({ task: task('TASK_STATE_SUBMITTED') }, status('TASK_STATE_WORKING', 'On it.')), caller, '', true);
    const iterator = stream[Symbol.asyncIterator]();
    expect((await iterator.next()).value).toEqual({ task: task('TASK_STATE_SUBMITTED') });
    expect((await iterator.next()).value).toEqual(status('TASK_STATE_WORKING', 'On it.'));
    expect(warnings).toContain('push follow could not be journaled; a restart before the turn ends loses it');
    await iterator.return?.();
    await settle();
  });

  it('is journaled while the stream runs, and off the journal once the stream saw the turn end', async () => {
    const { carried, journal, calls, settle } = await carriedSetup('from-store');
    const stream = carried.carry(events({ task: task('TASK_STATE_SUBMITTED') }, status('TASK_STATE_COMPLETED', 'Done.')), caller, '', false);
    const reading = await reader(stream).read();
    await settle();
    expect(journal.kept.get('T')).toMatchObject({ taskId: 'T', principal: 'basic:alice', surface: 'jsonrpc' });
    await reading.read();
    await reading.leave();
    await settle();
    expect(journal.kept.size).toBe(0);
    expect(calls).toEqual([]);
  });

  it('is followed when its caller leaves before the turn ends: the end is pushed', async () => {
    const { carried, follower, calls, delivered, journal, settle } = await carriedSetup('from-store', [
      { events: [{ task: task('TASK_STATE_WORKING') }, status('TASK_STATE_COMPLETED', 'Done after you left.')], then: 'end' },
    ]);
    const reading = await reader(carried.carry(events({ task: task('TASK_STATE_SUBMITTED') }), caller, '', true)).read();
    await reading.leave();
    await settle();
    expect(await delivered()).toEqual([status('TASK_STATE_COMPLETED', 'Done after you left.')]);
    expect(calls).toEqual(['subscribe']);
    await follower.idle();
    expect(journal.kept.size).toBe(0);
  });

  it("a follow-up's stream that opens on the last turn's input-required is followed when its caller leaves", async () => {
    const { carried, delivered, settle } = await carriedSetup('from-store', [{ events: [status('TASK_STATE_COMPLETED', 'Booked.')], then: 'end' }]);
    const stream = carried.carry(events({ task: task('TASK_STATE_INPUT_REQUIRED', 'Which date?') }, status('TASK_STATE_WORKING')), caller, '', false);
    const reading = await reader(stream).read(2);
    await reading.leave();
    await settle();
    expect(await delivered()).toContainEqual(status('TASK_STATE_COMPLETED', 'Booked.'));
  });

  it('without a config, is neither journaled nor followed', async () => {
    const { carried, calls, journal, settle } = await carriedSetup([]);
    const reading = await reader(carried.carry(events({ task: task('TASK_STATE_SUBMITTED') }), caller, '', false)).read();
    await settle();
    await reading.leave();
    await settle();
    expect(journal.kept.size).toBe(0);
    expect(calls).toEqual([]);
  });

  it('stays journaled when the gateway stops while the stream runs, or its drain cut the stream', async () => {
    const { carried, follower, journal, calls, settle } = await carriedSetup('from-store', [{ events: [], then: 'hang' }]);
    const reading = await reader(carried.carry(events({ task: task('TASK_STATE_SUBMITTED') }), caller, '', true)).read();
    await settle();
    await reading.leave();
    await waitForCalls(calls, 1);
    await carried.stop();
    await follower.stop();
    expect(journal.kept.get('T')).toMatchObject({ taskId: 'T' });
  });

  it('a config created for a running task nobody streams starts a follow; one a stream carries only journals it', async () => {
    const unwatched = await carriedSetup([], [{ events: [status('TASK_STATE_COMPLETED', 'Done.')], then: 'end' }]);
    await unwatched.carried.configured('T', caller, '');
    expect(await unwatched.delivered()).toEqual([status('TASK_STATE_COMPLETED', 'Done.')]);

    const watched = await carriedSetup([]);
    await reader(watched.carried.carry(events({ task: task('TASK_STATE_SUBMITTED') }), caller, '', false)).read();
    await watched.settle();
    expect(watched.journal.kept.size).toBe(0);
    await watched.carried.configured('T', caller, '');
    await watched.settle();
    expect(watched.journal.kept.has('T')).toBe(true);
    expect(watched.calls).toEqual([]);
  });
});
