/**
 * A REAL A2A 0.3 agent: the a2a-js 1.x server with its 0.3 compatibility on (`legacyCompat`), which serves a
 * caller without `A2A-Version` the 0.3 card and the 0.3 wire (JSON-RPC, or HTTP+JSON under `/v1/`), translated
 * by the SDK itself. Its card lists one binding, so the gateway (told `upstream.protocol: 0.3`) takes that one.
 *
 * A turn for the user text T: `answer:` publishes the Task (SUBMITTED, history [the user's message]), WORKING,
 * then a Message of the task carrying `answerText(T)`: the SDK answers a blocking call with that Message and
 * keeps the task WORKING in its store. `stamp:` publishes only a Message that names a task id (no task is
 * ever stored), as agents that stamp ids on plain answers do.
 */
import { TaskState } from 'a2a-sdk-1';
import { AgentEvent, InMemoryTaskStore, type AgentExecutor, type ExecutionEventBus, type RequestContext } from 'a2a-sdk-1/server';
import { openingTask } from '../../support/sdk-v1-server.js';
import { agentTextMessage, promptOf, serveLegacyCompatAgent } from './legacy-compat-agent.js';

export type V03Binding = 'JSONRPC' | 'HTTP+JSON';

export const answerText = (prompt: string): string => `answered: ${prompt}`;
export const STAMPED_TASK_ID = 'stamped-task';

const executor: AgentExecutor = {
  async execute(request: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const { taskId, contextId, userMessage } = request;
    const prompt = promptOf(userMessage);
    if (prompt.startsWith('stamp:')) {
      bus.publish(AgentEvent.message(agentTextMessage(answerText(prompt), STAMPED_TASK_ID, contextId)));
      return;
    }
    bus.publish(openingTask(taskId, contextId, userMessage));
    const working = { state: TaskState.TASK_STATE_WORKING, message: undefined, timestamp: new Date().toISOString() };
    bus.publish(AgentEvent.statusUpdate({ taskId, contextId, status: working, metadata: undefined }));
    bus.publish(AgentEvent.message(agentTextMessage(answerText(prompt), taskId, contextId)));
  },
  async cancelTask(): Promise<void> {},
};

export interface RunningV03AnswerAgent {
  url: string;
  /** The state the agent's own store last saved for a task (the SDK's, in 1.0 terms). */
  stored(taskId: string): TaskState | undefined;
  close(): Promise<void>;
}

export async function startV03AnswerAgent(binding: V03Binding): Promise<RunningV03AnswerAgent> {
  const saved = new Map<string, TaskState>();
  const store = new InMemoryTaskStore();
  const save = store.save.bind(store);
  store.save = async (task, context) => {
    if (task.status) saved.set(task.id, task.status.state);
    await save(task, context);
  };
  const agent = await serveLegacyCompatAgent({
    name: 'sdk-v03-answers-with-a-message',
    description: 'An a2a-js 1.x agent served as A2A 0.3 that answers a turn with a Message of its task.',
    interfaces: [{ binding, version: '0.3' }],
    executor,
    store,
  });
  return { ...agent, stored: (taskId) => saved.get(taskId) };
}
