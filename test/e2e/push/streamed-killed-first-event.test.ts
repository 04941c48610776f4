/**
 * A streamed turn whose message carries a webhook, the gateway (`a2a-bridge serve`, a child process) killed with
 * SIGKILL as soon as the caller has read the first event naming the task, its follow journal slow to write
 * (push_follows.json on a slow disk; with `store: redis`, a slow Redis under the journal's writes): the gateway
 * started again on the same state pushes the turn's end. The caller was told the task exists, so the gateway had
 * accepted the turn: its follow is journaled before that first event leaves. The agent is a real a2a-js 1.x server.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { deleteRedisKeys, REDIS_URL, requireRedis } from '../../support/redis.js';
import { root, serveCli } from '../../support/run-cli.js';
import { startSdkV1Agent, type RunningSdkV1Agent } from '../../support/sdk-v1-agent.js';
import { Receiver } from './harness.js';
import { finalWords, pushedStates, streamUntilTask } from './unwatched.js';

const COMPLETED = 'TASK_STATE_COMPLETED';
const RUN = `test-push-first-event-${process.pid}-${randomUUID().slice(0, 8)}:`;
const SLOW_FILE = join(root, 'test/e2e/hardening/fixtures/slow-follow-journal.mjs');
const SLOW_REDIS = join(root, 'test/e2e/push/fixtures/slow-follow-journal-redis.mjs');
const SLOW_CONFIGS = join(root, 'test/e2e/push/fixtures/slow-push-configs.mjs');

let agent: RunningSdkV1Agent;
let receiver: Receiver;
let dir: string;
const children: ChildProcess[] = [];
const gateways: TestGateway[] = [];

beforeAll(requireRedis);
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'a2a-push-first-event-'));
  agent = await startSdkV1Agent({ slowChunkDelayMs: 150 });
  receiver = await new Receiver().up();
});
afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const gateway of gateways) await gateway.close();
  await receiver?.down();
  await agent?.close();
  await deleteRedisKeys(RUN);
  await rm(dir, { recursive: true, force: true });
});

/** `name`'s state: its persistence-dir, and with `store: redis` its Redis prefix (a short lease: a dead one's follows are taken over soon). */
const settings = (name: string, store: 'memory' | 'redis') => ({
  upstream: { url: agent.url },
  'push-notifications': true,
  'push-allow-private': true,
  'persistence-dir': join(dir, name),
  'drain-timeout-ms': 200,
  ...(store === 'redis' ? { store: 'redis', 'redis-url': REDIS_URL, 'redis-prefix': `${RUN}${name}:`, 'push-follow-lease-ms': 1_000 } : {}),
});

describe.concurrent.each([
  ['memory', 'follows', SLOW_FILE],
  ['memory', 'configs', SLOW_CONFIGS],
  ['redis', 'follows', SLOW_REDIS],
] as const)('store %s, slow %s: a streamed turn with a webhook, the gateway killed once the caller read the task', (store, slow, slowJournal) => {
  it("the gateway started again pushes the turn's end", async () => {
    const name = `first-event-${store}-${slow}`;
    const file = join(dir, `${name}.yaml`);
    await writeFile(file, JSON.stringify({ ...settings(name, store), port: 0 }));
    const first = await serveCli(['--config', file], { track: children, preload: [slowJournal], env: { A2A_TEST_SLOW_FOLLOWS_MS: '1500' } });
    await streamUntilTask(first.url, {
      message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: `slow: killed after its first event (${name})` }] },
      configuration: { taskPushNotificationConfig: { id: 'hook', url: `${receiver.url}/${name}` } },
    });
    first.child.kill('SIGKILL');
    gateways.push(await startTestGateway(settings(name, store)));
    const pushed = await receiver.waitFor(`/${name}`, 1, 15_000);
    expect(pushedStates(pushed).at(-1)).toBe(COMPLETED);
    expect(finalWords(pushed)).toContain(`killed after its first event (${name})`);
  }, 60_000);
});
