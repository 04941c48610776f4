/**
 * A streamed turn with a webhook outlives the gateway that carried it: stopped (its drain cuts the
 * stream) or killed mid-turn, the gateway started again on the same state (persistence-dir, or Redis
 * prefix) pushes the turn's end. The agent is a real a2a-js 1.x server whose `slow:` turn takes seconds.
 */
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, it, type TestContext } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { keptFollows } from '../../support/push-state-files.js';
import { deleteRedisKeys, REDIS_URL, requireRedis } from '../../support/redis.js';
import { serveCli } from '../../support/run-cli.js';
import { waitUntil } from '../../support/wait-until.js';
import { startSdkV1Agent, type RunningSdkV1Agent } from '../../support/sdk-v1-agent.js';
import { Receiver } from './harness.js';
import { finalWords, pushedStates, streamUntilTask } from './unwatched.js';

const SLOW_CHUNK_MS = 200;
const COMPLETED = 'TASK_STATE_COMPLETED';
const RUN = `test-push-unwatched-${process.pid}-${randomUUID().slice(0, 8)}:`;

let agent: RunningSdkV1Agent;
let receiver: Receiver;
let dir: string;

beforeAll(requireRedis);
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'a2a-push-unwatched-restarts-'));
  agent = await startSdkV1Agent({ slowChunkDelayMs: SLOW_CHUNK_MS });
  receiver = await new Receiver().up();
});
afterAll(async () => {
  await receiver?.down();
  await agent?.close();
  await deleteRedisKeys(RUN);
  await rm(dir, { recursive: true, force: true });
});

/** The settings both gateways of one test share: its state, a short drain, and with Redis a short follow lease. */
function settings(name: string, store: 'memory' | 'redis'): Record<string, unknown> {
  return {
    upstream: { url: agent.url },
    'push-notifications': true,
    'push-allow-private': true,
    'persistence-dir': join(dir, name),
    'drain-timeout-ms': 200,
    ...(store === 'redis' ? { store: 'redis', 'redis-url': REDIS_URL, 'redis-prefix': `${RUN}${name}:`, 'push-follow-lease-ms': 1_000 } : {}),
  };
}

/** The gateways and child processes one test started. */
interface Started {
  open: Array<{ close(): Promise<void> }>;
  children: ChildProcess[];
}

/**
 * What a test starts, stopped once it finishes (its children killed, then its gateways closed, the last first):
 * its own, as the tests run side by side.
 */
function startedBy({ onTestFinished }: TestContext): Started {
  const started: Started = { open: [], children: [] };
  onTestFinished(async () => {
    for (const child of started.children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    for (const item of started.open.reverse()) await item.close();
  });
  return started;
}

async function inProcess(started: Started, config: Record<string, unknown>): Promise<TestGateway> {
  const gateway = await startTestGateway(config);
  started.open.push(gateway);
  return gateway;
}

/** `a2a-bridge serve` in a child process, to be killed (the gateway after it runs in this one: a quicker start). */
async function inChild(started: Started, name: string, config: Record<string, unknown>): Promise<{ url: string; child: ChildProcess }> {
  const file = join(dir, `${name}-${started.children.length}.yaml`);
  await writeFile(file, JSON.stringify({ ...config, port: 0 }));
  return serveCli(['--config', file], { track: started.children });
}

/** Streams a slow turn with an inline webhook at `/<name>` through `url`, up to the first event that names the task. */
const streamWithWebhook = (url: string, name: string) =>
  streamUntilTask(
    url,
    {
      message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: `slow: through a restart (${name})` }] },
      configuration: { taskPushNotificationConfig: { id: 'hook', url: `${receiver.url}/${name}` } },
    },
    false,
  );

/** Whether the gateway on `name`'s state wrote down its follow of `taskId` (the journal a restart takes it up from). */
async function followWritten(name: string, store: 'memory' | 'redis', taskId: string): Promise<boolean> {
  if (store === 'memory') return (await keptFollows(join(dir, name))).some((entry) => entry.taskId === taskId);
  const redis = new Redis(REDIS_URL);
  try {
    const journals = await redis.keys(`${RUN}${name}:push:follows:*`);
    return (await Promise.all(journals.map((key) => redis.hexists(key, taskId)))).includes(1);
  } finally {
    await redis.quit();
  }
}

async function endPushedTo(name: string) {
  await receiver.waitFor(`/${name}`, 1, 12_000);
  await new Promise((resolve) => setTimeout(resolve, 500));
  return receiver.at(`/${name}`);
}

// Each test has its own state (persistence-dir, Redis prefix), webhook path and gateways: side by side, the slow
// turns they carry through a restart overlap.
describe.concurrent.each(['memory', 'redis'] as const)('a streamed turn with a webhook, store %s, through a restart', (store) => {
  it('the gateway stops (its drain cuts the stream) and starts again: the webhook is pushed the end once', async (context) => {
    const { expect } = context;
    const started = startedBy(context);
    const name = `stopped-${store}`;
    const first = await inProcess(started, settings(name, store));
    const stream = await streamWithWebhook(first.url, name);
    await started.open.splice(started.open.indexOf(first), 1)[0]!.close();
    await stream.done;
    await inProcess(started, settings(name, store));
    const pushed = await endPushedTo(name);
    expect(pushedStates(pushed)).toEqual([COMPLETED]);
    expect(finalWords(pushed)).toContain(`through a restart (${name})`);
  });

  it('the gateway is killed mid-turn and started again: the webhook is pushed the end once', async (context) => {
    const { expect } = context;
    const started = startedBy(context);
    const name = `killed-${store}`;
    const first = await inChild(started, name, settings(name, store));
    const { taskId } = await streamWithWebhook(first.url, name);
    // Killed once what the gateway accepted is written down (a fixed moment was not always enough on a loaded host).
    await waitUntil(() => followWritten(name, store, taskId));
    first.child.kill('SIGKILL');
    await inProcess(started, settings(name, store));
    const pushed = await endPushedTo(name);
    expect(pushedStates(pushed)).toEqual([COMPLETED]);
    expect(finalWords(pushed)).toContain(`through a restart (${name})`);
  }, 30_000);
});
