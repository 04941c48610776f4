/**
 * Replicas sharing Redis (registry, push configs, queue and follow journal) over the demo agent: the
 * follow of a `returnImmediately` turn outlives the replica that answered it, stopped or killed.
 */
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'vitest';
import { redisFollowKeys } from '../../../src/push/follow-journal-redis.js';
import { ctx, flush, userText } from './harness.js';
import { replicaSuite, type ReplicaSet } from './replicas.js';
import { serveCli } from '../../support/run-cli.js';
import { waitUntil } from '../../support/wait-until.js';

const LEASE_MS = 2_000;
const ALICE_V025 = ctx('basic:alice', 'v025');

const { replicasOf, env, redis } = replicaSuite('follow-replicas');

/** The settings every replica of one test shares: one Redis prefix, one stream and group, one key ring. */
const shared = (replicas: ReplicaSet) =>
  replicas.settings({ 'push-notifications': true, 'push-allow-private': true, 'push-follow-lease-ms': LEASE_MS });

/** The replicas whose follow journal in Redis holds `taskId`. */
async function holdersOf(prefix: string, taskId: string): Promise<string[]> {
  const keys = redisFollowKeys(prefix);
  const owners = await redis().smembers(keys.owners);
  const held = await Promise.all(owners.map(async (owner) => ((await redis().hexists(keys.follows(owner), taskId)) === 1 ? owner : undefined)));
  return held.filter((owner): owner is string => owner !== undefined);
}

const artifactText = (artifacts: Array<{ parts: Array<{ text?: string }> }> = []) =>
  artifacts.flatMap((artifact) => artifact.parts.map((part) => part.text ?? '')).join('');

/**
 * `a2a-bridge serve` in its own process, on the shared settings, upstream the test's demo agent; killed
 * once the test finishes (before its replicas close: the hooks registered last run first).
 */
async function serveInChild(
  { onTestFinished }: TestContext,
  replicas: ReplicaSet,
  settings: Record<string, unknown>,
): Promise<{ child: ChildProcess; url: string }> {
  const children: ChildProcess[] = [];
  onTestFinished(() => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  const name = `${replicas.run}-${replicas.counter}`;
  const file = join(env().dir, `${name}.yaml`);
  const config = { ...settings, port: 0, 'persistence-dir': join(env().dir, name), upstream: { url: env().demo.url } };
  await writeFile(file, JSON.stringify(config));
  const { child, url } = await serveCli(['--config', file], { track: children });
  return { child, url };
}

// Each test has its own replicas, Redis prefix, receiver and task: side by side, their slow turns and the lease overlap.
describe.concurrent('push follows shared by replicas through Redis', () => {
  it('a follow of a replica that stops is taken over by another: the finished 0.2.5 Task is pushed once', async (context) => {
    const { expect } = context;
    const replicas = replicasOf(context);
    const { replica, receiver } = replicas;
    const settings = shared(replicas);
    const prefix = settings['redis-prefix'] as string;
    const a = await replica(settings);
    const b = await replica(settings);
    const hook = await receiver();

    const answer = await a.port.sendMessage(
      {
        message: userText('slow: a bucket that outlives its replica'),
        configuration: { returnImmediately: true, taskPushNotificationConfig: { url: `${hook.url}/taken` } },
      },
      ALICE_V025,
    );
    const taskId = 'task' in answer ? answer.task.id : '';
    expect('task' in answer && answer.task.status.state).toBe('TASK_STATE_SUBMITTED');
    await waitUntil(async () => (await holdersOf(prefix, taskId)).length === 1);
    const [holderA] = await holdersOf(prefix, taskId);

    // A's push side stops while the turn still runs: its follow is cut short and kept for another replica.
    expect((await env().upstream.getTask({ id: taskId }, ALICE_V025)).status.state).toBe('TASK_STATE_WORKING');
    await a.service.stop();
    expect(await redis().exists(redisFollowKeys(prefix).lease(holderA!))).toBe(0);
    expect(hook.at('/taken')).toHaveLength(0);

    const [delivery] = await hook.waitFor('/taken', 1);
    const body = delivery!.json as { kind: string; id: string; status: { state: string }; artifacts: Array<{ parts: Array<{ text?: string }> }> };
    expect(body).toMatchObject({ kind: 'task', id: taskId, status: { state: 'input-required' } });
    const upstream = await env().upstream.getTask({ id: taskId }, ALICE_V025);
    expect(artifactText(body.artifacts)).toBe(artifactText(upstream.artifacts));
    expect(artifactText(body.artifacts)).toContain('a bucket that outlives its replica');

    // B followed it to its end, so the follow is off the journal; and it was pushed once.
    await waitUntil(async () => (await holdersOf(prefix, taskId)).length === 0);
    await flush(b, hook);
    expect(hook.at('/taken')).toHaveLength(1);
  });

  it('a follow of a replica killed mid-turn (SIGKILL) is taken over once its lease has run out', async (context) => {
    const { expect } = context;
    const replicas = replicasOf(context);
    const { replica, receiver } = replicas;
    const settings = shared(replicas);
    const prefix = settings['redis-prefix'] as string;
    const [b, hook, a] = await Promise.all([replica(settings), receiver(), serveInChild(context, replicas, settings)]);

    const response = await fetch(`${a.url}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'SendMessage',
        params: {
          message: { messageId: `m-${replicas.counter}`, role: 'ROLE_USER', parts: [{ text: 'slow: a network whose replica dies' }] },
          configuration: { returnImmediately: true, taskPushNotificationConfig: { url: `${hook.url}/killed` } },
        },
      }),
    });
    const { result } = (await response.json()) as { result: { task: { id: string; status: { state: string } } } };
    const taskId = result.task.id;
    expect(result.task.status.state).toBe('TASK_STATE_SUBMITTED');
    await waitUntil(async () => (await holdersOf(prefix, taskId)).length === 1);
    const [holderA] = await holdersOf(prefix, taskId);

    expect((await env().upstream.getTask({ id: taskId }, ALICE_V025)).status.state).toBe('TASK_STATE_WORKING');
    a.child.kill('SIGKILL');
    await once(a.child, 'exit');
    // Nothing was released: the lease runs out on its own.
    expect(await redis().exists(redisFollowKeys(prefix).lease(holderA!))).toBe(1);

    const [delivery] = await hook.waitFor('/killed', 1, 10_000);
    const body = delivery!.json as { statusUpdate?: { taskId: string; status: { state: string } }; task?: { id: string; status: { state: string } } };
    // The update that ended the turn, or the task as read when the turn had ended before B subscribed.
    expect(body.statusUpdate?.taskId ?? body.task?.id).toBe(taskId);
    expect((body.statusUpdate ?? body.task)!.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    await waitUntil(async () => (await holdersOf(prefix, taskId)).length === 0);
    await flush(b, hook);
    expect(hook.at('/killed')).toHaveLength(1);
    // A child gateway started through tsx, then a lease left to run out: beside the CLI's files, past 20 s.
  }, 45_000);
});
