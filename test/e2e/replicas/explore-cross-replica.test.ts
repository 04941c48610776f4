/**
 * A 1.x SDK caller sends on replica A and goes on on replica B, on each binding: what B answers of the task
 * (GetTask, ListTasks, SubscribeToTask, CancelTask) is what A answers and what the agent said, every word
 * and file once, its failure's reason too; whichever binding the replicas call the agent over. B knows a new task
 * the moment A's stream gives its caller the id, however late A's Redis writes land.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TaskState } from 'a2a-sdk-1';
import type { Client } from 'a2a-sdk-1/client';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { startLaggingRedis, type LaggingRedis } from '../../support/lagging-redis.js';
import { deleteRedisKeys, REDIS_URL, requireRedis } from '../../support/redis.js';
import { asTask, listRequest, payloadRef, sendRequest, StreamReader } from '../../support/sdk-v1-client.js';
import { deployWords, failWords, longWords, startDeployAgent, type RunningDeployAgent } from './deploy-agent.js';
import { agentClient, ALICE, BINDINGS, BOB, sdkClient, startDeployment, UPSTREAMS, type Deployment } from './deployment.js';
import { historyLines, streamedArtifacts, streamedLines, taskArtifacts } from './seen.js';

beforeAll(requireRedis);

const get = (client: Client, id: string) => client.getTask({ tenant: '', id, historyLength: undefined });

// Each binding to the agent has a deployment of its own (its own agent, replicas and Redis prefix): they run side by side,
// and beside the lagging replicas' describe below.
describe.concurrent.each(UPSTREAMS)('the agent called over %s', (upstream) => {
  let deployment: Deployment<TestGateway>;
  let direct: Client;
  beforeAll(async () => {
    deployment = await startDeployment({ upstream });
    direct = await agentClient(deployment.agent, upstream);
  });
  afterAll(() => deployment?.close());

  // Each test starts a task of its own (names carry the binding) and reads it back by its id or its own context:
  // they wait on the agent's 150 ms steps side by side. Following a turn under way stays one at a time: its
  // subscription has to join before the last of 8 steps.
  describe.concurrent.each(BINDINGS)('over %s', (binding) => {
    it('a turn streamed on A reads the same on B as on A and at the agent, every word and file once', async ({ expect }) => {
      const [onA, onB] = [await sdkClient(deployment.a, binding), await sdkClient(deployment.b, binding)];
      const name = `web-${binding}`;
      const words = deployWords(name);
      const payloads = await new StreamReader(onA.sendMessageStream(sendRequest(`deploy ${name}`))).rest();
      const { taskId } = payloadRef(payloads[0]!);

      expect(streamedLines(payloads).filter((line) => line !== 'submitted')).toEqual([
        ...words.progress.map((line) => `working: [text/plain] ${line}`),
        `completed: [text/plain] ${words.done}`,
      ]);
      expect(streamedArtifacts(payloads)).toEqual({
        plan: [`[text/plain] ${words.plan.join('')}`],
        manifest: [`[manifest.json application/json] raw:${words.manifest.toString()}`, `[application/json] data:${JSON.stringify(words.data)}`],
      });

      const [fromA, fromB, atAgent] = [await get(onA, taskId), await get(onB, taskId), await get(direct, taskId)];
      expect(fromB).toEqual(fromA);
      expect(fromB.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(taskArtifacts(fromB)).toEqual(streamedArtifacts(payloads));
      expect(taskArtifacts(fromB)).toEqual(taskArtifacts(atAgent));
      expect(historyLines(fromB)).toEqual(historyLines(atAgent));

      const listed = await onB.listTasks(listRequest({ contextId: fromA.contextId, includeArtifacts: true }));
      expect(listed.tasks.map((task) => task.id)).toEqual([taskId]);
      expect(taskArtifacts(listed.tasks[0]!)).toEqual(taskArtifacts(fromA));
    });

    it.sequential('SubscribeToTask on B follows a turn streamed on A to its end: the rest of what the agent says, once', async ({ expect }) => {
      const [onA, onB] = [await sdkClient(deployment.a, binding), await sdkClient(deployment.b, binding)];
      const name = `worker-${binding}`;
      const words = longWords(name, 8);
      const streamed = new StreamReader(onA.sendMessageStream(sendRequest(`long ${name} 8`)));
      const { taskId } = payloadRef(await streamed.expectNext());
      // A few steps in: the subscription joins a turn under way on another replica.
      for (let payload = await streamed.expectNext(); !(payload.$case === 'artifactUpdate' && payload.value.append);) {
        payload = await streamed.expectNext();
      }
      const subscribed = await new StreamReader(onB.resubscribeTask({ tenant: '', id: taskId })).rest();
      const streamedRest = await streamed.rest();

      expect(subscribed[0]?.$case).toBe('task');
      const opening = subscribed[0]?.$case === 'task' ? subscribed[0].value : undefined;
      expect(streamedArtifacts(subscribed.slice(1), opening?.artifacts)).toEqual({ log: [`[text/plain] ${words.lines.join('')}`] });
      const said = [...historyLines(opening!).filter((line) => line.startsWith('agent: ')), ...streamedLines(subscribed.slice(1))];
      expect(said.at(-1)).toBe(`completed: [text/plain] ${words.done}`);
      // Every step said once, between what the Task held and what came after it.
      for (const line of words.progress)
        expect(
          said.filter((seen) => seen.endsWith(line)),
          line,
        ).toHaveLength(1);
      expect(streamedLines(streamedRest).at(-1)).toBe(`completed: [text/plain] ${words.done}`);
      // Both replicas recorded the turn's events (A from its stream, B from its subscription): the task holds each once.
      const [fromA, fromB, atAgent] = [await get(onA, taskId), await get(onB, taskId), await get(direct, taskId)];
      expect(fromB).toEqual(fromA);
      expect(taskArtifacts(fromB)).toEqual({ log: [`[text/plain] ${words.lines.join('')}`] });
      expect(historyLines(fromB)).toEqual(historyLines(atAgent));
    });

    it("CancelTask on B stops a turn streamed on A: both callers see it canceled, with the agent's reason", async ({ expect }) => {
      const [onA, onB] = [await sdkClient(deployment.a, binding), await sdkClient(deployment.b, binding)];
      const name = `batch-${binding}`;
      const streamed = new StreamReader(onA.sendMessageStream(sendRequest(`long ${name} 20`)));
      const { taskId } = payloadRef(await streamed.expectNext());
      await streamed.expectNext();

      const canceled = await onB.cancelTask({ tenant: '', id: taskId, metadata: undefined });
      expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
      expect(historyLines(canceled).length).toBeGreaterThan(0);
      const rest = await streamed.rest();
      expect(streamedLines(rest).at(-1)).toBe(`canceled: [text/plain] ${longWords(name, 0).canceled}`);
      expect(await get(onA, taskId)).toEqual(await get(onB, taskId));
      expect((await get(onA, taskId)).status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    });

    it("a turn that fails on A: its reason reaches the stream once, and B's GetTask and ListTasks as the agent gave it", async ({ expect }) => {
      const [onA, onB] = [await sdkClient(deployment.a, binding), await sdkClient(deployment.b, binding)];
      const words = failWords(`db-${binding}`);
      const payloads = await new StreamReader(onA.sendMessageStream(sendRequest(`fail db-${binding}`))).rest();
      const { taskId, contextId } = payloadRef(payloads[0]!);
      expect(streamedLines(payloads).filter((line) => line !== 'submitted')).toEqual([
        `working: [text/plain] ${words.progress}`,
        `failed: [text/plain] ${words.reason}`,
      ]);
      const [fromA, fromB, atAgent] = [await get(onA, taskId), await get(onB, taskId), await get(direct, taskId)];
      expect(fromB).toEqual(fromA);
      expect(fromB.status?.state).toBe(TaskState.TASK_STATE_FAILED);
      expect(fromB.status?.message).toEqual(atAgent.status?.message);
      expect(historyLines(fromB)).toEqual(historyLines(atAgent));
      const listed = await onB.listTasks(listRequest({ contextId, status: TaskState.TASK_STATE_FAILED }));
      expect(listed.tasks.map((task) => task.status?.message)).toEqual([atAgent.status?.message]);
    });

    it('a blocking SendMessage on A is listed on B at once, and reads the same there', async ({ expect }) => {
      const [onA, onB] = [await sdkClient(deployment.a, binding), await sdkClient(deployment.b, binding)];
      const task = asTask(await onA.sendMessage(sendRequest(`deploy api-${binding}`)));
      expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(await get(onB, task.id)).toEqual(await get(onA, task.id));
      const listed = await onB.listTasks(listRequest({ contextId: task.contextId }));
      expect(listed.tasks.map((listedTask) => listedTask.status?.state)).toEqual([TaskState.TASK_STATE_COMPLETED]);
    });
  });
});

/** How late replica A's every Redis command lands: a registry write of A's well after B is asked. */
const A_REDIS_LAG_MS = 300;

describe.concurrent(`replica A's Redis commands landing ${A_REDIS_LAG_MS} ms late (a busy Redis, a slow link)`, () => {
  const prefix = `test-replicas-lag-${process.pid}-${randomUUID().slice(0, 8)}:`;
  let agent: RunningDeployAgent;
  let lagging: LaggingRedis;
  let dir: string;
  const replicas: TestGateway[] = [];
  beforeAll(async () => {
    agent = await startDeployAgent();
    lagging = await startLaggingRedis(REDIS_URL, A_REDIS_LAG_MS);
    dir = await mkdtemp(join(tmpdir(), 'a2a-replicas-lag-'));
    const settings = { upstream: { url: agent.url }, auth: { tokens: [ALICE, BOB] }, store: 'redis', 'redis-prefix': prefix, grpc: { port: 0 } };
    for (const [name, url] of [
      ['a', lagging.url],
      ['b', REDIS_URL],
    ] as const) {
      replicas.push(await startTestGateway({ ...settings, 'redis-url': url, 'persistence-dir': join(dir, name) }));
    }
  });
  afterAll(async () => {
    for (const replica of replicas.splice(0)) await replica.close();
    await lagging?.close();
    await agent?.close();
    await deleteRedisKeys(prefix);
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  // Each cancels a task of its own: side by side, each waiting on A's late writes, beside the describes above.
  it.for(BINDINGS)(
    "CancelTask on B with the id A's stream just opened with (over %s): B knows the new task and cancels it",
    async (binding, { expect }) => {
      const [a, b] = replicas as [TestGateway, TestGateway];
      const [onA, onB] = [await sdkClient(a, binding), await sdkClient(b, binding)];
      const name = `lagged-${binding}`;
      const streamed = new StreamReader(onA.sendMessageStream(sendRequest(`long ${name} 20`)));
      const { taskId } = payloadRef(await streamed.expectNext());

      // At once: the caller holds the id, and B reads the shared registry, which under credentials must hold the task.
      const canceled = await onB.cancelTask({ tenant: '', id: taskId, metadata: undefined });
      expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
      expect(streamedLines(await streamed.rest()).at(-1)).toBe(`canceled: [text/plain] ${longWords(name, 0).canceled}`);
      expect((await get(onB, taskId)).status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    },
  );
});
