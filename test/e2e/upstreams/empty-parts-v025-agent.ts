/**
 * A REAL a2a-js 0.2.5 server (A2AExpressApp, DefaultRequestHandler, InMemoryTaskStore) whose executor
 * publishes what the 0.2.5 schema allows and 1.0 does not: messages and artifacts with `parts: []`.
 *
 * A turn for the user text T publishes, in order:
 *   Task (submitted, history [user message]) →
 *   status-update working whose message has `parts: []` (the SDK moves it into the task's history) →
 *   artifact-update `<taskId>-progress` with `parts: []` (the SDK keeps it as an artifact without parts) →
 *   artifact-update `<taskId>-reply` with the answer EMPTY_PARTS_ANSWER(T) →
 *   status-update completed, final, carrying the answer.
 * `hold:` stops after the empty artifact-update, working, until the task is canceled (`tasks/cancel`),
 * so SubscribeToTask and CancelTask meet the task while its store holds the empty objects.
 * `empty:` answers with one Message whose `parts` is `[]` and no task.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import express from 'express';
import type { AgentCard, Message, TaskState, TaskStatusUpdateEvent } from 'a2a-sdk-025';
import {
  A2AExpressApp,
  DefaultRequestHandler,
  InMemoryTaskStore,
  type AgentExecutor,
  type ExecutionEventBus,
  type RequestContext,
} from 'a2a-sdk-025/server';

export const HOLD_PREFIX = 'hold:';
export const EMPTY_MESSAGE_PREFIX = 'empty:';
export const emptyPartsAnswer = (prompt: string): string => `the answer to ${prompt}`;

const promptOf = (message: Message): string => message.parts.map((part) => (part.kind === 'text' ? part.text : '')).join('');

function agentMessage(parts: Message['parts'], contextId: string, taskId?: string): Message {
  return { kind: 'message', role: 'agent', messageId: randomUUID(), contextId, ...(taskId ? { taskId } : {}), parts };
}

class EmptyPartsExecutor implements AgentExecutor {
  private readonly held = new Map<string, { contextId: string; release(): void }>();

  constructor(private readonly store: InMemoryTaskStore) {}

  execute = async ({ taskId, contextId, userMessage }: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    const prompt = promptOf(userMessage);
    if (prompt.startsWith(EMPTY_MESSAGE_PREFIX)) {
      bus.publish(agentMessage([], contextId));
      return;
    }
    const status = (state: TaskState, final: boolean, message?: Message): TaskStatusUpdateEvent => ({
      kind: 'status-update',
      taskId,
      contextId,
      status: { state, timestamp: new Date().toISOString(), ...(message ? { message } : {}) },
      final,
    });
    bus.publish({ kind: 'task', id: taskId, contextId, status: { state: 'submitted' }, history: [userMessage] });
    bus.publish(status('working', false, agentMessage([], contextId, taskId)));
    bus.publish({ kind: 'artifact-update', taskId, contextId, artifact: { artifactId: `${taskId}-progress`, parts: [] } });
    if (prompt.startsWith(HOLD_PREFIX)) {
      await new Promise<void>((release) => this.held.set(taskId, { contextId, release }));
      return;
    }
    const answer = emptyPartsAnswer(prompt);
    bus.publish({ kind: 'artifact-update', taskId, contextId, artifact: { artifactId: `${taskId}-reply`, parts: [{ kind: 'text', text: answer }] } });
    bus.publish(status('completed', true, agentMessage([{ kind: 'text', text: answer }], contextId, taskId)));
  };

  cancelTask = async (taskId: string, bus: ExecutionEventBus): Promise<void> => {
    const turn = this.held.get(taskId);
    if (!turn) return;
    this.held.delete(taskId);
    const { contextId } = turn;
    // A cancel with an empty status message too: the reason a 0.2.5 agent did not give.
    bus.publish({
      kind: 'status-update',
      taskId,
      contextId,
      status: { state: 'canceled', message: agentMessage([], contextId, taskId) },
      final: true,
    });
    turn.release();
    // The SDK answers tasks/cancel with the stored task: let its result manager store the cancel first.
    while ((await this.store.load(taskId))?.status.state !== 'canceled') await sleep(5);
  };

  releaseAll(): void {
    for (const turn of this.held.values()) turn.release();
    this.held.clear();
  }
}

export interface EmptyPartsV025Agent {
  url: string;
  close(): Promise<void>;
}

export async function startEmptyPartsV025Agent(): Promise<EmptyPartsV025Agent> {
  const app = express();
  const server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const card: AgentCard = {
    name: 'sdk-v025-empty-parts',
    description: 'An a2a-js 0.2.5 agent whose messages and artifacts may have no parts.',
    url: `${url}/a2a/`,
    version: '0.2.5-test',
    capabilities: { streaming: true, pushNotifications: false },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'answer', name: 'Answer', description: 'Answers after empty progress.', tags: ['test'] }],
  };
  (card as AgentCard & { protocolVersion: string }).protocolVersion = '0.2.5';
  const store = new InMemoryTaskStore();
  const executor = new EmptyPartsExecutor(store);
  app.use(express.json());
  app.use((req, _res, next) => {
    // The SDK's express-4 body parser reads the body again unless it sees its own "already parsed" flag.
    (req as unknown as { _body: boolean })._body = true;
    next();
  });
  app.get('/.well-known/agent.json', (_req, res) => {
    res.json(card);
  });
  const handler = new DefaultRequestHandler(card, store, executor);
  new A2AExpressApp(handler).setupRoutes(app as unknown as Parameters<A2AExpressApp['setupRoutes']>[0], '/a2a');
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        executor.releaseAll();
        server.close(() => resolve());
        server.closeIdleConnections();
        setTimeout(() => server.closeAllConnections(), 50).unref();
      }),
  };
}
