/**
 * The agent asks a question on a turn streamed through replica A; the caller's answer goes to replica B (the
 * load balancer's choice), streamed or blocking, on each binding. What the answer's caller gets, and what
 * either replica then answers of the task, is the whole conversation once: the question, the answer, the
 * rest of the agent's work. Two answers at once on both replicas: one is taken. A question canceled on B.
 */
import { TaskState } from 'a2a-sdk-1';
import type { Client } from 'a2a-sdk-1/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestGateway } from '../../support/gateway.js';
import { requireRedis } from '../../support/redis.js';
import { asTask, payloadRef, sendRequest, StreamReader } from '../../support/sdk-v1-client.js';
import { askWords, QUESTION_DROPPED } from './deploy-agent.js';
import { agentClient, BINDINGS, sdkClient, startDeployment, UPSTREAMS, type Deployment } from './deployment.js';
import { historyLines, streamedArtifacts, streamedLines, taskArtifacts } from './seen.js';

let deployment: Deployment<TestGateway>;
let direct: Client;
beforeAll(requireRedis);

/** The task's artifacts once the answered turn ended: the notes whole, and the placement. */
const artifactsAfter = (answered: ReturnType<typeof askWords>) => ({
  notes: [`[text/plain] ${answered.notes.join('')}`],
  placement: [`[text/plain] ${answered.placement}`],
});

const get = (client: Client, id: string) => client.getTask({ tenant: '', id, historyLength: undefined });

/** `ask NAME` streamed on `client` until the agent's question: the task, its context and what the stream said. */
async function askedOn(client: Client, name: string) {
  const stream = new StreamReader(client.sendMessageStream(sendRequest(`ask ${name}`)));
  const payloads = await stream.rest();
  return { ...payloadRef(payloads[0]!), payloads };
}

describe.each(UPSTREAMS)('the agent called over %s', (upstream) => {
  beforeAll(async () => {
    deployment = await startDeployment({ upstream });
    direct = await agentClient(deployment.agent, upstream);
  });
  afterAll(() => deployment?.close());

  // Each test asks a question of its own (names carry the binding): they wait on the agent's steps side by side.
  describe.concurrent.each(BINDINGS)('over %s', (binding) => {
    it('the question streamed on A, the answer streamed on B: the answer opens with the whole task, then the rest once', async ({ expect }) => {
      const [onA, onB] = [await sdkClient(deployment.a, binding), await sdkClient(deployment.b, binding)];
      const name = `db-${binding}`;
      const { taskId, contextId, payloads } = await askedOn(onA, name);
      const asked = askWords(name);
      expect(streamedLines(payloads).at(-1)).toBe(`input-required: [text/plain] ${asked.question}`);

      const answered = askWords(name, 'eu-west-1');
      const answer = await new StreamReader(onB.sendMessageStream(sendRequest('eu-west-1', { taskId, contextId }))).rest();
      expect(answer[0]?.$case).toBe('task');
      const opening = answer[0]?.$case === 'task' ? answer[0].value : undefined;
      expect(historyLines(opening!)).toEqual([
        `user: ask ${name}`,
        ...asked.progress.map((line) => `agent: [text/plain] ${line}`),
        `agent: [text/plain] ${asked.question}`,
        'user: eu-west-1',
      ]);
      expect(streamedLines(answer.slice(1))).toEqual([
        ...answered.resumed.map((line) => `working: [text/plain] ${line}`),
        `completed: [text/plain] ${answered.done}`,
      ]);
      // The notes begun before the question (in the opening Task) and finished after the answer, appended once.
      expect(streamedArtifacts(answer.slice(1), opening?.artifacts)).toEqual(artifactsAfter(answered));

      const [fromA, fromB, atAgent] = [await get(onA, taskId), await get(onB, taskId), await get(direct, taskId)];
      expect(fromA).toEqual(fromB);
      expect(historyLines(fromB)).toEqual(historyLines(atAgent));
      expect(taskArtifacts(fromB)).toEqual(taskArtifacts(atAgent));
      expect(fromB.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    });

    it('the question asked on A, the answer sent blocking on B: the completed task, the same on both replicas', async ({ expect }) => {
      const [onA, onB] = [await sdkClient(deployment.a, binding), await sdkClient(deployment.b, binding)];
      const name = `cache-${binding}`;
      const { taskId, contextId } = await askedOn(onA, name);
      const answered = askWords(name, 'ap-south-1');
      const task = asTask(await onB.sendMessage(sendRequest('ap-south-1', { taskId, contextId })));
      expect(task.id).toBe(taskId);
      expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(historyLines(task).filter((line) => line === 'user: ap-south-1')).toHaveLength(1);
      expect(taskArtifacts(task)).toEqual(artifactsAfter(answered));
      const [fromA, atAgent] = [await get(onA, taskId), await get(direct, taskId)];
      expect(fromA).toEqual(await get(onB, taskId));
      expect(historyLines(fromA)).toEqual(historyLines(atAgent));
    });
  });

  describe('two answers at once', () => {
    it('one answer on A and one on B to the same question: the agent runs one of them, the other is refused', async () => {
      const [onA, onB] = [await sdkClient(deployment.a, 'JSONRPC'), await sdkClient(deployment.b, 'JSONRPC')];
      const { taskId, contextId } = await askedOn(onA, 'queue');
      const before = deployment.agent.turns.filter((id) => id === taskId).length;
      // Two answers at once on both replicas: the task takes one, the other is refused (one turn per context).
      const results = await Promise.allSettled([
        onB.sendMessage(sendRequest('us-east-1', { taskId, contextId })),
        onA.sendMessage(sendRequest('us-west-2', { taskId, contextId })),
      ]);
      const fulfilled = results.filter((result) => result.status === 'fulfilled');
      expect(fulfilled, JSON.stringify(results.map((r) => (r.status === 'rejected' ? String(r.reason) : 'ok')))).toHaveLength(1);
      expect(deployment.agent.turns.filter((id) => id === taskId).length - before).toBe(1);
      const task = await get(onB, taskId);
      expect(historyLines(task).filter((line) => line.startsWith('user: us-'))).toHaveLength(1);
      expect(await get(onA, taskId)).toEqual(task);
    });
  });

  describe('a question left unanswered', () => {
    it.concurrent.for(BINDINGS)(
      "over %s: CancelTask on B of the question asked on A: canceled with the agent's words, on both replicas",
      async (binding, { expect }) => {
        const [onA, onB] = [await sdkClient(deployment.a, binding), await sdkClient(deployment.b, binding)];
        const { taskId } = await askedOn(onA, `dropped-${binding}`);
        const canceled = await onB.cancelTask({ tenant: '', id: taskId, metadata: undefined });
        expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
        expect(canceled.status?.message?.parts.map((part) => (part.content?.$case === 'text' ? part.content.value : ''))).toEqual([QUESTION_DROPPED]);
        expect(await get(onA, taskId)).toEqual(await get(onB, taskId));
        expect(historyLines(await get(onA, taskId))).toEqual(historyLines(await get(direct, taskId)));
      },
    );
  });
});
