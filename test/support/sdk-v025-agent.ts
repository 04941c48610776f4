/**
 * A REAL a2a-js 0.2.5 server (its A2AExpressApp, DefaultRequestHandler and InMemoryTaskStore) with a
 * deterministic executor: the upstream of the tests that put the gateway in front of a 0.2.5 agent.
 *
 * Layout: the card at `/.well-known/agent.json` (root) advertises `url: <base>/a2a/`, where the
 * JSON-RPC endpoint is, so a client has to follow the card. The extended card is served (bearer
 * checked when a token is set) at `<base>/a2a/agent/authenticatedExtendedCard`.
 *
 * A turn for the user text T on its context's N-th turn publishes, in order:
 *   Task (submitted, history [user message]; a continuation of an input-required task skips it) →
 *   status-update working → one artifact-update per chunk of `v025 echo (turn N): T`
 *   (artifact `<taskId>-reply`, appended) → status-update completed, final:true, carrying the reply.
 * `ask:` ends the turn input-required (final:true) instead, `unknown:` ends it in 0.2.5's terminal
 * `unknown` (final:true, carrying the reply); `message:` answers with one Message and no task; `answer:`
 * opens the task, works, then answers with a Message of the task (the SDK ends the stream there); `throw:`
 * opens the task, works, then throws (the SDK fails a task of its own making: `task?.id || uuidv4()`); `throw-at-once:`
 * throws before it opens its task (a model endpoint down), so that failed task is all there is of the turn (a stream
 * gets its failed status-update alone, named by that made-up id);
 * `slow:` adds SLOW_EXTRA_CHUNKS "." chunks, each after `slowChunkDelayMs`, and combines with an `ask:` or
 * `unknown:` after it. tasks/cancel of a running turn stops it and ends it canceled (final:true). Status timestamps carry no zone, like the
 * 0.2.5 spec's own example, so the 1.0 side must normalise them.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Message, Task, TaskState, TaskStatusUpdateEvent } from 'a2a-sdk-025';
import { InMemoryTaskStore, type AgentExecutor, type ExecutionEventBus, type RequestContext } from 'a2a-sdk-025/server';
import { SDK_V025_RPC_PATH, startSdkV025Server, type SdkV025CardFields } from './sdk-v025-server.js';

export const V025_AGENT_NAME = 'sdk-v025-echo';
export const V025_SLOW_PREFIX = 'slow:';
export const V025_ASK_PREFIX = 'ask:';
export const V025_UNKNOWN_PREFIX = 'unknown:';
export const V025_MESSAGE_PREFIX = 'message:';
export const V025_ANSWER_PREFIX = 'answer:';
export const V025_THROW_PREFIX = 'throw:';
export const V025_THROW_AT_ONCE_PREFIX = 'throw-at-once:';
/** What a `throw:` turn throws: a path and a token, as agents' exceptions hold them. */
export const V025_THROWN = 'failed to read /home/alice/.agent/creds.json with Bearer sk-live-0123456789abcdef';
export const V025_SLOW_EXTRA_CHUNKS = 10;
export const V025_QUESTION = 'What next?';
export const V025_RPC_PATH = SDK_V025_RPC_PATH;

export interface SdkV025AgentOptions {
  /** Pause before each chunk of a `slow:` turn (default 60 ms). */
  slowChunkDelayMs?: number;
  /** The card's protocolVersion; null leaves it out (the SDK's own AgentCard type has none). Default '0.2.5'. */
  protocolVersion?: string | null;
  /** Bearer token required on every route, card included. */
  token?: string;
  pushNotifications?: boolean;
  /** Listen on this port (an agent restarted where it was); default a free one. */
  port?: number;
  /**
   * A tasks/resubscribe's task load returns this long after it read the task: the SDK loads the task, then
   * listens, and what the turn says between is lost to that subscription (widened here past a chunk's pause).
   */
  resubscribeListensLateMs?: number;
}

export interface ReceivedRequest {
  path: string;
  rpcMethod?: string;
  headers: Record<string, string | string[] | undefined>;
}

export interface RunningSdkV025Agent {
  /** Base URL (card at `${url}/.well-known/agent.json`), no trailing slash. */
  url: string;
  /** Every request the agent received, oldest first. */
  received: ReceivedRequest[];
  /** Resolves once the task store holds `taskId` in `state`. */
  stored(taskId: string, state: TaskState): Promise<Task>;
  close(): Promise<void>;
}

export function v025Reply(text: string, turn: number): { chunks: string[]; full: string } {
  const echo = `v025 echo (turn ${turn}): ${text}`;
  const chunks = echo.match(/\S+\s*|\s+/g) ?? [echo];
  if (text.startsWith(V025_SLOW_PREFIX)) for (let i = 0; i < V025_SLOW_EXTRA_CHUNKS; i += 1) chunks.push('.');
  return { chunks, full: chunks.join('') };
}

/** A zone-less ISO time, as many 0.2.5 producers write it. */
const naiveNow = (): string => new Date().toISOString().slice(0, -1);

const agentMessage = (text: string, taskId: string | undefined, contextId: string): Message => ({
  kind: 'message',
  role: 'agent',
  messageId: randomUUID(),
  contextId,
  ...(taskId ? { taskId } : {}),
  parts: [{ kind: 'text', text }],
});

const promptOf = (message: Message): string => message.parts.map((part) => (part.kind === 'text' ? part.text : '')).join('\n');

/** The SDK's store, observable so a test (and the executor's cancel) can wait for a write instead of sleeping. */
class ObservableTaskStore extends InMemoryTaskStore {
  private readonly waiters = new Set<{ taskId: string; state: TaskState; resolve(task: Task): void }>();
  /** How many coming loads (a tasks/resubscribe's) return `lateMs` after they read the task. */
  lateLoads = 0;
  lateMs = 0;

  override async load(taskId: string): Promise<Task | undefined> {
    const task = await super.load(taskId);
    if (this.lateLoads > 0) {
      this.lateLoads -= 1;
      await sleep(this.lateMs);
    }
    return task;
  }

  override async save(task: Task): Promise<void> {
    await super.save(task);
    for (const waiter of this.waiters) {
      if (waiter.taskId === task.id && waiter.state === task.status.state) {
        this.waiters.delete(waiter);
        waiter.resolve(task);
      }
    }
  }

  async stored(taskId: string, state: TaskState): Promise<Task> {
    const current = await this.load(taskId);
    if (current?.status.state === state) return current;
    return new Promise<Task>((resolve) => this.waiters.add({ taskId, state, resolve }));
  }
}

/** The status-update that ends a turn, by the prompt's prefix. */
function endOfTurn(
  prompt: string,
  reply: string,
  status: (state: TaskState, final: boolean, text?: string) => TaskStatusUpdateEvent,
): TaskStatusUpdateEvent {
  // `slow:` only paces the chunks: what follows it decides how the turn ends (`slow: ask:` asks, slowly).
  const ending = prompt.startsWith(V025_SLOW_PREFIX) ? prompt.slice(V025_SLOW_PREFIX.length).trimStart() : prompt;
  if (ending.startsWith(V025_ASK_PREFIX)) return status('input-required', true, V025_QUESTION);
  if (ending.startsWith(V025_UNKNOWN_PREFIX)) return status('unknown', true, reply);
  return status('completed', true, reply);
}

class ScriptedExecutor implements AgentExecutor {
  private readonly turnsByContext = new Map<string, number>();
  private readonly running = new Map<string, { contextId: string; abort: AbortController }>();

  constructor(
    private readonly store: ObservableTaskStore,
    private readonly slowChunkDelayMs: number,
  ) {}

  execute = async (request: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    const { taskId, contextId, userMessage, task } = request;
    const prompt = promptOf(userMessage);
    const turnNumber = (this.turnsByContext.get(contextId) ?? 0) + 1;
    this.turnsByContext.set(contextId, turnNumber);
    const reply = v025Reply(prompt, turnNumber);
    if (prompt.startsWith(V025_MESSAGE_PREFIX)) {
      bus.publish(agentMessage(reply.full, undefined, contextId));
      return;
    }
    if (prompt.startsWith(V025_THROW_AT_ONCE_PREFIX)) throw new Error(V025_THROWN);
    const turn = { contextId, abort: new AbortController() };
    this.running.set(taskId, turn);
    const { signal } = turn.abort;
    const status = (state: TaskState, final: boolean, text?: string): TaskStatusUpdateEvent => ({
      kind: 'status-update',
      taskId,
      contextId,
      status: { state, timestamp: naiveNow(), ...(text === undefined ? {} : { message: agentMessage(text, taskId, contextId) }) },
      final,
    });
    try {
      if (!task) {
        bus.publish({ kind: 'task', id: taskId, contextId, status: { state: 'submitted', timestamp: naiveNow() }, history: [userMessage] });
      }
      bus.publish(status('working', false));
      if (prompt.startsWith(V025_THROW_PREFIX)) throw new Error(V025_THROWN);
      if (prompt.startsWith(V025_ANSWER_PREFIX)) {
        bus.publish(agentMessage(reply.full, taskId, contextId));
        return;
      }
      const slow = prompt.startsWith(V025_SLOW_PREFIX);
      for (const [index, chunk] of reply.chunks.entries()) {
        if (slow) await sleep(this.slowChunkDelayMs, undefined, { signal }).catch(() => undefined);
        if (signal.aborted) return;
        bus.publish({
          kind: 'artifact-update',
          taskId,
          contextId,
          artifact: { artifactId: `${taskId}-reply`, name: 'reply.txt', parts: [{ kind: 'text', text: chunk }] },
          append: index > 0,
          lastChunk: index === reply.chunks.length - 1,
        });
      }
      bus.publish(endOfTurn(prompt, reply.full, status));
    } finally {
      if (this.running.get(taskId) === turn) this.running.delete(taskId);
    }
  };

  cancelTask = async (taskId: string, bus: ExecutionEventBus): Promise<void> => {
    const turn = this.running.get(taskId);
    if (!turn) return;
    turn.abort.abort();
    this.running.delete(taskId);
    const saved = this.store.stored(taskId, 'canceled');
    bus.publish({
      kind: 'status-update',
      taskId,
      contextId: turn.contextId,
      status: { state: 'canceled', timestamp: naiveNow(), message: agentMessage('Canceled by request.', taskId, turn.contextId) },
      final: true,
    });
    // The SDK answers tasks/cancel with the stored task: let its result manager store the cancel first.
    await saved;
  };

  stopAll(): void {
    for (const turn of this.running.values()) turn.abort.abort();
    this.running.clear();
  }
}

function cardFields(options: SdkV025AgentOptions): SdkV025CardFields {
  return {
    name: V025_AGENT_NAME,
    description: 'A deterministic a2a-js 0.2.5 agent used as the upstream of the a2a-bridge tests.',
    capabilities: { streaming: true, pushNotifications: options.pushNotifications ?? false, stateTransitionHistory: false },
    skills: [{ id: 'echo', name: 'Echo', description: 'Echoes the text in chunks.', tags: ['test'] }],
    supportsAuthenticatedExtendedCard: true,
    ...(options.protocolVersion === undefined ? {} : { protocolVersion: options.protocolVersion }),
  };
}

/** Start the agent on 127.0.0.1 and a free port (or `options.port`). */
export async function startSdkV025Agent(options: SdkV025AgentOptions = {}): Promise<RunningSdkV025Agent> {
  const received: ReceivedRequest[] = [];
  const store = new ObservableTaskStore();
  const executor = new ScriptedExecutor(store, options.slowChunkDelayMs ?? 60);
  store.lateMs = options.resubscribeListensLateMs ?? 0;
  const { url, close } = await startSdkV025Server({
    card: cardFields(options),
    executor,
    store,
    port: options.port,
    onClose: () => executor.stopAll(),
    extend(app, card) {
      app.use((req, res, next) => {
        const body = req.body as { method?: unknown } | undefined;
        received.push({ path: req.path, rpcMethod: typeof body?.method === 'string' ? body.method : undefined, headers: { ...req.headers } });
        if (store.lateMs > 0 && body?.method === 'tasks/resubscribe') store.lateLoads += 1;
        if (options.token && req.headers.authorization !== `Bearer ${options.token}`) {
          res.status(401).json({ error: 'unauthorized' });
          return;
        }
        next();
      });
      app.get(`${V025_RPC_PATH}/agent/authenticatedExtendedCard`, (_req, res) => {
        res.json({
          ...card,
          description: `${card.description} (extended)`,
          skills: [...card.skills, { id: 'secret', name: 'Secret', description: 'Only for the authenticated.', tags: ['extended'] }],
        });
      });
    },
  });
  return { url, received, stored: (taskId, state) => store.stored(taskId, state), close };
}
