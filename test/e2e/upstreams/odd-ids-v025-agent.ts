/**
 * A REAL a2a-js 0.2.5 server (A2AExpressApp, DefaultRequestHandler, InMemoryTaskStore) that names its tasks
 * and conversations itself, as 0.2.5 lets it, with ids the gateway's rule does not allow: the task of turn N
 * is `turn #N ü`, its context `session/N ü`.
 *
 * A first turn publishes the Task (submitted), then asks ODD_IDS_QUESTION (input-required, final). The answer
 * to it, sent with the task's ids, completes the task with `Done: <answer> (task <its taskId>, context <its
 * contextId>)`: the ids the agent received, as it received them. `long:` names the context with
 * LONG_CONTEXT_ID, too long to be carried to 1.0 callers encoded.
 */
import { randomUUID } from 'node:crypto';
import type { Message, TaskState } from 'a2a-sdk-025';
import type { AgentExecutor, ExecutionEventBus, RequestContext } from 'a2a-sdk-025/server';
import { startSdkV025Server } from '../../support/sdk-v025-server.js';

export const ODD_IDS_QUESTION = 'Which region: north or south?';
export const LONG_PREFIX = 'long:';
export const LONG_CONTEXT_ID = `conversation/${'x'.repeat(100)}`;
export const oddIdsOfTurn = (turn: number): { taskId: string; contextId: string } => ({ taskId: `turn #${turn} ü`, contextId: `session/${turn} ü` });

const promptOf = (message: Message): string => message.parts.map((part) => (part.kind === 'text' ? part.text : '')).join('');

const agentMessage = (text: string, taskId: string, contextId: string): Message => ({
  kind: 'message',
  role: 'agent',
  messageId: randomUUID(),
  taskId,
  contextId,
  parts: [{ kind: 'text', text }],
});

class OddIdsExecutor implements AgentExecutor {
  private turns = 0;

  execute = async ({ userMessage, task }: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    const prompt = promptOf(userMessage);
    const end = (taskId: string, contextId: string, state: TaskState, text: string): void =>
      bus.publish({
        kind: 'status-update',
        taskId,
        contextId,
        status: { state, timestamp: new Date().toISOString(), message: agentMessage(text, taskId, contextId) },
        final: true,
      });
    if (task) {
      const received = `(task ${userMessage.taskId ?? '-'}, context ${userMessage.contextId ?? '-'})`;
      end(task.id, task.contextId, 'completed', `Done: ${prompt} ${received}`);
      return;
    }
    this.turns += 1;
    const ids = oddIdsOfTurn(this.turns);
    const contextId = prompt.startsWith(LONG_PREFIX) ? LONG_CONTEXT_ID : ids.contextId;
    const history = [{ ...userMessage, taskId: ids.taskId, contextId }];
    bus.publish({ kind: 'task', id: ids.taskId, contextId, status: { state: 'submitted' }, history });
    end(ids.taskId, contextId, 'input-required', ODD_IDS_QUESTION);
  };

  cancelTask = async (): Promise<void> => undefined;
}

export interface OddIdsV025Agent {
  url: string;
  close(): Promise<void>;
}

export async function startOddIdsV025Agent(): Promise<OddIdsV025Agent> {
  const { url, close } = await startSdkV025Server({
    card: {
      name: 'sdk-v025-odd-ids',
      description: 'An a2a-js 0.2.5 agent that names its tasks and contexts itself.',
      skills: [{ id: 'ask', name: 'Ask', description: 'Asks, then answers.', tags: ['test'] }],
    },
    executor: new OddIdsExecutor(),
  });
  return { url, close };
}
