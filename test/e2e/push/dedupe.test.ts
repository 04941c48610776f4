/**
 * One notification per change though two replicas (or one replica before and after a restart) see
 * it: replicas share Redis (registry, configs, queue, follow journal and claims) over the demo agent,
 * whose statuses carry timestamps as iac-code's do.
 */
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it, type ExpectStatic } from 'vitest';
import type { StreamResponse } from '../../../src/model/index.js';
import { stableEventId } from '../../../src/push/event-id.js';
import { redisFollowKeys } from '../../../src/push/follow-journal-redis.js';
import { collect } from '../../support/collect.js';
import { ctx, flush, pushedTurnEnd, startHarness, userText, type Harness } from './harness.js';
import { replicaSuite } from './replicas.js';
import { keptFollows } from '../../support/push-state-files.js';
import { waitUntil } from '../../support/wait-until.js';

const ALICE = ctx('basic:alice', 'jsonrpc');

const suite = replicaSuite('dedupe');

/** Polls a little longer than the default: a follow's take-over waits for a lease to run out. */
const waitLonger = (check: () => Promise<boolean>) => waitUntil(check, 8_000);

const inputRequired = (events: StreamResponse[]) =>
  events.filter((event) => 'statusUpdate' in event && event.statusUpdate.status.state === 'TASK_STATE_INPUT_REQUIRED');

/**
 * Every replica stopped (each waits for its watchers to queue what they saw and for deliveries in
 * flight): a second job would now be delivered or still wait in the shared stream or retry set.
 */
async function nothingLeft(expect: ExpectStatic, settings: Record<string, unknown>, ...replicas: Harness[]): Promise<void> {
  for (const h of replicas) await h.service.stop();
  expect(await suite.redis().xlen(settings['push-stream'] as string)).toBe(0);
  expect(await suite.redis().zcard(settings['push-retry-key'] as string)).toBe(0);
}

// Each test has its own replicas (or harness), Redis prefix, receiver and task: side by side, their slow turns overlap.
describe.concurrent('one notification per change across replicas', () => {
  it("A streams the turn with a push config while B holds a SubscribeToTask of it: the turn's end is pushed once, under one event id", async (context) => {
    const { expect } = context;
    const { replica, receiver, settings: shared } = suite.replicasOf(context);
    const settings = shared();
    const a = await replica(settings);
    const b = await replica(settings);
    const hook = await receiver();

    const streamA = a.port
      .sendStreamingMessage(
        { message: userText('slow: a queue seen by two replicas'), configuration: { taskPushNotificationConfig: { url: `${hook.url}/end` } } },
        ALICE,
      )
      [Symbol.asyncIterator]();
    const first = await streamA.next();
    const taskId = !first.done && 'task' in first.value ? first.value.task.id : '';
    expect(taskId).not.toBe('');
    const subscribedB = collect(b.port.subscribeToTask({ id: taskId }, ALICE));
    const eventsA: StreamResponse[] = [first.value as StreamResponse];
    for (let next = await streamA.next(); !next.done; next = await streamA.next()) eventsA.push(next.value);
    const eventsB = await subscribedB;

    // Both replicas saw the same end (one status, one timestamp), and each watched its own stream.
    const [endA] = inputRequired(eventsA);
    expect(inputRequired(eventsA)).toHaveLength(1);
    expect(inputRequired(eventsB)).toEqual([endA]);

    const [delivery] = await hook.waitFor('/end', 1);
    expect(delivery!.json).toMatchObject(pushedTurnEnd(endA));
    expect(delivery!.headers['a2a-event-id']).toBe(stableEventId(taskId, endA!));
    await nothingLeft(expect, settings, a, b);
    expect(hook.at('/end')).toHaveLength(1);
  });

  it("A's follow lease lapses while A still follows and B takes the follow over: the turn's end is pushed once", async (context) => {
    const { expect } = context;
    const { replica, receiver, settings: shared } = suite.replicasOf(context);
    const settings = shared();
    const prefix = settings['redis-prefix'] as string;
    // A renews its lease every 20 s; B looks for orphaned follows every third of a second.
    const a = await replica({ ...settings, 'push-follow-lease-ms': 60_000 });
    const b = await replica({ ...settings, 'push-follow-lease-ms': 1_000 });
    const hook = await receiver();

    const answer = await a.port.sendMessage(
      {
        message: userText('slow: a follow held twice'),
        configuration: { returnImmediately: true, taskPushNotificationConfig: { url: `${hook.url}/followed` } },
      },
      ALICE,
    );
    const taskId = 'task' in answer ? answer.task.id : '';
    const keys = redisFollowKeys(prefix);
    const holders = async () => {
      const owners = await suite.redis().smembers(keys.owners);
      const held = await Promise.all(
        owners.map(async (owner) => ((await suite.redis().hexists(keys.follows(owner), taskId)) === 1 ? owner : undefined)),
      );
      return held.filter((owner): owner is string => owner !== undefined);
    };
    await waitLonger(async () => (await holders()).length === 1);
    const [holderA] = await holders();

    // A's lease lapses (as when A stalls or loses Redis), A still runs and follows; B claims the follow.
    await suite.redis().del(keys.lease(holderA!));
    await waitLonger(async () => {
      const now = await holders();
      return now.length === 1 && now[0] !== holderA;
    });
    expect((await suite.env().upstream.getTask({ id: taskId }, ALICE)).status.state).toBe('TASK_STATE_WORKING');

    const [delivery] = await hook.waitFor('/followed', 1);
    expect(delivery!.json).toMatchObject({ task: { id: taskId, status: { state: 'TASK_STATE_INPUT_REQUIRED' } } });
    await waitLonger(async () => (await holders()).length === 0);
    await nothingLeft(expect, settings, a, b);
    expect(hook.at('/followed')).toHaveLength(1);
  });
});

describe.concurrent('one notification per change across a restart of one replica', () => {
  it("a follow taken up again after the stop finds the turn's end already queued and does not queue it again", async (context) => {
    const { expect } = context;
    const replicas = suite.replicasOf(context);
    const h = await startHarness(
      suite.env(),
      {},
      { subdir: `single-${randomBytes(4).toString('hex')}`, followRetry: { initialDelayMs: 10, maxDelayMs: 40 } },
    );
    replicas.closeAfter(h);
    const hook = await replicas.receiver();
    const follows = join(h.config['persistence-dir'], 'push_follows.json');
    const followed = () => keptFollows(h.config['persistence-dir']);

    const answer = await h.port.sendMessage(
      { message: userText('slow: a restart'), configuration: { returnImmediately: true, taskPushNotificationConfig: { url: `${hook.url}/once` } } },
      ALICE,
    );
    const taskId = 'task' in answer ? answer.task.id : '';
    await waitLonger(async () => (await followed()).some((entry) => entry.taskId === taskId));
    const [entry] = await followed();
    const [delivery] = await hook.waitFor('/once', 1);
    await waitLonger(async () => (await followed()).length === 0);

    // What a stop leaves when it cuts the follow short just after the turn's end went by: the end is
    // queued (here delivered already), and the follow is still in the journal (as the release before wrote it: a
    // snapshot that its journal, folded in at the stop, does not follow).
    await h.restart(() => writeFile(follows, JSON.stringify([entry])));
    // The follow taken up reads the finished task, and ends.
    await waitLonger(async () => (await followed()).length === 0);
    await flush(h, hook);
    expect(hook.at('/once')).toHaveLength(1);
    expect(delivery!.json).toMatchObject({ task: { id: taskId, status: { state: 'TASK_STATE_INPUT_REQUIRED' } } });
  });
});
