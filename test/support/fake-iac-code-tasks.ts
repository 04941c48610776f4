/**
 * Task state of the fake iac-code server: the stored tasks and the JSON-RPC methods that work on them
 * (as the real server behaves, docs/iac-code.md). Running turns, subscriptions and permission answers:
 * fake-iac-code-running-turns.ts; what a turn's metadata asks: fake-iac-code-turn-settings.ts; push
 * configs: fake-iac-code-push.ts. The HTTP side (routing, SSE framing, faults) lives in fake-iac-code.ts.
 */
import { randomUUID } from 'node:crypto';
import { busyTurn, runsAnotherTurn, takeIntoHistory } from './fake-iac-code-busy.js';
import { extendedCard, type CardShape } from './fake-iac-code-card.js';
import {
  applyEvent,
  capturedTurn,
  failedTurn,
  terminalNumber,
  withHistoryLength,
  type Json,
  type TurnIds,
  type TurnScript,
} from './fake-iac-code-data.js';
import { Evictions, type EvictOptions } from './fake-iac-code-eviction.js';
import { PipelineJournal } from './fake-iac-code-journal.js';
import { listedTasks } from './fake-iac-code-list.js';
import { pipelineTurn } from './fake-iac-code-pipeline.js';
import { sidecarCancel } from './fake-iac-code-pipeline-cancel.js';
import { PushConfigs } from './fake-iac-code-push.js';
import { EventQueue, invalidParams, requireFields, RpcError, taskNotFound } from './fake-iac-code-rpc.js';
import { RunningTurns } from './fake-iac-code-running-turns.js';
import { preferredLanguage, runsPipeline, turnMetadata, Workspaces, WRONG_WORKSPACE } from './fake-iac-code-turn-settings.js';

const ID_PATTERN = /^[A-Za-z0-9_.:-]{1,128}$/;

export interface TaskBookOptions {
  card: () => CardShape;
  pushNotifications: boolean;
  frameDelayMs: number;
  rawThinking: boolean;
  script?: TurnScript;
  deleteResult: 'null' | 'empty';
  permissionWait: 'open' | 'parked';
  /** Pipeline turns ask the user to confirm the deployment (fake-iac-code-pipeline.ts). */
  confirmsDeployment: boolean;
  /**
   * How long a message to a context whose turn runs waits for it before iac-code fails its task "Task is already
   * working." (iac-code: 1 s). Undefined: the fake keeps no such lock, and refuses a message into a running task at once.
   */
  busyWaitMs?: number;
}

export class TaskBook {
  readonly tasks = new Map<string, Json>();
  private readonly sessions = new Map<string, string>();
  private readonly workspaces = new Workspaces();
  /** How many pipeline turns each context has had (fake-iac-code-pipeline.ts). */
  private readonly pipelineStages = new Map<string, number>();
  /** Each context's last pipeline envelope number, and the journal of what its turns published. */
  private readonly pipelineNumbers = new Map<string, { last: number }>();
  /** The candidate each context's user picked, which a confirmed deployment deploys. */
  private readonly pipelineChoices = new Map<string, string>();
  readonly journal = new PipelineJournal();
  private readonly turns: RunningTurns;
  private readonly evictions = new Evictions();
  private readonly pushConfigs: PushConfigs;

  constructor(private readonly options: TaskBookOptions) {
    this.pushConfigs = new PushConfigs(options);
    this.turns = new RunningTurns({ frameDelayMs: options.frameDelayMs, permissionWait: options.permissionWait, journal: this.journal });
  }

  /** iac-code restarted: it knows no task and runs no turn (their streams are left as they are). */
  forgetAll(): void {
    this.tasks.clear();
    this.turns.forgetAll();
  }

  /** iac-code evicted the idle context `contextId` (fake-iac-code-eviction.ts). */
  evict(contextId: string, options?: EvictOptions): void {
    this.evictions.evict(contextId, this.tasks.values(), options);
  }

  isActive(taskId: string): boolean {
    return this.turns.isActive(taskId);
  }

  /** Validate a SendMessage request and make its task; the turn starts with startTurn(). */
  prepareTurn(params: Json): { task: Json; events: Json[] } {
    const message = params.message as Json | undefined;
    if (!message || typeof message !== 'object') return requireFields(params, ['message']) as never;
    requireFields(message, ['messageId', 'role', 'parts']);
    const parts = message.parts as Json[];
    if (!Array.isArray(parts) || parts.length === 0) throw invalidParams('Validation failed');
    if (parts.some((part) => 'kind' in part)) throw new RpcError(-32602, 'Invalid params');
    const hasText = parts.some((part) => typeof part.text === 'string' && part.text.trim() !== '');
    let task: Json;
    const existingId = message.taskId as string | undefined;
    if (existingId !== undefined) {
      const existing = this.tasks.get(existingId);
      if (!existing) throw taskNotFound(`Task ${existingId} not found`);
      const terminal = terminalNumber(existing);
      if (terminal !== undefined) throw invalidParams(`Task ${existingId} is in terminal state: ${terminal}`);
      if (this.isActive(existingId)) throw invalidParams(`Task ${existingId} is already completed.`);
      task = existing;
      takeIntoHistory(task, message);
    } else {
      const contextId = (message.contextId as string | undefined) ?? randomUUID();
      if (!ID_PATTERN.test(contextId)) throw new RpcError(-32603, 'Invalid A2A id');
      task = { id: randomUUID(), contextId, status: { state: 'TASK_STATE_SUBMITTED' }, metadata: {} };
      this.tasks.set(task.id as string, task);
    }
    const contextId = task.contextId as string;
    const sessionId = this.sessions.get(contextId) ?? randomUUID();
    this.sessions.set(contextId, sessionId);
    const ids = { taskId: task.id as string, contextId, sessionId };
    const newTask = existingId === undefined;
    const refusal = this.evictions.refusal(existingId, contextId);
    const { busyWaitMs } = this.options;
    if (busyWaitMs !== undefined && runsAnotherTurn(this.tasks.values(), task, (id) => this.holdsContext(id))) {
      return { task, events: busyTurn(task, message, newTask, busyWaitMs) };
    }
    const events = refusal
      ? failedTurn(ids, message, refusal).filter((event) => newTask || !('task' in event))
      : !this.workspaces.inItsWorkspace(contextId, turnMetadata(params))
        ? failedTurn(ids, message, WRONG_WORKSPACE).filter((event) => newTask || !('task' in event))
        : hasText
          ? runsPipeline(params, this.options.card().runMode)
            ? this.pipelineTurn(ids, message, newTask)
            : capturedTurn(ids, message, {
                newTask,
                rawThinking: this.options.rawThinking,
                script: this.options.script,
                language: preferredLanguage(params),
              })
          : failedTurn(ids, message).filter((event) => newTask || !('task' in event));
    return { task, events };
  }

  private pipelineTurn(ids: TurnIds, message: Json, newTask: boolean): Json[] {
    const stage = this.pipelineStages.get(ids.contextId) ?? 0;
    this.pipelineStages.set(ids.contextId, stage + 1);
    const numbering = this.pipelineNumbers.get(ids.contextId) ?? { last: 0 };
    this.pipelineNumbers.set(ids.contextId, numbering);
    const said = (message.parts as Json[]).map((part) => (typeof part.text === 'string' ? part.text : '')).join('');
    if (stage === 2) this.pipelineChoices.set(ids.contextId, said);
    const artifact = this.options.script?.artifact;
    const template = artifact?.content ? { content: artifact.content, ...(artifact.dir ? { dir: artifact.dir } : {}) } : undefined;
    const confirming = this.options.confirmsDeployment ? { confirmsDeployment: true, chosen: this.pipelineChoices.get(ids.contextId) ?? '' } : {};
    return pipelineTurn(
      ids,
      { ...message, contextId: ids.contextId, taskId: ids.taskId },
      { newTask, stage, said, numbering, ...confirming, ...(template ? { template } : {}) },
    );
  }

  /**
   * Run a turn (fake-iac-code-running-turns.ts). `pauseAt`: before that event the turn waits for a
   * SubscribeToTask, so that a test knows which events a resubscribing client missed.
   */
  startTurn(task: Json, events: Json[], first?: EventQueue, pauseAt?: number): Promise<void> {
    return this.turns.start(task, events, first, pauseAt);
  }

  /**
   * A message into a task whose turn waits on a permission prompt: validated as iac-code does, then
   * the answering stream joins the turn as a second subscriber. Undefined when the task is not waiting.
   */
  answerPermission(params: Json): EventQueue | undefined {
    const message = params.message as Json | undefined;
    const taskId = message?.taskId as string | undefined;
    const task = taskId ? this.tasks.get(taskId) : undefined;
    return message && task ? this.turns.answerPermission(message, task) : undefined;
  }

  /**
   * A message into a task whose turn runs (and waits on no prompt), validated as any: iac-code takes it into the task,
   * then refuses it once its wait for the context ends, the running turn going on (RunningTurns.refuseIntoRunning).
   * Undefined when the message starts a turn of its own (prepareTurn).
   */
  intoRunningTurn(params: Json): EventQueue | undefined {
    const message = params.message as Json | undefined;
    const taskId = message?.taskId;
    const waitMs = this.options.busyWaitMs;
    if (waitMs === undefined || typeof taskId !== 'string' || !this.holdsContext(taskId)) return undefined;
    requireFields(message as Json, ['messageId', 'role', 'parts']);
    const task = this.tasks.get(taskId) as Json;
    takeIntoHistory(task, message as Json);
    return this.turns.refuseIntoRunning(task, waitMs);
  }

  /** Whether the task runs a turn that holds its context: one waiting on a permission answer does not. */
  private holdsContext(taskId: string): boolean {
    return this.isActive(taskId) && !this.turns.waitsOnPermission(taskId);
  }

  /** Whether the message goes into a task whose turn waits on a permission answer. */
  private waitsOnPermission(params: Json): boolean {
    const taskId = (params.message as Json | undefined)?.taskId;
    return typeof taskId === 'string' && this.turns.waitsOnPermission(taskId);
  }

  /**
   * A non-streaming SendMessage into a waiting turn (docs/iac-code.md): the captured server queues it behind the
   * paused request, so it never returns and the prompt stays unanswered (`open`); newer servers (read in iac-code's
   * source) take a permission answer, run the turn on to its next pause or its end, and return the task then (`parked`).
   */
  private async answerPermissionUnary(params: Json): Promise<Json> {
    if (this.options.permissionWait === 'open') return new Promise<never>(() => undefined);
    const answering = this.answerPermission(params) as EventQueue;
    while ((await answering.next()) !== undefined);
    const configuration = (params.configuration as Json | undefined) ?? {};
    const message = params.message as Json;
    return { task: withHistoryLength(this.tasks.get(message.taskId as string) as Json, configuration.historyLength) };
  }

  /** SubscribeToTask: the current task first, then the rest of the running turn. */
  subscribe(params: Json): EventQueue {
    requireFields(params, ['id']);
    const taskId = params.id as string;
    const task = this.tasks.get(taskId);
    if (!task) throw taskNotFound(`Task ${taskId} not found`);
    const queue = this.turns.subscribe(task);
    if (!queue) throw taskNotFound(`Task ${taskId} is not active`);
    return queue;
  }

  /** A SubscribeToTask came (taken or refused): a turn paused for one goes on. */
  subscriberCame(taskId: string): void {
    this.turns.subscriberCame(taskId);
  }

  /** Unary methods (everything but the two streaming ones). */
  async unary(method: string, params: Json): Promise<unknown> {
    switch (method) {
      case 'SendMessage': {
        if (this.waitsOnPermission(params)) return this.answerPermissionUnary(params);
        const refused = this.intoRunningTurn(params);
        // A blocking send answers at the refusal, with the task as it stands then.
        if (refused) return this.answerAt(refused, params);
        const { task, events } = this.prepareTurn(params);
        const configuration = (params.configuration as Json | undefined) ?? {};
        this.checkHistoryLength(configuration.historyLength);
        if (configuration.returnImmediately === true) {
          void this.startTurn(task, events);
          return { task: withHistoryLength(task, configuration.historyLength) };
        }
        // The SDK answers a blocking send at the turn's first interrupted or terminal status, a permission
        // prompt included (captured); the turn goes on without it.
        const watcher = new EventQueue(true);
        void this.startTurn(task, events, watcher);
        while ((await watcher.next()) !== undefined);
        this.turns.unsubscribe(task.id as string, watcher);
        return { task: withHistoryLength(task, configuration.historyLength) };
      }
      case 'GetTask': {
        requireFields(params, ['id']);
        this.checkHistoryLength(params.historyLength);
        const task = this.tasks.get(params.id as string);
        if (!task) throw taskNotFound();
        return withHistoryLength(task, params.historyLength);
      }
      case 'ListTasks':
        return listedTasks(this.tasks.values(), params);
      case 'CancelTask':
        return this.cancel(params);
      case 'GetExtendedAgentCard':
        return extendedCard(this.options.card());
      default:
        return this.pushConfigs.answer(method, params, this.tasks);
    }
  }

  /** A blocking SendMessage's answer once `watched` ends: its task as it stands then. */
  private async answerAt(watched: EventQueue, params: Json): Promise<Json> {
    while ((await watched.next()) !== undefined);
    const task = this.tasks.get((params.message as Json).taskId as string) as Json;
    return { task: withHistoryLength(task, (params.configuration as Json | undefined)?.historyLength) };
  }

  private checkHistoryLength(value: unknown): void {
    if (typeof value === 'number' && value < 0) throw invalidParams('history length must be non-negative');
  }

  private cancel(params: Json): Json {
    requireFields(params, ['id']);
    const taskId = params.id as string;
    const task = this.tasks.get(taskId);
    if (!task) throw taskNotFound(`Task ${taskId} not found`);
    if (!this.isActive(taskId) && this.cancelWaitingPipeline(task)) return structuredClone(task);
    this.turns.cancel(task);
    return structuredClone(task);
  }

  /** A pipeline task waiting for its user's input is canceled through iac-code's sidecar (fake-iac-code-pipeline-cancel.ts). */
  private cancelWaitingPipeline(task: Json): boolean {
    const contextId = task.contextId as string;
    const numbering = this.pipelineNumbers.get(contextId) ?? { last: 0 };
    const event = sidecarCancel(task, numbering);
    if (!event) return false;
    applyEvent(task, event);
    this.journal.note(contextId, event);
    // The run is over: the context's next message starts the pipeline anew.
    this.pipelineStages.delete(contextId);
    return true;
  }
}
