/**
 * Push through a crash of the real CLI (`a2a-bridge serve`, SIGKILL) on the local-file stores (and the first case
 * also with `store: redis`), a real a2a-js
 * 1.x agent upstream: what the gateway answered for is still pushed by the gateway started again on the same
 * persistence-dir.
 *   - a `returnImmediately` turn with its webhook, answered while it runs, the gateway killed at once (its disk slow:
 *     the follow's journal entry still being written): the turn's end is pushed after the restart;
 *   - the same with the webhook given by CreateTaskPushNotificationConfig, killed once it answered;
 *   - a turn's end queued for a webhook that was down at the crash: delivered once the webhook is back, after
 *     the restart (at-least-once);
 *   - a push_configs.json left damaged: the start refuses with a line naming it; moved aside, it starts;
 *   - a streamed turn with its webhook, killed as soon as the caller read the first event naming the task (the config
 *     or the follow slow to write, on either store): the caller was told the task exists, so its end is pushed.
 */
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { deleteRedisKeys, REDIS_URL, requireRedis } from '../../support/redis.js';
import { cli, root, serveCli } from '../../support/run-cli.js';
import { startSdkV1Agent, type RunningSdkV1Agent } from '../../support/sdk-v1-agent.js';
import { Receiver } from '../push/harness.js';
import { finalWords, pushedStates, rpc, streamUntilTask } from '../push/unwatched.js';

const COMPLETED = 'TASK_STATE_COMPLETED';
const RUN = `test-crash-push-${process.pid}-${randomUUID().slice(0, 8)}:`;
const SLOW_FOLLOWS = join(root, 'test/e2e/hardening/fixtures/slow-follow-journal.mjs');
const SLOW_REDIS_FOLLOWS = join(root, 'test/e2e/hardening/fixtures/slow-follow-journal-redis.mjs');

let agent: RunningSdkV1Agent;
let receiver: Receiver;
let dir: string;
const children: ChildProcess[] = [];
const gateways: TestGateway[] = [];

beforeAll(requireRedis);
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'a2a-crash-push-'));
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

/** `name`'s state: its persistence-dir, and with `store: redis` its Redis prefix (a short follow lease: a dead one's follows are taken over soon). */
const settings = (name: string) => ({
  upstream: { url: agent.url },
  'push-notifications': true,
  'push-allow-private': true,
  'persistence-dir': join(dir, name),
  'drain-timeout-ms': 200,
  ...(name.endsWith('-redis') ? { store: 'redis', 'redis-url': REDIS_URL, 'redis-prefix': `${RUN}${name}:`, 'push-follow-lease-ms': 1_000 } : {}),
});

/** `a2a-bridge serve` on `name`'s state, to be killed; `env` reaches its preloaded modules. */
async function inChild(name: string, preload: string[] = [], env: NodeJS.ProcessEnv = {}) {
  const file = join(dir, `${name}-${children.length}.yaml`);
  await writeFile(file, JSON.stringify({ ...settings(name), port: 0 }));
  return serveCli(['--config', file], { track: children, preload, env });
}

/** The gateway started again on `name`'s state (in this process: a quicker start). */
async function restarted(name: string): Promise<TestGateway> {
  const gateway = await startTestGateway(settings(name));
  gateways.push(gateway);
  return gateway;
}

const send = (url: string, name: string, text: string, returnImmediately: boolean) =>
  rpc(url, 'SendMessage', {
    message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }] },
    configuration: { returnImmediately, taskPushNotificationConfig: { id: 'hook', url: `${receiver.url}/${name}` } },
  });

describe.concurrent('the gateway killed (SIGKILL) with push under way', () => {
  it.each([
    ['local-file stores, a slow disk', 'answered-then-killed'],
    ['store: redis', 'answered-then-killed-redis'],
  ])(
    '%s: a returnImmediately turn answered while it runs, killed at once: its end is pushed after the restart',
    async (_how, name) => {
      const first = await inChild(name, [SLOW_FOLLOWS], { A2A_TEST_SLOW_FOLLOWS_MS: '1500' });
      const answer = await send(first.url, name, `slow: answered, then killed (${name})`, true);
      first.child.kill('SIGKILL');
      expect(answer.result?.task?.status?.state).toMatch(/^TASK_STATE_(SUBMITTED|WORKING)$/);
      await restarted(name);
      await receiver.waitFor(`/${name}`, 1, 15_000);
      expect(pushedStates(receiver.at(`/${name}`)).at(-1)).toBe(COMPLETED);
    },
    30_000,
  );

  it('a config created for a running turn (CreateTaskPushNotificationConfig answered), killed at once: its end is pushed', async () => {
    const name = 'configured-then-killed';
    const first = await inChild(name, [SLOW_FOLLOWS], { A2A_TEST_SLOW_FOLLOWS_MS: '1500' });
    const answer = await rpc(first.url, 'SendMessage', {
      message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: `slow: configured, then killed (${name})` }] },
      configuration: { returnImmediately: true },
    });
    const taskId = answer.result?.task?.id as string;
    const created = await rpc(first.url, 'CreateTaskPushNotificationConfig', { taskId, id: 'hook', url: `${receiver.url}/${name}` });
    first.child.kill('SIGKILL');
    expect(created.result?.url).toBe(`${receiver.url}/${name}`);
    await restarted(name);
    await receiver.waitFor(`/${name}`, 1, 15_000);
    expect(pushedStates(receiver.at(`/${name}`)).at(-1)).toBe(COMPLETED);
  }, 30_000);

  it("a turn's end queued for a webhook down at the crash is delivered after the restart", async () => {
    const name = 'webhook-down';
    const down = new Receiver();
    await down.up();
    const hook = `${down.url}/${name}`;
    await down.down();
    const first = await inChild(name);
    const answer = await rpc(first.url, 'SendMessage', {
      message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: `quick (${name})` }] },
      configuration: { taskPushNotificationConfig: { id: 'hook', url: hook } },
    });
    expect(answer.result?.task?.status?.state).toBe(COMPLETED);
    // Its first attempt refused (nobody listens), its retry waits: then the crash.
    await first.logged((entry) => entry.msg === 'A2A push notification not delivered: tried again later');
    first.child.kill('SIGKILL');
    await down.up();
    try {
      await restarted(name);
      await down.waitFor(`/${name}`, 1, 15_000);
      expect(pushedStates(down.at(`/${name}`))).toContain(COMPLETED);
    } finally {
      await down.down();
    }
  }, 30_000);

  it('a damaged push_configs.json stops the start with a line naming it; moved aside, the gateway starts', async () => {
    const name = 'damaged-configs';
    const first = await inChild(name);
    await send(first.url, name, `quick (${name})`, false);
    first.child.kill('SIGKILL');
    const path = join(dir, name, 'push_configs.json');
    await writeFile(path, '[{"owner":"anonymous","taskId":"');
    const file = join(dir, `${name}-again.yaml`);
    await writeFile(file, JSON.stringify({ ...settings(name), port: 0 }));
    const refused = await cli(['serve', '--config', file]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`a2a-bridge: cannot start: ${path} (in persistence-dir) is damaged`);
    expect(refused.stderr).toContain('move it aside to start without what it held');
    await rename(path, `${path}.damaged`);
    await restarted(name);
  }, 30_000);
});

describe.concurrent('a streamed turn with its webhook, the gateway killed (SIGKILL) once the caller read its first event', () => {
  it.each([
    ['local-file stores, the follow slow to write', 'streamed-first-event', SLOW_FOLLOWS, 'push_follows.json'],
    ['local-file stores, the config slow to write', 'streamed-first-event-configs', SLOW_FOLLOWS, 'push_configs.json'],
    ['store: redis, the follow slow to write', 'streamed-first-event-redis', SLOW_REDIS_FOLLOWS, ''],
  ])(
    "%s: the gateway started again pushes the turn's end",
    async (_how, name, slow, slowFile) => {
      const first = await inChild(name, [slow], { A2A_TEST_SLOW_FOLLOWS_MS: '1500', A2A_TEST_SLOW_FILE: slowFile });
      await streamUntilTask(first.url, {
        message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: `slow: killed after its first event (${name})` }] },
        configuration: { taskPushNotificationConfig: { id: 'hook', url: `${receiver.url}/${name}` } },
      });
      first.child.kill('SIGKILL');
      await restarted(name);
      await receiver.waitFor(`/${name}`, 1, 15_000);
      expect(pushedStates(receiver.at(`/${name}`)).at(-1)).toBe(COMPLETED);
      expect(finalWords(receiver.at(`/${name}`))).toContain(`killed after its first event (${name})`);
    },
    60_000,
  );
});
