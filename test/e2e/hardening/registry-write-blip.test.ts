/**
 * A turn's last registry write caught by a Redis blip, with `store: redis`: the official a2a-js 1.x client streams a
 * real a2a-js 1.x agent's turn (a report in two artifact chunks, then COMPLETED), and the write of its end (the last
 * chunk and COMPLETED, one write) meets a Redis that refuses it for now (BUSY: a script runs long) or holds it past
 * `redis-command-timeout-ms` (CLIENT PAUSE WRITE).
 * The agent then restarts (its tasks were in memory), so GetTask is answered from the gateway's record
 * (lost-task-answers.ts). The write was dropped: the record stayed WORKING for good, and a finished turn read as
 * running. Now it is tried again once Redis takes writes; and a write Redis applied after the client had given up
 * on it (CLIENT PAUSE WRITE holds the command, then runs it) is not applied twice by its retry: the report reads once.
 * A held write is not lost (Redis runs it when the pause ends), but its retry must not fold it again.
 * An outage longer than the quick retries (some 4 s: a restart, a failover) lost the write all the same; now it is
 * tried on, and GetTask once Redis is back has it tried at once. A gateway stopped while the write waits for its
 * next try let go of Redis with the write; now its stop tries it once more first.
 * A redis-server of the test's own: a paused or busy Redis must never be the shared one.
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { TaskState } from 'a2a-sdk-1';
import { InMemoryTaskStore, type AgentExecutor, type ExecutionEventBus, type RequestContext } from 'a2a-sdk-1/server';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { ownRedis, type OwnRedis } from '../../support/redis-server.js';
import { artifactText, sendRequest, textOf, StreamReader } from '../../support/sdk-v1-client.js';
import { Gates, startSdkTestAgent, textPart, turnEvents, type RunningTestAgent } from '../../support/sdk-v1-agent-kit.js';
import { waitUntil } from '../../support/wait-until.js';
import { connectClient } from '../upstreams/sdk1-client.js';

const COMMAND_TIMEOUT_MS = 300;
const REPORT = ['Quota report: 3 of 10 VPCs used. ', 'Region cn-hangzhou has room.'];
const DONE = 'The report is ready.';
/** Longer than the quick retries (some 4 s), shorter than a real failover: the write must wait it out. */
const OUTAGE_MS = 7_000;

const gates = new Gates();

/** The report's first chunk, a wait at the gate (the test turns Redis away), then its last chunk and COMPLETED. */
class Reporter implements AgentExecutor {
  execute = async (request: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    const { opening, status, artifact } = turnEvents(request);
    bus.publish(opening());
    bus.publish(status(TaskState.TASK_STATE_WORKING, 'Counting the VPCs.'));
    bus.publish(artifact('report', [textPart(REPORT[0]!)], false, false));
    await gates.pass();
    bus.publish(artifact('report', [textPart(REPORT[1]!)], true, true));
    bus.publish(status(TaskState.TASK_STATE_COMPLETED, DONE));
  };

  cancelTask = async (): Promise<void> => undefined;
}

/** The agent's in-memory tasks, which a restart loses. */
class ForgettingStore extends InMemoryTaskStore {
  forgotten = false;
  override async load(...args: Parameters<InMemoryTaskStore['load']>): ReturnType<InMemoryTaskStore['load']> {
    return this.forgotten ? undefined : super.load(...args);
  }
}

let redis: OwnRedis;
let admin: Redis;
let store: ForgettingStore;
let agent: RunningTestAgent;
let gateway: TestGateway;
/** The gateways' config but for their key prefix. */
let gatewayConfig: Record<string, unknown>;

beforeAll(async () => {
  redis = await ownRedis();
  admin = new Redis(redis.url);
  store = new ForgettingStore();
  agent = await startSdkTestAgent(
    { name: 'reporter', description: 'Writes a quota report in two chunks', skill: { id: 'report', name: 'Report', description: 'reports' } },
    new Reporter(),
    { taskStore: store },
  );
  gatewayConfig = { upstream: { url: agent.url }, store: 'redis', 'redis-url': redis.url, 'redis-command-timeout-ms': COMMAND_TIMEOUT_MS };
  gateway = await startTestGateway({ ...gatewayConfig, 'redis-prefix': `registry-write-blip-${randomBytes(4).toString('hex')}:` });
});
afterAll(async () => {
  gates.open();
  await gateway?.close();
  await agent?.close();
  admin?.disconnect();
  await redis?.stop();
});

/** The record's document, as Redis holds it. */
async function recorded(taskId: string): Promise<string> {
  const [key] = await admin.keys(`*t:${taskId}`);
  return key ? ((await admin.hget(key, 'd')) ?? '') : '';
}

/** How many lines matching `what` `through` logged so far. */
const logged = (through: TestGateway, what: RegExp) => through.log().filter((entry) => what.test(String(entry.msg))).length;

/**
 * A turn streamed on `through` to its end with its last write met by `blip` (which turns Redis away and returns how
 * to let it take writes again), until the gateway logged `until` of that write: the task's id, its client, and
 * how to end the blip.
 */
async function turnIntoBlip(through: TestGateway, blip: () => Promise<() => Promise<void>>, until = /^task registry write failed/) {
  store.forgotten = false;
  gates.reset(1);
  const client = await connectClient(through.url, 'JSONRPC');
  const stream = new StreamReader(client.sendMessageStream(sendRequest('How many VPCs do I use?')));
  const first = await stream.next();
  const taskId = first?.$case === 'task' ? first.value.id : '';
  await expect.poll(() => gates.reached).toBe(1);
  await waitUntil(async () => (await recorded(taskId)).includes('TASK_STATE_WORKING'));
  const before = logged(through, until);
  const back = await blip();
  gates.open();
  await stream.rest();
  await waitUntil(async () => logged(through, until) > before, 10_000);
  return { taskId, client, back };
}

/**
 * A turn streamed to its end with its last write met by `blip`, once the write failed, then the agent restarted:
 * the task as GetTask shows it after.
 */
async function turnThroughBlip(blip: () => Promise<() => Promise<void>>) {
  const { taskId, client, back } = await turnIntoBlip(gateway, blip);
  await back();
  store.forgotten = true;
  // A read has a waiting write tried at once: until that try, GetTask may show it running.
  const deadline = Date.now() + 8_000;
  for (;;) {
    const task = await client.getTask({ tenant: '', id: taskId, historyLength: undefined });
    if (task.status?.state === TaskState.TASK_STATE_COMPLETED || Date.now() > deadline) return task;
    await sleep(100);
  }
}

/**
 * Redis answers every command BUSY (a script that runs long, past busy-reply-threshold) from now until the returned
 * function is called, `forMs` after at the earliest (0: at once).
 */
async function busyRedis(forMs = 0): Promise<() => Promise<void>> {
  await admin.config('SET', 'busy-reply-threshold', '100');
  const busy = new Redis(redis.url);
  const running = busy.eval('while true do end', 0).catch(() => undefined);
  const busyUntil = Date.now() + forMs;
  await waitUntil(() =>
    admin.ping().then(
      () => false,
      (error: Error) => error.message.startsWith('BUSY'),
    ),
  );
  return async () => {
    await sleep(Math.max(0, busyUntil - Date.now()));
    await admin.call('SCRIPT', 'KILL');
    await running;
    busy.disconnect();
  };
}

describe('a turn whose last registry write meets a Redis blip (store: redis)', () => {
  it('is recorded finished once Redis takes writes again: GetTask shows it completed with its whole report', async () => {
    const task = await turnThroughBlip(() => busyRedis());
    expect(TaskState[task.status?.state ?? 0]).toBe('TASK_STATE_COMPLETED');
    expect(textOf(task.status?.message)).toBe(DONE);
    expect(artifactText(task)).toBe(REPORT.join(''));
  }, 30_000);

  it('is recorded finished after an outage longer than the quick retries (7 s, as a restart or a failover lasts)', async () => {
    const task = await turnThroughBlip(() => busyRedis(OUTAGE_MS));
    expect(TaskState[task.status?.state ?? 0]).toBe('TASK_STATE_COMPLETED');
    expect(textOf(task.status?.message)).toBe(DONE);
    expect(artifactText(task)).toBe(REPORT.join(''));
  }, 30_000);

  it('waiting past the quick retries when the gateway stops, is tried once more before it lets go of Redis', async () => {
    const stopping = await startTestGateway({ ...gatewayConfig, 'redis-prefix': `registry-write-stop-${randomBytes(4).toString('hex')}:` });
    let taskId = '';
    try {
      // Past the quick retries (some 4 s) the next try is 5 s away: a stop now would lose the write with its connection.
      const turn = await turnIntoBlip(stopping, () => busyRedis(), /^task registry write (still failing|lost)/);
      taskId = turn.taskId;
      await turn.back();
    } finally {
      await stopping.close();
    }
    const doc = await recorded(taskId);
    expect(doc).toContain('TASK_STATE_COMPLETED');
    expect(doc.split(REPORT[1]!).length - 1).toBe(1);
  }, 30_000);

  it('is written once when Redis ran the write after the gateway had given up on it: the report is not doubled', async () => {
    const task = await turnThroughBlip(async () => {
      // Writes are held, not refused: the write times out here and Redis runs it when the pause ends.
      const pauseMs = COMMAND_TIMEOUT_MS * 4;
      const pausedUntil = Date.now() + pauseMs;
      await admin.call('CLIENT', 'PAUSE', String(pauseMs), 'WRITE');
      return () => sleep(Math.max(0, pausedUntil - Date.now()));
    });
    expect(TaskState[task.status?.state ?? 0]).toBe('TASK_STATE_COMPLETED');
    expect(artifactText(task)).toBe(REPORT.join(''));
  }, 30_000);
});
