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
import { setTimeout as sleep } from 'node:timers/promises';
import type { Message, TaskState, TaskStatusUpdateEvent } from 'a2a-sdk-025';
import { InMemoryTaskStore, type AgentExecutor, type ExecutionEventBus, type RequestContext } from 'a2a-sdk-025/server';
import { startSdkV025Server } from '../../support/sdk-v025-server.js';

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
  const store = new InMemoryTaskStore();
  const executor = new EmptyPartsExecutor(store);
  const { url, close } = await startSdkV025Server({
    card: {
      name: 'sdk-v025-empty-parts',
      description: 'An a2a-js 0.2.5 agent whose messages and artifacts may have no parts.',
      skills: [{ id: 'answer', name: 'Answer', description: 'Answers after empty progress.', tags: ['test'] }],
    },
    executor,
    store,
    onClose: () => executor.releaseAll(),
  });
  return { url, close };
}
