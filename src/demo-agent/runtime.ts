import { randomUUID } from 'node:crypto';
import { setImmediate as yieldToLoop, setTimeout as sleep } from 'node:timers/promises';
import {
  withFields,
  withHistoryLength,
  A2AError,
  endsTurn,
  isTerminalState,
  type CancelTaskRequest,
  type GetTaskRequest,
  type ListTasksRequest,
  type ListTasksResponse,
  type Message,
  type SendMessageRequest,
  type StreamResponse,
  type SubscribeToTaskRequest,
  type Task,
  type TaskState,
} from '../model/index.js';
import { EventChannel } from './channel.js';
import { ContextRegistry, type DemoContext } from './contexts.js';
import { planTurn, promptText, type DemoReply, type TokenUsage } from './reply.js';
import { statusEvent, type StatusOptions } from './status-event.js';
import { TEMPLATE_DONE, storeTemplate, templateFor, toolEvents } from './template-turn.js';
import { TaskStore, applyEvent, snapshot, taskStateNumber, type ActiveTurn, type StoredTask } from './task-store.js';

export interface DemoRuntimeOptions {
  /** Pause before each streamed chunk (default 5 ms; 0 only yields to the event loop). */
  chunkDelayMs?: number;
  /** Pause before each chunk of a `slow:` prompt (default 100 ms). */
  slowChunkDelayMs?: number;
  /** How long a message to a busy context waits before its task fails (iac-code: 1 s). */
  contextLockTimeoutMs?: number;
  /** Stored tasks cap (default 10 000); the oldest finished ones are evicted first. */
  maxTasks?: number;
  /** Contexts cap (default 10 000); the oldest idle ones are evicted first. */
  maxContexts?: number;
  /** Where `template:` turns store their file, as iac-code stores artifacts; absent: the file is described only. */
  artifactDir?: string;
}

export const BUSY_CONTEXT_MESSAGE = 'Task is already working.';
export const CANCELED_MESSAGE = 'Task canceled.';

/** Tasks, contexts and turn execution of the demo agent, in the 1.0 model. */
export class DemoRuntime {
  private readonly store: TaskStore;
  private readonly contexts: ContextRegistry;
  private readonly chunkDelayMs: number;
  private readonly slowChunkDelayMs: number;
  private readonly contextLockTimeoutMs: number;
  private readonly artifactDir: string | undefined;
  private closed = false;

  constructor(options: DemoRuntimeOptions = {}) {
    this.store = new TaskStore(options.maxTasks ?? 10_000);
    this.contexts = new ContextRegistry(options.maxContexts ?? 10_000);
    this.chunkDelayMs = options.chunkDelayMs ?? 5;
    this.slowChunkDelayMs = options.slowChunkDelayMs ?? 100;
    this.contextLockTimeoutMs = options.contextLockTimeoutMs ?? 1000;
    this.artifactDir = options.artifactDir;
  }

  get taskCount(): number {
    return this.store.size;
  }

  /**
   * Validate a message, create or resume its task and start the turn. Throws A2AError before
   * anything is streamed; the returned events end with the turn.
   */
  startTurn(request: SendMessageRequest): { initialTask: Task; events: EventChannel<StreamResponse> } {
    if (this.closed) throw A2AError.unsupportedOperation('The demo agent is shutting down');
    const { message } = request;
    const resumed = message.taskId === undefined ? undefined : this.resumableTask(message);
    const contextId = resumed?.task.contextId ?? message.contextId ?? randomUUID();
    const context = this.contexts.get(contextId);
    const stored = resumed ?? this.store.add({ id: randomUUID(), contextId, status: { state: 'TASK_STATE_SUBMITTED' } });
    const taskId = stored.task.id;
    const userMessage: Message = withFields(message, { contextId, taskId });

    stored.turn = { abort: new AbortController(), sessionId: context.sessionId, subscribers: new Set() };
    const events = this.attach(stored);
    const initialTask: Task = { id: taskId, contextId, status: { state: 'TASK_STATE_SUBMITTED' }, history: [userMessage] };
    if (resumed) {
      (stored.task.history ??= []).push(userMessage);
    } else {
      this.publish(stored, { task: snapshot(initialTask) });
    }
    // runTurn reports its own failures on the task; one in that report must not end the process.
    void this.runTurn(stored, context, promptText(userMessage)).catch(() => undefined);
    return { initialTask, events };
  }

  /** Blocking SendMessage: the task once the turn ends (or at once with returnImmediately). */
  async sendMessage(request: SendMessageRequest): Promise<{ task: Task }> {
    const historyLength = request.configuration?.historyLength;
    const { initialTask, events } = this.startTurn(request);
    const iterator = events[Symbol.asyncIterator]();
    if (request.configuration?.returnImmediately) {
      await iterator.return?.();
      return { task: withHistoryLength(initialTask, historyLength) };
    }
    while (!(await iterator.next()).done) {
      // Drain: the channel closes when the turn ends.
    }
    const stored = this.store.get(initialTask.id);
    if (!stored) throw A2AError.internal('The task was evicted before its turn ended');
    return { task: withHistoryLength(snapshot(stored.task), historyLength) };
  }

  getTask(request: GetTaskRequest): Task {
    const stored = this.store.get(request.id);
    if (!stored) throw A2AError.taskNotFound(request.id, 'Task not found');
    return withHistoryLength(snapshot(stored.task), request.historyLength);
  }

  listTasks(request: ListTasksRequest): ListTasksResponse {
    return this.store.list(request);
  }

  cancelTask(request: CancelTaskRequest): Task {
    const stored = this.store.get(request.id);
    if (!stored) throw A2AError.taskNotFound(request.id);
    if (!stored.turn) throw A2AError.taskNotCancelable(request.id);
    stored.turn.abort.abort();
    this.publishStatus(stored, 'TASK_STATE_CANCELED', { text: CANCELED_MESSAGE, timestamp: true });
    return snapshot(stored.task);
  }

  /** The current task, then the live events of its running turn. */
  subscribe(request: SubscribeToTaskRequest): EventChannel<StreamResponse> {
    const stored = this.store.get(request.id);
    if (!stored) throw A2AError.taskNotFound(request.id);
    if (!stored.turn) throw A2AError.taskNotActive(request.id);
    const channel = this.attach(stored);
    channel.push({ task: snapshot(stored.task) });
    return channel;
  }

  /** Stop every turn without further events and end every open stream. */
  close(): void {
    this.closed = true;
    for (const stored of this.store.active()) {
      stored.turn?.abort.abort();
      this.finishTurn(stored);
    }
  }

  private resumableTask(message: Message): StoredTask {
    const taskId = message.taskId as string;
    const stored = this.store.get(taskId);
    if (!stored) throw A2AError.taskNotFound(taskId);
    const { state } = stored.task.status;
    if (isTerminalState(state)) {
      throw A2AError.invalidParams(`Task ${taskId} is in terminal state: ${taskStateNumber(state)}`);
    }
    if (message.contextId !== undefined && message.contextId !== stored.task.contextId) {
      throw A2AError.invalidParams(`Task ${taskId} belongs to context ${stored.task.contextId}, not ${message.contextId}`);
    }
    // iac-code corrupts a task that receives a message mid-turn (surface §5.3); the demo refuses instead.
    if (stored.turn) throw A2AError.invalidParams(`Task ${taskId} is already working.`);
    return stored;
  }

  private async runTurn(stored: StoredTask, context: DemoContext, prompt: string): Promise<void> {
    const turn = stored.turn as ActiveTurn;
    const { signal } = turn.abort;
    const taskId = stored.task.id;
    try {
      const acquired = await this.contexts.acquire(context, taskId, this.contextLockTimeoutMs, signal);
      if (signal.aborted) return;
      if (!acquired) {
        this.publishStatus(stored, 'TASK_STATE_FAILED', { text: BUSY_CONTEXT_MESSAGE, timestamp: true });
        return;
      }
      context.turns += 1;
      const plan = planTurn(prompt, context.turns);
      this.publishStatus(stored, 'TASK_STATE_SUBMITTED', { timestamp: true });
      this.publishStatus(stored, 'TASK_STATE_WORKING', { timestamp: true });
      if (plan.kind === 'fail') {
        this.publishStatus(stored, 'TASK_STATE_FAILED', { text: plan.message, timestamp: true });
        return;
      }
      const delay = plan.slow ? this.slowChunkDelayMs : this.chunkDelayMs;
      if (!(await this.streamChunks(stored, plan.reply, delay, signal))) return;
      if (plan.template !== undefined) await this.finishTemplate(stored, plan.template, plan.usage, delay, signal);
      else this.finishReply(stored, plan.reply, plan.usage, context.turns);
    } catch {
      if (!signal.aborted && stored.turn === turn) {
        this.publishStatus(stored, 'TASK_STATE_FAILED', { text: 'Internal error', timestamp: true });
      }
    } finally {
      if (stored.turn === turn) this.finishTurn(stored);
      this.contexts.release(context, taskId);
    }
  }

  /** One WORKING frame per chunk; false once the turn was canceled. */
  private async streamChunks(stored: StoredTask, reply: DemoReply, delayMs: number, signal: AbortSignal): Promise<boolean> {
    for (const chunk of reply.chunks) {
      try {
        if (delayMs > 0) await sleep(delayMs, undefined, { signal });
        else await yieldToLoop();
      } catch {
        return false;
      }
      if (signal.aborted) return false;
      this.publishStatus(stored, 'TASK_STATE_WORKING', { text: chunk, messageId: `${stored.task.id}-message` });
    }
    return !signal.aborted;
  }

  private finishReply(stored: StoredTask, reply: DemoReply, usage: TokenUsage, turnNumber: number): void {
    const { id: taskId, contextId = '' } = stored.task;
    this.publishStatus(stored, 'TASK_STATE_WORKING', { extra: { usage: { ...usage } } });
    // A text part rather than iac-code's `iac-code-artifact://` URL (which nothing can fetch), so
    // a caller of the gateway sees the reply in the artifact too.
    const byteSize = Buffer.byteLength(reply.full, 'utf8');
    this.publish(stored, {
      artifactUpdate: {
        taskId,
        contextId,
        artifact: {
          artifactId: `${taskId}-reply-${turnNumber}`,
          name: 'reply.txt',
          parts: [{ text: reply.full, mediaType: 'text/plain' }],
          metadata: { mediaType: 'text/plain', byteSize },
        },
        lastChunk: true,
      },
    });
    this.publishStatus(stored, 'TASK_STATE_WORKING', {
      text: reply.full,
      timestamp: true,
      extra: { assistantFinal: { complete: true } },
    });
    this.publishStatus(stored, 'TASK_STATE_INPUT_REQUIRED', { timestamp: true });
  }

  /** A `template:` turn after its echo: the tool call storing main.tf, the text after it, iac-code's end of turn. */
  private async finishTemplate(stored: StoredTask, prompt: string, usage: TokenUsage, delayMs: number, signal: AbortSignal): Promise<void> {
    const ids = { taskId: stored.task.id, contextId: stored.task.contextId ?? '', sessionId: stored.turn?.sessionId };
    for (const event of toolEvents(ids, storeTemplate(templateFor(prompt), this.artifactDir))) this.publish(stored, event);
    if (!(await this.streamChunks(stored, { chunks: [TEMPLATE_DONE], full: TEMPLATE_DONE }, delayMs, signal))) return;
    this.publishStatus(stored, 'TASK_STATE_WORKING', { extra: { usage: { ...usage } } });
    // As iac-code: the final repeats only the text after the last tool call.
    this.publishStatus(stored, 'TASK_STATE_WORKING', { text: TEMPLATE_DONE, timestamp: true, extra: { assistantFinal: { complete: true } } });
    this.publishStatus(stored, 'TASK_STATE_INPUT_REQUIRED', { timestamp: true });
  }

  private publishStatus(stored: StoredTask, state: TaskState, options: StatusOptions): void {
    this.publish(stored, statusEvent(stored.task, stored.turn?.sessionId, state, options));
  }

  private publish(stored: StoredTask, event: StreamResponse): void {
    const turn = stored.turn;
    if (!turn) return;
    applyEvent(stored.task, event);
    for (const channel of turn.subscribers) channel.push(structuredClone(event));
    if ('statusUpdate' in event && endsTurn(event.statusUpdate.status.state)) this.finishTurn(stored);
  }

  private finishTurn(stored: StoredTask): void {
    const turn = stored.turn;
    if (!turn) return;
    stored.turn = undefined;
    for (const channel of turn.subscribers) channel.close();
    turn.subscribers.clear();
  }

  private attach(stored: StoredTask): EventChannel<StreamResponse> {
    const turn = stored.turn as ActiveTurn;
    const channel = new EventChannel<StreamResponse>((detached) => turn.subscribers.delete(detached));
    turn.subscribers.add(channel);
    return channel;
  }
}
