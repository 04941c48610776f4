/**
 * Following a task with a journal (follow-harness.ts for the setup): a follow is journaled while it
 * runs, taken up again at resume, and with a journal shared by replicas claimed from replicas gone and
 * let go when another replica took it over. The follows themselves: follow.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { A2AError } from '../../src/model/index.js';
import type { FollowEntry, FollowJournal } from '../../src/push/follow-journal.js';
import { caller, mapJournal, setup, status, task, waitForCalls } from './follow-harness.js';

describe('following a task answered while it runs', () => {
  it('journals a follow while it runs: gone when the turn ends, kept when the follower stops', async () => {
    const ended = mapJournal();
    const first = await setup([{ events: [status('TASK_STATE_COMPLETED', 'Done.')], then: 'end' }], [], { journal: ended });
    void first.follower.follow({ task: task('TASK_STATE_SUBMITTED') }, caller);
    expect([...ended.kept.keys()]).toEqual(['T']);
    expect(await first.delivered()).toEqual([status('TASK_STATE_COMPLETED', 'Done.')]);
    expect(ended.kept.size).toBe(0);

    const stopped = mapJournal();
    const second = await setup([{ events: [], then: 'hang' }], [], { journal: stopped, timeoutMs: 60_000 });
    void second.follower.follow({ task: task('TASK_STATE_SUBMITTED') }, caller);
    await waitForCalls(second.calls, 1);
    await second.follower.stop();
    expect(stopped.kept.get('T')).toMatchObject({ taskId: 'T', principal: 'basic:alice', surface: 'jsonrpc' });
  });

  it("names the task's tenant on every call, journals it, and takes it up again with the follow", async () => {
    const journal = mapJournal();
    const first = await setup([{ events: [], then: 'hang' }], [], { journal });
    void first.follower.follow({ task: task('TASK_STATE_SUBMITTED') }, caller, 'acme');
    await waitForCalls(first.calls, 1);
    await first.follower.stop();
    expect(journal.kept.get('T')).toMatchObject({ taskId: 'T', tenant: 'acme' });
    expect(first.requests).toEqual([{ id: 'T', tenant: 'acme' }]);

    const resumed = await setup([new Error('socket hang up')], [task('TASK_STATE_COMPLETED', 'Done.')], { journal });
    await resumed.follower.resume();
    expect(await resumed.delivered()).toEqual([{ task: task('TASK_STATE_COMPLETED', 'Done.') }]);
    expect(resumed.requests).toEqual([
      { id: 'T', tenant: 'acme' },
      { id: 'T', historyLength: 0, tenant: 'acme' },
    ]);
    // The default tenant is named as a caller without one names it: not at all.
    const plain = await setup([{ events: [status('TASK_STATE_COMPLETED', 'Done.')], then: 'end' }]);
    void plain.follower.follow({ task: task('TASK_STATE_SUBMITTED') }, caller);
    await plain.delivered();
    expect(plain.requests).toEqual([{ id: 'T' }]);
  });

  it("resume takes up the journal's follows as their callers, and drops the ones past their time", async () => {
    const journal = mapJournal([
      { taskId: 'T', principal: 'basic:alice', surface: 'v025', until: Date.now() + 60_000 },
      { taskId: 'OLD', principal: 'basic:alice', until: Date.now() - 1 },
    ]);
    const { follower, calls, contexts, delivered } = await setup(
      [A2AError.unsupportedOperation('Task T is in a terminal state')],
      [task('TASK_STATE_INPUT_REQUIRED', 'Which region?')],
      {
        journal,
      },
    );
    await follower.resume();
    expect(await delivered()).toEqual([{ task: task('TASK_STATE_INPUT_REQUIRED', 'Which region?') }]);
    expect(calls).toEqual(['subscribe', 'get']);
    expect(contexts[0]).toMatchObject({ principal: 'basic:alice', surface: 'v025' });
    expect(journal.kept.size).toBe(0);
  });

  it('with a shared journal, claims the follows of replicas gone, at resume and every claimEveryMs, as many as there is room for', async () => {
    const limits: number[] = [];
    const orphans: FollowEntry[][] = [[], [{ taskId: 'T', principal: 'basic:alice', surface: 'v025', until: Date.now() + 60_000 }]];
    const journal: FollowJournal = {
      ...mapJournal(),
      claimEveryMs: 10,
      async claimOrphans(limit) {
        limits.push(limit);
        return orphans.shift() ?? [];
      },
    };
    const { follower, calls, contexts, delivered } = await setup([{ events: [status('TASK_STATE_COMPLETED', 'Adopted.')], then: 'end' }], [], {
      journal,
      maxFollowed: 3,
    });
    await follower.resume();
    // The claim at resume found nothing; a later round found T, and it is followed as its caller.
    expect(limits).toEqual([3]);
    expect(calls).toEqual([]);
    await waitForCalls(calls, 1);
    expect(contexts[0]).toMatchObject({ principal: 'basic:alice', surface: 'v025' });
    expect(await delivered()).toEqual([status('TASK_STATE_COMPLETED', 'Adopted.')]);
    await follower.stop();
    const claimsAtStop = limits.length;
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(limits.length).toBe(claimsAtStop);
    expect(limits.every((limit) => limit >= 2 && limit <= 3)).toBe(true);
  });

  it('with a shared journal, lets go of a follow another replica took over, but not of one whose entry is still being written', async () => {
    const base = mapJournal();
    let finishAdd = (): void => undefined;
    const journal: FollowJournal = {
      ...base,
      claimEveryMs: 10,
      claimOrphans: async () => [],
      held: async () => new Set(base.kept.keys()),
      // U's entry is slow to reach the journal: missing from it until then is not a take-over.
      add: (entry) =>
        entry.taskId === 'U'
          ? new Promise<void>((resolve) => {
              finishAdd = () => {
                base.kept.set(entry.taskId, entry);
                resolve();
              };
            })
          : base.add(entry),
    };
    const { follower, calls, contexts } = await setup(
      [
        { events: [], then: 'hang' },
        { events: [], then: 'hang' },
      ],
      [],
      { journal },
    );
    await follower.resume();
    void follower.follow({ task: task('TASK_STATE_SUBMITTED') }, caller);
    void follower.follow({ task: { ...task('TASK_STATE_SUBMITTED'), id: 'U' } }, caller);
    await waitForCalls(calls, 2);
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(contexts.map((ctx) => ctx.signal.aborted)).toEqual([false, false]);

    // Another replica claimed T: it left this replica's journal, and the follow here ends.
    base.kept.delete('T');
    for (let i = 0; i < 200 && !contexts[0]!.signal.aborted; i++) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(contexts[0]!.signal.aborted).toBe(true);
    expect(contexts[1]!.signal.aborted).toBe(false);
    expect(calls).toEqual(['subscribe', 'subscribe']);

    finishAdd();
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(contexts[1]!.signal.aborted).toBe(false);
    await follower.stop();
    expect([...base.kept.keys()]).toEqual(['U']);
  });
});
