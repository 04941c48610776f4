/**
 * The note of a Bailian turn a rollout cut (rollout-cut-turns.test.ts), against what can happen before and
 * after the user's next message, with a REAL a2a-js 1.x agent: the task's end recorded by a read nobody showed
 * the user (a GetTask), a task that stays at work past the next message's time limit, and one gateway with
 * `store: memory` restarted on its persistence-dir, as a rollout of a single replica replaces its process.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { rpc, startFacadeGateway } from '../../support/facade.js';
import { freshRedisStores, requireRedis } from '../../support/redis.js';
import { Gates, startSdkTestAgent, type RunningTestAgent } from '../../support/sdk-v1-agent-kit.js';
import { waitUntil } from '../../support/wait-until.js';
import { AFTER_CUT, ANSWER, BEFORE_CUT, CARD, CUT_WORDS, DONE, REST_WORDS, RolloutAgent, agentStateOf, read, stream } from './rollout-agent.js';

describe('the note of a turn a rollout cut', () => {
  const gates = new Gates();
  const executor = new RolloutAgent(gates);
  const stores = freshRedisStores('facade-cut-kept', afterAll);
  let agent: RunningTestAgent;
  let dir: string;
  const opened: RunningGateway[] = [];
  const redisReplica = (overrides: Record<string, unknown> = {}) => ({
    upstream: { url: agent.url, ...overrides },
    ...stores,
    'drain-timeout-ms': 200,
    tasks: { 'lane-lease-ms': 2_000 },
  });
  const memoryGateway = () => ({ upstream: { url: agent.url }, 'drain-timeout-ms': 200, 'persistence-dir': dir });
  const started = async (config: Record<string, unknown>): Promise<RunningGateway> => {
    const gateway = await startFacadeGateway(config);
    opened.push(gateway);
    return gateway;
  };

  beforeAll(async () => {
    await requireRedis();
    agent = await startSdkTestAgent(CARD, executor);
    dir = await mkdtemp(join(tmpdir(), 'a2a-bridge-cut-turns-'));
  });
  afterAll(async () => {
    gates.reset(0);
    for (const gateway of opened) await gateway.close().catch(() => undefined);
    await agent?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const agentState = (): Promise<string> => agentStateOf(agent.url, gates.taskId);

  /** A turn on `gateway`, cut by its shutdown while the agent waits at its gate; what the user read of it. */
  async function cutTurn(gateway: RunningGateway, contextId: string): Promise<{ text: string; taskId: string }> {
    gates.reset(1);
    const reading = stream(gateway.url, '规划一个VPC', contextId).then(read);
    await waitUntil(async () => gates.reached === 1);
    await new Promise((resolve) => setTimeout(resolve, 150));
    await gateway.close();
    const cut = await reading;
    expect(cut.text).toContain(BEFORE_CUT.join(''));
    expect(cut.text).toContain(CUT_WORDS);
    return cut;
  }

  it("a GetTask that records the task's end before the next message: that message still shows the rest, once, and is not sent", async () => {
    const contextId = `ctx-read-${randomUUID()}`;
    const replicaB = await started(redisReplica());
    const cut = await cutTurn(await started(redisReplica()), contextId);
    gates.open();
    await waitUntil(async () => (await agentState()) === 'TASK_STATE_COMPLETED');
    // Bailian (or anyone) reads the task: the registry records its end, which the user has not read.
    const got = await rpc(replicaB.url, 'tasks/get', { id: cut.taskId });
    expect(got.body.result?.status?.state).toBe('completed');
    const executions = executor.executions;
    const next = await read(await stream(replicaB.url, '继续', contextId));
    expect(next.text).toContain(REST_WORDS);
    expect(next.text).toContain(AFTER_CUT);
    expect(next.text).toContain(DONE);
    expect(next.text).not.toContain(BEFORE_CUT[0]);
    expect(executor.executions).toBe(executions);
    const after = await read(await stream(replicaB.url, '你好', contextId));
    expect(after.text).toBe(ANSWER);
    expect(executor.executions).toBe(executions + 1);
  });

  it("a task that stays at work: the rest is shown to one message; the next is the conversation's, as any", async () => {
    const contextId = `ctx-stuck-${randomUUID()}`;
    const replicaB = await started(redisReplica({ 'request-timeout-ms': 1_500 }));
    await cutTurn(await started(redisReplica()), contextId);
    const executions = executor.executions;
    // The gate stays shut: the rest's reading ends at the time limit.
    const next = await read(await stream(replicaB.url, '继续', contextId));
    expect(next.text).toContain(REST_WORDS);
    expect(next.text).not.toContain(BEFORE_CUT[0]);
    expect(await agentState()).toBe('TASK_STATE_WORKING');
    // The message after it is the conversation's next, as any: the task still runs, so the user is told to wait.
    const after = await (await stream(replicaB.url, '你好', contextId)).rest();
    expect(JSON.stringify(after)).not.toContain(REST_WORDS);
    expect(after.at(-1)?.json?.error?.message).toBe('智能体仍在处理你的上一条消息，请等它完成后再试。');
    gates.open();
    await waitUntil(async () => (await agentState()) === 'TASK_STATE_COMPLETED');
    const later = await read(await stream(replicaB.url, '你好', contextId));
    expect(later.text).toBe(ANSWER);
    expect(executor.executions).toBe(executions + 1);
  });

  it('one gateway with store memory, restarted on its persistence-dir: the next message shows the rest', async () => {
    const contextId = `ctx-memory-${randomUUID()}`;
    await cutTurn(await started(memoryGateway()), contextId);
    gates.open();
    await waitUntil(async () => (await agentState()) === 'TASK_STATE_COMPLETED');
    const restarted = await started(memoryGateway());
    const executions = executor.executions;
    const next = await read(await stream(restarted.url, '继续', contextId));
    expect(next.text).toContain(REST_WORDS);
    expect(next.text).toContain(AFTER_CUT);
    expect(next.text).toContain(DONE);
    expect(executor.executions).toBe(executions);
  });
});
