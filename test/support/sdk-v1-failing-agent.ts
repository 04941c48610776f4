/**
 * A REAL a2a-js 1.x agent whose turns fail after they said something (a working status with words, an artifact
 * chunk), in the two ways its SDK fails a streamed turn:
 * - `store-fails` turns: its task store (a database, here in memory) fails to save the turn's next event. The SDK's
 *   stream then ends with its JSON-RPC error (-32603, the store's message: a local socket path and a token) in
 *   place of the turn's end. The executor runs on, but nothing reads its events any more: the store keeps the task
 *   WORKING for good, and the agent takes the context's next message.
 * - `throws` turns: the executor throws. The SDK (1.3) ends the stream itself with a FAILED status-update
 *   "Agent execution error: <message>", and keeps the task so.
 * Any other turn completes with `FAILING_AGENT_DONE`. A prompt with Chinese in it is answered in Chinese.
 */
import { TaskState, type Task } from 'a2a-sdk-1';
import { AgentEvent, InMemoryTaskStore, type AgentExecutor, type ServerCallContext } from 'a2a-sdk-1/server';
import {
  agentMessage,
  promptOf,
  startSdkTestAgent,
  testAgentCard,
  textPart,
  turnEvents,
  type RunningTestAgent,
  type TestAgentCardSpec,
} from './sdk-v1-agent-kit.js';
import { serveSdkAgent } from './sdk-v1-server.js';

/** What the agent says before its turn fails, per language. */
export const FAILING_AGENT_SAYS = {
  en: { working: 'Checking the VPC quota.', plan: 'Plan: one VPC in cn-hangzhou.' },
  zh: { working: '正在检查专有网络配额。', plan: '计划：在杭州创建一个专有网络。' },
};
/** The store's failure, as the agent's SDK sends it (-32603): a local path and a token the gateway must not pass on. */
export const STORE_FAILURE = 'connect ECONNREFUSED /var/lib/agent/tasks.sock (token sk-live-0123456789abcdef)';
/** The same, as the gateway passes it on. */
export const STORE_FAILURE_SCRUBBED = 'connect ECONNREFUSED [path] (token [redacted])';
/** What the `throws` executor throws, and what its SDK makes of it (the path scrubbed as the gateway does). */
export const EXECUTOR_FAILURE = 'the quota service failed reading /srv/agent/quota.py';
export const EXECUTOR_FAILURE_SCRUBBED = 'Agent execution error: the quota service failed reading [path]';
/** The exception's message alone, scrubbed: what the facade tells after its own words that the agent failed. */
export const EXECUTOR_MESSAGE_SCRUBBED = 'the quota service failed reading [path]';
export const FAILING_AGENT_DONE = 'done';

/** The status message the store fails to save: the executor publishes it after the turn's words. */
const UNSAVED = 'Saving the plan.';

/** The SDK's in-memory store, failing to save a task whose status says UNSAVED (a database gone mid-turn). */
class FailingStore extends InMemoryTaskStore {
  /** The call each task was last saved in: the store keeps its tasks per caller. */
  readonly savedIn = new Map<string, ServerCallContext>();
  override async save(task: Task, context: ServerCallContext): Promise<void> {
    this.savedIn.set(task.id, context);
    const said = task.status?.message?.parts.map((part) => (part.content?.$case === 'text' ? part.content.value : '')).join('');
    if (said === UNSAVED) throw new Error(STORE_FAILURE);
    return super.save(task, context);
  }
}

const failing: AgentExecutor = {
  async execute(request, bus): Promise<void> {
    const turn = turnEvents(request);
    const prompt = promptOf(request.userMessage, ' ');
    const says = /\p{Script=Han}/u.test(prompt) ? FAILING_AGENT_SAYS.zh : FAILING_AGENT_SAYS.en;
    bus.publish(request.task ? AgentEvent.task(request.task) : turn.opening());
    if (prompt.startsWith('store-fails') || prompt.startsWith('throws')) {
      bus.publish(turn.status(TaskState.TASK_STATE_WORKING, says.working));
      bus.publish(turn.artifact('plan', [textPart(says.plan)], false, false));
      if (prompt.startsWith('throws')) throw new Error(EXECUTOR_FAILURE);
      bus.publish(turn.status(TaskState.TASK_STATE_WORKING, UNSAVED));
    }
    bus.publish(turn.status(TaskState.TASK_STATE_COMPLETED, FAILING_AGENT_DONE));
  },
  async cancelTask(): Promise<void> {},
};

export interface RunningFailingAgent extends RunningTestAgent {
  /** The agent finishes the task after all (its store back, the run done another way): kept COMPLETED, saying `said`. */
  finishLater(taskId: string, said: string): Promise<void>;
}

/** The agent serving its SDK's gRPC binding alone: its card, over HTTP, lists one GRPC interface. */
async function servedOverGrpc(spec: TestAgentCardSpec, store: FailingStore): Promise<RunningTestAgent> {
  const card = testAgentCard(spec);
  const { url, server, grpcServer } = await serveSdkAgent(
    (baseUrl, grpcAddress = '') => ({
      ...card(baseUrl),
      supportedInterfaces: [{ url: grpcAddress, protocolBinding: 'GRPC', protocolVersion: '1.0', tenant: '' }],
    }),
    failing,
    { jsonRpc: '/a2a/jsonrpc', rest: '/a2a/rest' },
    { taskStore: store, grpcOnly: true },
  );
  const close = (): Promise<void> =>
    new Promise<void>((resolve) => {
      grpcServer?.forceShutdown();
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return { url, close };
}

/**
 * The agent on a free port: JSON-RPC and HTTP+JSON, or HTTP+JSON alone (`restOnly`), where its SDK sends the store's
 * failure as a google.rpc.Status, or gRPC alone (`grpcOnly`), where it sends it as its status (UNKNOWN, the store's message).
 */
export async function startFailingAgent({
  restOnly = false,
  grpcOnly = false,
}: { restOnly?: boolean; grpcOnly?: boolean } = {}): Promise<RunningFailingAgent> {
  const store = new FailingStore();
  const spec: TestAgentCardSpec = {
    name: 'failing-agent',
    description: 'Fails its turns after it said something.',
    skill: { id: 'plan', name: 'Plan', description: 'store-fails: its store fails mid-turn; throws: its executor throws.' },
    ...(restOnly ? { interfaces: [{ binding: 'HTTP+JSON', version: '1.0' }] } : { rest: true }),
  };
  const running = grpcOnly ? await servedOverGrpc(spec, store) : await startSdkTestAgent(spec, failing, { taskStore: store, restOnly });
  const finishLater = async (taskId: string, said: string): Promise<void> => {
    const context = store.savedIn.get(taskId);
    const task = context && (await store.load(taskId, context));
    if (!context || !task) throw new Error(`the agent does not know task ${taskId}`);
    const message = agentMessage(said, taskId, task.contextId);
    await store.save({ ...task, status: { state: TaskState.TASK_STATE_COMPLETED, message, timestamp: new Date().toISOString() } }, context);
  };
  return { ...running, finishLater };
}
