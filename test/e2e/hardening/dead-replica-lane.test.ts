/**
 * Two gateway replicas sharing Redis in front of a real a2a-js 1.x agent. The replica streaming a turn is
 * killed; once the agent has finished the turn (GetTask on the other replica says so) and the dead replica has
 * missed a renewal of its lane, the context's next message is admitted there, not after the dead replica's lane
 * lease (`lane-lease-ms`) runs out.
 */
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { deleteRedisKeys, REDIS_URL, requireRedis } from '../../support/redis.js';
import { serveCli } from '../../support/run-cli.js';
import { startSdkV1Agent, type RunningSdkV1Agent } from '../../support/sdk-v1-agent.js';
import { rpc, streamUntilTask } from '../push/unwatched.js';

const RUN = `test-dead-replica-lane-${process.pid}-${randomUUID().slice(0, 8)}:`;
// Renewed every 2 s: taken over 3 s after its last renewal (a renewal missed, dead-holders.ts), run out 6 s after it.
const LANE_LEASE_MS = 6_000;
const RENEW_EVERY_MS = LANE_LEASE_MS / 3;

let agent: RunningSdkV1Agent;
let dir: string;
let survivor: TestGateway | undefined;
const children: ChildProcess[] = [];

beforeAll(requireRedis);
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'a2a-dead-replica-lane-'));
  // A slow turn: ten chunks 150 ms apart, so the replica dies well before the agent finishes it.
  agent = await startSdkV1Agent({ slowChunkDelayMs: 150 });
});
afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await survivor?.close();
  await agent?.close();
  await deleteRedisKeys(RUN);
  await rm(dir, { recursive: true, force: true });
});

const message = (contextId: string, text: string) => ({ messageId: randomUUID(), role: 'ROLE_USER', contextId, parts: [{ text }] });

describe('a replica killed mid-turn', () => {
  it('leaves the context busy while the turn runs, and free on the other replica once the agent finished it', async () => {
    const config = {
      upstream: { url: agent.url },
      store: 'redis',
      'redis-url': REDIS_URL,
      'redis-prefix': RUN,
      tasks: { 'lane-lease-ms': LANE_LEASE_MS },
    };
    const file = join(dir, 'replica-1.yaml');
    await writeFile(file, JSON.stringify({ ...config, port: 0 }));
    // Started side by side; the survivor is kept where afterAll closes it also when the CLI fails to start.
    const [dying, survivorGateway] = await Promise.all([
      serveCli(['--config', file], { track: children }),
      startTestGateway(config).then((started) => (survivor = started)),
    ]);

    const contextId = randomUUID();
    const sentAt = Date.now();
    const { taskId } = await streamUntilTask(dying.url, { message: message(contextId, 'slow: a turn that outlives its replica') }, false);
    await new Promise((resolve) => setTimeout(resolve, 300));
    dying.child.kill('SIGKILL');
    const killedAt = Date.now();

    // The agent is still at it: no second turn.
    const busy = await rpc(survivorGateway.url, 'SendMessage', { message: message(contextId, 'too early') });
    expect(busy.error).toMatchObject({ code: -32602, message: `Context ${contextId} already has a turn in progress; retry when it has finished` });

    let state: string | undefined;
    for (let i = 0; i < 100 && state !== 'TASK_STATE_COMPLETED'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      state = (await rpc(survivorGateway.url, 'GetTask', { id: taskId, historyLength: 0 })).result?.status?.state;
    }
    expect(state).toBe('TASK_STATE_COMPLETED');

    let next = await rpc(survivorGateway.url, 'SendMessage', { message: message(contextId, 'the next turn') });
    while (next.error?.code === -32602 && Date.now() - killedAt < LANE_LEASE_MS) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      next = await rpc(survivorGateway.url, 'SendMessage', { message: message(contextId, 'the next turn') });
    }
    expect(next.error).toBeUndefined();
    expect(next.result?.task?.status?.state).toBe('TASK_STATE_COMPLETED');
    // Before the lease could have run out: a whole lease after its last renewal, which came after the turn was sent
    // and at most one interval before the kill.
    const leaseRunsOutAfterKill = Math.max(sentAt + LANE_LEASE_MS, killedAt + LANE_LEASE_MS - RENEW_EVERY_MS) - killedAt;
    expect(Date.now() - killedAt).toBeLessThan(leaseRunsOutAfterKill);
  }, 30_000);
});
