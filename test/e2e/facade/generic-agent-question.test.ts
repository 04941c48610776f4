/**
 * A Bailian user in front of an agent that is not iac-code, which says INPUT_REQUIRED only when it asks its user
 * something: a real a2a-js 1.x agent, and a real a2a-js 0.2.5 agent the gateway translates. Read with the a2a-js
 * 0.2.5 client (what Bailian speaks), its question must end `input-required`, so that Bailian routes the user's
 * answer back to it (docs/bailian.md, "States Bailian understands"): shown `completed`, an app of several agents
 * could hand "cn-hangzhou" to its own model or another agent, and a cancel would be refused as finished.
 * iac-code, which ends every turn INPUT_REQUIRED, its answers too, still ends its ordinary turn `completed`.
 */
import { randomUUID } from 'node:crypto';
import type { Task as V025Task, TaskStatusUpdateEvent } from 'a2a-sdk-025';
import { A2AClient } from 'a2a-sdk-025/client';
import { InMemoryTaskStore as V025TaskStore, type AgentExecutor as V025Executor } from 'a2a-sdk-025/server';
import { TaskState, type Task } from 'a2a-sdk-1';
import { AgentEvent, InMemoryTaskStore, type AgentExecutor, type ServerCallContext } from 'a2a-sdk-1/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { collect, fakeIacCodeBehindGateway, sdkParams, sentText, startFacadeGateway, streamedText } from '../../support/facade.js';
import { promptOf, startSdkTestAgent, statusEvent, turnEvents } from '../../support/sdk-v1-agent-kit.js';
import { saidStatus, startSdkV025Server } from '../../support/sdk-v025-server.js';

const QUESTION = 'Which region should the VPC go in?';
const created = (region: string): string => `VPC created in ${region}.`;

/** The agent behind the gateway: what each task heard, and the state it keeps each task in. */
interface AskingAgent {
  url: string;
  heard: Map<string, string[]>;
  stateOf(taskId: string): string | undefined;
  close(): Promise<void>;
}

const noted = (heard: Map<string, string[]>, taskId: string, prompt: string) => heard.set(taskId, [...(heard.get(taskId) ?? []), prompt]);

/** An a2a-js 1.x agent: a new task asks QUESTION in its input-required status; the answer, sent into it, completes it. */
async function startV1Agent(): Promise<AskingAgent> {
  const heard = new Map<string, string[]>();
  const states = new Map<string, string>();
  const contexts = new Map<string, string>();
  class Store extends InMemoryTaskStore {
    override async save(task: Task, context: ServerCallContext): Promise<void> {
      states.set(task.id, TaskState[task.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED]);
      await super.save(task, context);
    }
  }
  const executor: AgentExecutor = {
    execute: async (request, bus) => {
      const prompt = promptOf(request.userMessage);
      noted(heard, request.taskId, prompt);
      contexts.set(request.taskId, request.contextId);
      const { opening, status } = turnEvents(request);
      if (request.task?.status?.state === TaskState.TASK_STATE_INPUT_REQUIRED) {
        // The SDK refuses a stream that does not open with the Task, also when it goes on with one.
        bus.publish(AgentEvent.task(request.task));
        bus.publish(status(TaskState.TASK_STATE_COMPLETED, created(prompt)));
        return;
      }
      bus.publish(opening());
      bus.publish(status(TaskState.TASK_STATE_INPUT_REQUIRED, QUESTION));
    },
    // The SDK hands a cancel to the executor while it still holds the task's event bus, and waits for its end.
    cancelTask: async (taskId, bus) => {
      const contextId = contexts.get(taskId) ?? '';
      bus.publish(statusEvent(taskId, contextId, TaskState.TASK_STATE_CANCELED));
    },
  };
  const skill = { id: 'vpc', name: 'VPC', description: 'Creates a VPC, asking where' };
  const agent = await startSdkTestAgent({ name: 'vpc-maker', description: 'Asks which region, then creates the VPC', skill }, executor, {
    taskStore: new Store(),
  });
  return { url: agent.url, heard, stateOf: (taskId) => states.get(taskId)?.replace('TASK_STATE_', '').toLowerCase(), close: agent.close };
}

/** The same agent on a2a-js 0.2.5, which the gateway translates to 1.0 and back. */
async function startV025Agent(): Promise<AskingAgent> {
  const heard = new Map<string, string[]>();
  const states = new Map<string, string>();
  class Store extends V025TaskStore {
    override async save(task: V025Task): Promise<void> {
      states.set(task.id, task.status.state);
      await super.save(task);
    }
  }
  const executor: V025Executor = {
    async execute(request, bus) {
      const { taskId, contextId } = request;
      const prompt = request.userMessage.parts.map((part) => (part.kind === 'text' ? part.text : '')).join('');
      noted(heard, taskId, prompt);
      const say = (state: TaskStatusUpdateEvent['status']['state'], text: string) =>
        bus.publish(saidStatus({ taskId, contextId }, state, text, true));
      if (request.task?.status.state === 'input-required') say('completed', created(prompt));
      else {
        bus.publish({
          kind: 'task',
          id: taskId,
          contextId,
          status: { state: 'submitted', timestamp: new Date().toISOString() },
          history: [request.userMessage],
        });
        say('input-required', QUESTION);
      }
      bus.finished();
    },
    async cancelTask() {},
  };
  const card = {
    name: 'vpc-maker',
    description: 'Asks which region, then creates the VPC',
    skills: [{ id: 'vpc', name: 'VPC', description: 'VPCs', tags: ['vpc'] }],
  };
  const server = await startSdkV025Server({ card, executor, store: new Store() });
  return { url: server.url, heard, stateOf: (taskId) => states.get(taskId), close: server.close };
}

/** What a Bailian user reads of one turn over the a2a-js 0.2.5 client, the task it was shown, and whether that state was final. */
interface Read {
  text: string;
  state: string | undefined;
  taskId: string;
  final: boolean;
}

const turns: Record<'stream' | 'send', (client: A2AClient, text: string, contextId: string) => Promise<Read>> = {
  async stream(client, text, contextId) {
    const events = await collect(client.sendMessageStream(sdkParams(text, { contextId })));
    const last = events.at(-1);
    return {
      text: streamedText(events),
      state: last?.status?.state,
      taskId: events[0]?.id,
      final: last?.kind === 'status-update' && last.final === true,
    };
  },
  async send(client, text, contextId) {
    const sent: any = await client.sendMessage(sdkParams(text, { contextId }));
    expect(sent.error).toBeUndefined();
    return { text: sentText(sent.result), state: sent.result.status.state, taskId: sent.result.id, final: sent.result.kind === 'task' };
  },
};

describe.each([
  ['an a2a-js 1.x agent', startV1Agent],
  ['an a2a-js 0.2.5 agent, translated', startV025Agent],
])('%s asks its Bailian user a question (bailian profile)', (_, start) => {
  let agent: AskingAgent;
  let gateway: RunningGateway;
  let client: A2AClient;
  beforeAll(async () => {
    agent = await start();
    gateway = await startFacadeGateway({ upstream: { url: agent.url } });
    client = new A2AClient(gateway.url);
  });
  afterAll(async () => {
    await gateway?.close();
    await agent?.close();
  });

  it.each(['stream', 'send'] as const)(
    'message/%s: the question ends input-required; tasks/get says so meanwhile; the answer in the conversation completes that task',
    async (method) => {
      const contextId = `vpc-${method}-${randomUUID()}`;
      const asked = await turns[method](client, 'Create a VPC', contextId);
      expect(asked).toMatchObject({ text: QUESTION, state: 'input-required', final: true });

      const meanwhile: any = await client.getTask({ id: asked.taskId });
      expect(meanwhile.result).toMatchObject({ id: asked.taskId, status: { state: 'input-required' } });
      expect(sentText(meanwhile.result)).toBe(QUESTION);

      const answered = await turns[method](client, 'cn-hangzhou', contextId);
      expect(answered).toMatchObject({ text: created('cn-hangzhou'), state: 'completed', taskId: asked.taskId, final: true });
      expect(agent.heard.get(asked.taskId)).toStrictEqual(['Create a VPC', 'cn-hangzhou']);
    },
  );

  it('tasks/cancel of the task waiting on its user goes to the agent, which cancels it', async () => {
    const asked = await turns.send(client, 'Create a VPC', `vpc-cancel-${randomUUID()}`);
    expect(asked.state).toBe('input-required');
    const canceled: any = await client.cancelTask({ id: asked.taskId });
    expect(canceled.error).toBeUndefined();
    expect(canceled.result).toMatchObject({ id: asked.taskId });
    expect(agent.stateOf(asked.taskId)).toBe('canceled');
  });
});

describe("iac-code's ordinary turn, which ends INPUT_REQUIRED as every one of its turns does", () => {
  const running = fakeIacCodeBehindGateway();

  it.each(['stream', 'send'] as const)('message/%s: an answer, shown completed, and tasks/get agrees', async (method) => {
    const client = new A2AClient(running.gateway.url);
    const read = await turns[method](client, '帮我写一个 VPC 的 ROS 模板', `iac-${method}-${randomUUID()}`);
    expect(read.text).not.toBe('');
    expect(read).toMatchObject({ state: 'completed', final: true });
    const task = [...running.fake.tasks.values()].find((known) => known.id === read.taskId);
    expect((task?.status as { state?: string } | undefined)?.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const got: any = await client.getTask({ id: read.taskId });
    expect(got.result.status.state).toBe('completed');
  });
});
