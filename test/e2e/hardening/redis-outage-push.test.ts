/**
 * Redis freezing (connections open, nothing answered) just as push's own calls go to it, under a gateway with
 * `store: redis` and `redis-command-timeout-ms`: the task registry answered the call's reads, then push writes
 * the config or journals the follow on its own connection. The call is answered within the bound, as one that
 * waits on the registry is (redis-outage.test.ts), instead of hanging until Redis answers again.
 * The freeze comes from a proxy that stops at the first command naming a push key (freezing-redis.ts).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { startFreezingRedis, type FreezingRedis } from '../../support/freezing-redis.js';
import { deleteRedisKeys, REDIS_URL, requireRedis } from '../../support/redis.js';
import { waitUntil } from '../../support/wait-until.js';
import { startSdkV1Agent, type RunningSdkV1Agent } from '../../support/sdk-v1-agent.js';

const PREFIX = `redis-outage-push-${randomBytes(4).toString('hex')}:`;
/**
 * A command of the push config store (its create script, of one key, or a hash read or delete): the registry's
 * writes name the config keys too (they expire with their task), among many keys.
 */
const CONFIGS = new RegExp(`(?:\\$1\r\n1|hget|hvals|hdel)\r\n\\$\\d+\r\n${PREFIX}push:configs:`);
/** The follow journal's write (only push names these keys). */
const FOLLOWS = new RegExp(`${PREFIX}push:follows:`);
/** redis-command-timeout-ms, and how long a call may take at most: a few commands timing out one after another. */
const COMMAND_TIMEOUT_MS = 1_000;
const ANSWERED_WITHIN_MS = 6_000;

let redis: FreezingRedis;
let gateway: TestGateway;
let agent: RunningSdkV1Agent;

/** A JSON-RPC call's body, or `hung` when none came within twice the bound (Redis is thawed only after). */
async function rpc(method: string, params: unknown): Promise<{ result?: any; error?: { code: number } } | 'hung'> {
  const response = await fetch(`${gateway.url}/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    signal: AbortSignal.timeout(2 * ANSWERED_WITHIN_MS),
  }).catch(() => undefined);
  return response ? ((await response.json()) as { result?: any; error?: { code: number } }) : 'hung';
}

/** A turn still running (the agent streams `slow:` turns slowly), with a config on it. */
async function runningTask(): Promise<string> {
  // A registry write the last freeze timed out makes the gateway unready for a moment: new turns wait for it.
  await waitUntil(async () => (await fetch(`${gateway.url}/ready`)).status === 200, 15_000);
  const answer = await rpc('SendMessage', {
    message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'slow: still running' }] },
    configuration: { returnImmediately: true },
  });
  const taskId = (answer as { result: { task: { id: string } } }).result.task.id;
  await rpc('CreateTaskPushNotificationConfig', { taskId, id: 'kept', url: 'http://127.0.0.1:9/kept' });
  return taskId;
}

beforeAll(requireRedis);
beforeAll(async () => {
  agent = await startSdkV1Agent({ slowChunkDelayMs: 1_000 });
  redis = await startFreezingRedis(REDIS_URL);
  gateway = await startTestGateway({
    upstream: { url: agent.url },
    store: 'redis',
    'redis-url': redis.url,
    'redis-prefix': PREFIX,
    'redis-command-timeout-ms': COMMAND_TIMEOUT_MS,
    'push-notifications': true,
    'push-allow-private': true,
    'push-keys': [`k1:${randomBytes(32).toString('base64')}`],
  });
});
afterAll(async () => {
  redis?.thaw();
  await gateway?.close();
  await agent?.close();
  await redis?.close();
  await deleteRedisKeys(PREFIX);
});

const sendWithConfig = (text: string) => () =>
  rpc('SendMessage', {
    message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }] },
    configuration: { returnImmediately: true, taskPushNotificationConfig: { id: 'hook', url: 'http://127.0.0.1:9/hook' } },
  });
const createConfig = (taskId: string) => rpc('CreateTaskPushNotificationConfig', { taskId, id: 'new', url: 'http://127.0.0.1:9/new' });

/** The call, where Redis freezes under it, and what the caller is answered: a result, or -32603 (what was asked could not be done). */
const CASES: ReadonlyArray<[string, RegExp, (taskId: string) => ReturnType<typeof rpc>, 'result' | -32603]> = [
  // The turn goes on: the config that could not be stored is logged, as when Redis is gone.
  ['a returnImmediately SendMessage with a push config, frozen as the config is stored', CONFIGS, sendWithConfig('slow: frozen config'), 'result'],
  // The follow runs, only not journaled (logged: a crash before the turn ends loses it).
  ['a returnImmediately SendMessage with a push config, frozen as its follow is journaled', FOLLOWS, sendWithConfig('slow: frozen follow'), 'result'],
  ['CreateTaskPushNotificationConfig of a running task, frozen as the config is stored', CONFIGS, createConfig, -32603],
  ['GetTaskPushNotificationConfig', CONFIGS, (taskId) => rpc('GetTaskPushNotificationConfig', { taskId, id: 'kept' }), -32603],
  ['ListTaskPushNotificationConfigs', CONFIGS, (taskId) => rpc('ListTaskPushNotificationConfigs', { taskId }), -32603],
  ['DeleteTaskPushNotificationConfig', CONFIGS, (taskId) => rpc('DeleteTaskPushNotificationConfig', { taskId, id: 'kept' }), -32603],
];

describe('push calls while Redis freezes under them (store: redis)', () => {
  it.each(CASES)(
    '%s: answered within the bound',
    async (_call, marker, call, expected) => {
      const taskId = await runningTask();
      redis.freezeAt(marker);
      const started = Date.now();
      try {
        const answer = await call(taskId);
        expect(redis.frozen).toBe(true);
        expect(answer).not.toBe('hung');
        expect(Date.now() - started).toBeLessThan(ANSWERED_WITHIN_MS);
        if (expected === 'result') expect(answer).toHaveProperty('result');
        else expect(answer).toMatchObject({ error: { code: expected } });
      } finally {
        redis.thaw();
      }
    },
    30_000,
  );
});
