/**
 * Task state of the fake iac-code server: the stored tasks, running turns and their subscribers,
 * and the JSON-RPC methods that work on them (as the real server behaves, docs/iac-code.md). Push
 * configs: fake-iac-code-push.ts. The HTTP side (routing, SSE framing, faults) lives in fake-iac-code.ts.
 */
import { randomUUID } from 'node:crypto';
import { extendedCard, type CardShape } from './fake-iac-code-card.js';
import {
  applyEvent,
  canceledStatus,
  capturedTurn,
  failedTurn,
  terminalNumber,
  withHistoryLength,
  AWAIT_PERMISSION,
  type Json,
  type TurnIds,
  type TurnScript,
} from './fake-iac-code-data.js';
import { Evictions, type EvictOptions } from './fake-iac-code-eviction.js';
import { PipelineJournal } from './fake-iac-code-journal.js';
import { pipelineTurn } from './fake-iac-code-pipeline.js';
import { PushConfigs } from './fake-iac-code-push.js';
import { EventQueue, invalidParams, requireFields, RpcError, taskNotFound } from './fake-iac-code-rpc.js';

const ID_PATTERN = /^[A-Za-z0-9_.:-]{1,128}$/;

export interface TaskBookOptions {
  card: () => CardShape;
  pushNotifications: boolean;
  frameDelayMs: number;
  rawThinking: boolean;
  script?: TurnScript;
  deleteResult: 'null' | 'empty';
  permissionWait: 'open' | 'parked';
}

/** A running turn; `waiting` while it waits on a permission answer. */
interface Turn {
  canceled: boolean;
  subscribers: Set<EventQueue>;
  /** Streams that answered a prompt: they end with an empty `{}` result, as iac-code's do. */
  answerers: Set<EventQueue>;
  waiting?: { inputId: string; toolUseId: string; answer(decision: string): void };
  /** The turn waits for a SubscribeToTask (startTurn's `pauseAt`): this lets it go on. */
  resume?: () => void;
}

/**
 * How long a turn paused for a subscriber (startTurn's `pauseAt`) waits for one before it goes on anyway:
 * long enough for a gateway on a loaded host to come back (at 300 ms, a recovery on the busy CI host came
 * late and missed an update its test counted on); a subscription refused by a fault lets it go on too.
 */
const SUBSCRIBER_WAIT_MS = 5_000;

const PERMISSION_KEYS = ['schemaVersion', 'kind', 'requestTaskId', 'inputId', 'toolUseId', 'decision'];
/**
 * The metadata iac-code reads a turn's settings (`iac_code.cwd`, ...) from: the request's own whenever it
 * has any, else the message's (read in iac-code's source; no capture has request-level metadata).
 */
export function turnMetadata(params: Json): Json | undefined {
  const request = params.metadata as Json | undefined;
  return request && Object.keys(request).length > 0 ? request : ((params.message as Json | undefined)?.metadata as Json | undefined);
}

/** The language a turn asks iac-code to write in (`iac_code.preferredLanguage`, `zh-CN` read as `zh`), as iac-code reads it. */
function preferredLanguage(params: Json): string | undefined {
  const iacCode = turnMetadata(params)?.iac_code as Json | undefined;
  const asked = iacCode?.preferredLanguage ?? iacCode?.preferred_language;
  return typeof asked === 'string' ? asked.trim().toLowerCase().split(/[-_]/)[0] : undefined;
}

/** The folder a turn without `cwd` works in: the server process's own. */
const SERVER_FOLDER = '/srv/iac-code';
/** iac-code's failure for a turn that names another folder than its context's first (captured). */
export const WRONG_WORKSPACE = 'ValueError: A2A context belongs to a different workspace';

export class TaskBook {
  readonly tasks = new Map<string, Json>();
  private readonly sessions = new Map<string, string>();
  /** The folder each context was bound to by its first turn (`metadata.iac_code.cwd`, else the server's own). */
  private readonly workspaces = new Map<string, string>();
  private readonly turns = new Map<string, Turn>();
  /** How many pipeline turns each context has had (fake-iac-code-pipeline.ts). */
  private readonly pipelineStages = new Map<string, number>();
  /** Each context's last pipeline envelope number, and the journal of what its turns published. */
  private readonly pipelineNumbers = new Map<string, { last: number }>();
  readonly journal = new PipelineJournal();
  private readonly evictions = new Evictions();
  private readonly pushConfigs: PushConfigs;

  constructor(private readonly options: TaskBookOptions) {
    this.pushConfigs = new PushConfigs(options);
  }

  /** iac-code restarted: it knows no task and runs no turn (their streams are left as they are). */
  forgetAll(): void {
    this.tasks.clear();
    this.turns.clear();
  }

  /** iac-code evicted the idle context `contextId` (fake-iac-code-eviction.ts). */
  evict(contextId: string, options?: EvictOptions): void {
    this.evictions.evict(contextId, this.tasks.values(), options);
  }

  isActive(taskId: string): boolean {
    return this.turns.has(taskId);
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
      task.history = [...((task.history as Json[] | undefined) ?? []), { ...message, contextId: task.contextId, taskId: task.id }];
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
    const events = refusal
      ? failedTurn(ids, message, refusal).filter((event) => newTask || !('task' in event))
      : !this.inItsWorkspace(contextId, turnMetadata(params))
        ? failedTurn(ids, message, WRONG_WORKSPACE).filter((event) => newTask || !('task' in event))
        : hasText
          ? this.runsPipeline(params)
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

  /** The server's run mode, or the turn's own (`iac_code.run_mode` in the message's metadata, as iac-code reads it). */
  private runsPipeline(params: Json): boolean {
    const iacCode = ((params.message as Json).metadata as Json | undefined)?.iac_code as Json | undefined;
    const mode = typeof iacCode?.run_mode === 'string' ? iacCode.run_mode.trim().toLowerCase() : this.options.card().runMode;
    return mode === 'pipeline';
  }

  private pipelineTurn(ids: TurnIds, message: Json, newTask: boolean): Json[] {
    const stage = this.pipelineStages.get(ids.contextId) ?? 0;
    this.pipelineStages.set(ids.contextId, stage + 1);
    const numbering = this.pipelineNumbers.get(ids.contextId) ?? { last: 0 };
    this.pipelineNumbers.set(ids.contextId, numbering);
    const said = (message.parts as Json[]).map((part) => (typeof part.text === 'string' ? part.text : '')).join('');
    const artifact = this.options.script?.artifact;
    const template = artifact?.content ? { content: artifact.content, ...(artifact.dir ? { dir: artifact.dir } : {}) } : undefined;
    return pipelineTurn(
      ids,
      { ...message, contextId: ids.contextId, taskId: ids.taskId },
      { newTask, stage, said, numbering, ...(template ? { template } : {}) },
    );
  }

  /** iac-code binds a context to the folder of its first turn and fails a turn that names another. */
  private inItsWorkspace(contextId: string, metadata: Json | undefined): boolean {
    const iacCode = metadata?.iac_code as Json | undefined;
    const folder = typeof iacCode?.cwd === 'string' ? iacCode.cwd : SERVER_FOLDER;
    const bound = this.workspaces.get(contextId) ?? folder;
    this.workspaces.set(contextId, bound);
    return bound === folder;
  }

  /**
   * Run a turn: each event is folded into the task and sent to every subscriber. `pauseAt`: before that
   * event the turn waits for a SubscribeToTask (at most SUBSCRIBER_WAIT_MS), so that a test knows which
   * events a resubscribing client missed.
   */
  startTurn(task: Json, events: Json[], first?: EventQueue, pauseAt?: number): Promise<void> {
    const taskId = task.id as string;
    const turn: Turn = { canceled: false, subscribers: new Set<EventQueue>(first ? [first] : []), answerers: new Set() };
    this.turns.set(taskId, turn);
    return (async () => {
      let pending = events;
      for (let i = 0; i < pending.length; i++) {
        const event = pending[i] as Json;
        const marker = event[AWAIT_PERMISSION] as { inputId: string; toolUseId: string; deny: Json[] } | undefined;
        if (i === pauseAt) {
          await new Promise<void>((resume) => {
            turn.resume = resume;
            setTimeout(resume, SUBSCRIBER_WAIT_MS);
          });
          turn.resume = undefined;
        }
        // The prompt went out as the turn began to wait: an answer may come at once.
        if (this.options.frameDelayMs > 0 && !marker) await new Promise((resolve) => setTimeout(resolve, this.options.frameDelayMs));
        if (turn.canceled) return;
        if (marker) {
          // Captured: the original stream stays open while the prompt waits (its client may close it).
          // Parked: it ends here, and the rest of the turn goes to the answering stream.
          if (this.options.permissionWait === 'parked') {
            for (const queue of turn.subscribers) queue.end();
            turn.subscribers.clear();
          }
          const decision = await new Promise<string>((answer) => (turn.waiting = { inputId: marker.inputId, toolUseId: marker.toolUseId, answer }));
          turn.waiting = undefined;
          if (decision === 'deny') pending = [...pending.slice(0, i + 1), ...marker.deny];
          continue;
        }
        applyEvent(task, event);
        this.journal.note(task.contextId as string, event);
        for (const queue of turn.subscribers) queue.push(event);
      }
      this.finishTurn(taskId);
    })();
  }

  private finishTurn(taskId: string): void {
    const turn = this.turns.get(taskId);
    this.turns.delete(taskId);
    if (this.options.permissionWait === 'open') for (const queue of turn?.answerers ?? []) queue.push({});
    for (const queue of turn?.subscribers ?? []) queue.end();
  }

  /**
   * A message into a task whose turn waits on a permission prompt: validated as iac-code does, then
   * the answering stream joins the turn as a second subscriber. Undefined when the task is not waiting.
   */
  answerPermission(params: Json): EventQueue | undefined {
    const message = params.message as Json | undefined;
    const taskId = message?.taskId as string | undefined;
    const turn = taskId ? this.turns.get(taskId) : undefined;
    const waiting = turn?.waiting;
    if (!message || !turn || !waiting) return undefined;
    const parts = (message.parts as Json[] | undefined) ?? [];
    const data = parts[0]?.data as Json | undefined;
    if (parts.length !== 1 || !data || parts[0]?.mediaType !== 'application/json') {
      throw invalidParams('Permission responses must contain exactly one application/json DataPart.');
    }
    const keys = Object.keys(data).sort();
    if (keys.length !== PERMISSION_KEYS.length || !PERMISSION_KEYS.every((key) => keys.includes(key))) {
      throw invalidParams('Permission response payload fields do not match schemaVersion 1.');
    }
    if (data.decision !== 'allow_once' && data.decision !== 'deny') throw invalidParams('Permission decision must be allow_once or deny.');
    if (data.requestTaskId !== taskId) throw invalidParams('Permission response taskId does not match requestTaskId.');
    // iac-code's newer servers also check the message's contextId (read in its source; no capture has it).
    const task = this.tasks.get(taskId as string) as Json;
    if (typeof message.contextId !== 'string') throw invalidParams('Permission response correlation fields are required.');
    if (message.contextId !== task.contextId) throw invalidParams('input_response_mismatch: permission context does not match.');
    if (data.inputId !== waiting.inputId || data.toolUseId !== waiting.toolUseId) {
      throw invalidParams('input_response_mismatch: permission correlation does not match.');
    }
    const received = { kind: 'permission', inputId: waiting.inputId, decision: data.decision, toolUseId: waiting.toolUseId };
    const queue = new EventQueue();
    const taken: Json = {
      statusUpdate: {
        taskId,
        contextId: task.contextId,
        status: { state: 'TASK_STATE_WORKING' },
        metadata: { iac_code: { inputReceived: received } },
      },
    };
    // The SDK saves each event of the turn before it is sent: the task works again once the answer is taken.
    applyEvent(task, taken);
    queue.push(taken);
    turn.subscribers.add(queue);
    turn.answerers.add(queue);
    waiting.answer(data.decision);
    return queue;
  }

  /** Whether the message goes into a task whose turn waits on a permission answer. */
  private waitsOnPermission(params: Json): boolean {
    const taskId = (params.message as Json | undefined)?.taskId;
    return typeof taskId === 'string' && this.turns.get(taskId)?.waiting !== undefined;
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
    const turn = this.turns.get(taskId);
    const state = (task.status as Json).state;
    // A turn waiting on a permission answer is input-required: not active either.
    if (!turn || (state !== 'TASK_STATE_SUBMITTED' && state !== 'TASK_STATE_WORKING')) throw taskNotFound(`Task ${taskId} is not active`);
    const queue = new EventQueue(true);
    queue.push({ task: structuredClone(task) });
    turn.subscribers.add(queue);
    this.subscriberCame(taskId);
    return queue;
  }

  /** A SubscribeToTask came (taken or refused): a turn paused for one goes on. */
  subscriberCame(taskId: string): void {
    this.turns.get(taskId)?.resume?.();
  }

  /** Unary methods (everything but the two streaming ones). */
  async unary(method: string, params: Json): Promise<unknown> {
    switch (method) {
      case 'SendMessage': {
        if (this.waitsOnPermission(params)) return this.answerPermissionUnary(params);
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
        this.turns.get(task.id as string)?.subscribers.delete(watcher);
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
        return this.listTasks(params);
      case 'CancelTask':
        return this.cancel(params);
      case 'GetExtendedAgentCard':
        return extendedCard(this.options.card());
      default:
        return this.pushConfigs.answer(method, params, this.tasks);
    }
  }

  private checkHistoryLength(value: unknown): void {
    if (typeof value === 'number' && value < 0) throw invalidParams('history length must be non-negative');
  }

  private listTasks(params: Json): Json {
    const pageSize = (params.pageSize as number | undefined) ?? 50;
    if (pageSize < 1) throw invalidParams('minimum page size is 1');
    if (pageSize > 100) throw invalidParams('maximum page size is 100');
    const stamp = (task: Json): string => ((task.status as Json).timestamp as string | undefined) ?? '';
    const matching = [...this.tasks.values()]
      .filter((task) => params.contextId === undefined || task.contextId === params.contextId)
      .filter((task) => params.status === undefined || (task.status as Json).state === params.status)
      .sort((a, b) => stamp(b).localeCompare(stamp(a)) || String(b.id).localeCompare(String(a.id)));
    const tasks = matching.slice(0, pageSize).map((task) => {
      const copy = withHistoryLength(task, params.historyLength);
      if (params.includeArtifacts !== true) copy.artifacts = [];
      return copy;
    });
    return { tasks, pageSize, totalSize: matching.length, nextPageToken: '' };
  }

  private cancel(params: Json): Json {
    requireFields(params, ['id']);
    const taskId = params.id as string;
    const task = this.tasks.get(taskId);
    if (!task) throw taskNotFound(`Task ${taskId} not found`);
    const turn = this.turns.get(taskId);
    if (!turn) throw new RpcError(-32002, 'Task cannot be canceled', 'TASK_NOT_CANCELABLE');
    turn.canceled = true;
    const event = canceledStatus(task);
    applyEvent(task, event);
    for (const queue of turn.subscribers) queue.push(event);
    this.finishTurn(taskId);
    return structuredClone(task);
  }
}
