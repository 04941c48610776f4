/**
 * The fake iac-code's running turns (fake-iac-code-tasks.ts holds the tasks): each turn's events folded
 * into its task and sent to its subscribers, a pause at a permission prompt until it is answered
 * (fake-iac-code-permission-answer.ts), SubscribeToTask joining a turn, and a turn canceled.
 */
import { AWAIT_CONTEXT, busyRefusal } from './fake-iac-code-busy.js';
import { applyEvent, canceledStatus, AWAIT_PERMISSION, type Json } from './fake-iac-code-data.js';
import type { PipelineJournal } from './fake-iac-code-journal.js';
import { answerTaken, permissionDecision, type WaitingPrompt } from './fake-iac-code-permission-answer.js';
import { EventQueue, RpcError } from './fake-iac-code-rpc.js';

export interface RunningTurnsOptions {
  frameDelayMs: number;
  permissionWait: 'open' | 'parked';
  journal: PipelineJournal;
}

/** A running turn; `waiting` while it waits on a permission answer. */
interface Turn {
  canceled: boolean;
  subscribers: Set<EventQueue>;
  /** Streams that answered a prompt: they end with an empty `{}` result, as iac-code's do. */
  answerers: Set<EventQueue>;
  waiting?: WaitingPrompt;
  /** The turn waits for a SubscribeToTask (start's `pauseAt`): this lets it go on. */
  resume?: () => void;
}

/**
 * How long a turn paused for a subscriber (start's `pauseAt`) waits for one before it goes on anyway:
 * long enough for a gateway on a loaded host to come back (at 300 ms, a recovery on the busy CI host came
 * late and missed an update its test counted on); a subscription refused by a fault lets it go on too.
 */
const SUBSCRIBER_WAIT_MS = 5_000;

export class RunningTurns {
  private readonly turns = new Map<string, Turn>();

  constructor(private readonly options: RunningTurnsOptions) {}

  /** iac-code restarted: it runs no turn (their streams are left as they are). */
  forgetAll(): void {
    this.turns.clear();
  }

  isActive(taskId: string): boolean {
    return this.turns.has(taskId);
  }

  /** Whether the task's turn waits on a permission answer. */
  waitsOnPermission(taskId: string): boolean {
    return this.turns.get(taskId)?.waiting !== undefined;
  }

  /**
   * Run a turn: each event is folded into the task and sent to every subscriber. `pauseAt`: before that
   * event the turn waits for a SubscribeToTask (at most SUBSCRIBER_WAIT_MS), so that a test knows which
   * events a resubscribing client missed.
   */
  start(task: Json, events: Json[], first?: EventQueue, pauseAt?: number): Promise<void> {
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
        const busyWait = event[AWAIT_CONTEXT] as number | undefined;
        if (busyWait !== undefined) {
          await new Promise((resolve) => setTimeout(resolve, busyWait));
          continue;
        }
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
        this.options.journal.note(task.contextId as string, event);
        for (const queue of turn.subscribers) queue.push(event);
      }
      this.finish(taskId);
    })();
  }

  private finish(taskId: string): void {
    const turn = this.turns.get(taskId);
    this.turns.delete(taskId);
    if (this.options.permissionWait === 'open') for (const queue of turn?.answerers ?? []) queue.push({});
    for (const queue of turn?.subscribers ?? []) queue.end();
  }

  /**
   * A message into `task` whose turn waits on a permission prompt: validated as iac-code does, then the
   * answering stream joins the turn as a second subscriber. Undefined when the task is not waiting.
   */
  answerPermission(message: Json, task: Json): EventQueue | undefined {
    const turn = this.turns.get(task.id as string);
    const waiting = turn?.waiting;
    if (!turn || !waiting) return undefined;
    const decision = permissionDecision(message, task, waiting);
    const queue = new EventQueue();
    queue.push(answerTaken(task, waiting, decision));
    turn.subscribers.add(queue);
    turn.answerers.add(queue);
    waiting.answer(decision);
    return queue;
  }

  /**
   * A message into `task` while its turn runs (and waits on no prompt): as iac-code (docs/iac-code.md, "One turn per
   * context"), the message goes into the task's history, its turn waits `waitMs` for the context (iac-code: 1 s), then
   * fails the task with "Task is already working.": a FAILED status every stream of the task reads, the message's own
   * ending there, while the running turn goes on (its next events set the task working again). The message is refused
   * so even when the running turn ended meanwhile (iac-code would then run it): a test makes that turn outlast the wait.
   */
  refuseIntoRunning(task: Json, waitMs: number): EventQueue {
    const turn = this.turns.get(task.id as string) as Turn;
    const queue = new EventQueue(true);
    setTimeout(() => {
      const event = busyRefusal(task);
      applyEvent(task, event);
      for (const subscriber of turn.subscribers) subscriber.push(event);
      queue.push(event);
    }, waitMs);
    return queue;
  }

  /** SubscribeToTask into `task`: undefined when no turn of it is active (a turn waiting on a permission answer is input-required: not active either). */
  subscribe(task: Json): EventQueue | undefined {
    const taskId = task.id as string;
    const turn = this.turns.get(taskId);
    const state = (task.status as Json).state;
    if (!turn || (state !== 'TASK_STATE_SUBMITTED' && state !== 'TASK_STATE_WORKING')) return undefined;
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

  /** A blocking SendMessage's watcher stops watching the turn once it has its answer (the turn goes on). */
  unsubscribe(taskId: string, queue: EventQueue): void {
    this.turns.get(taskId)?.subscribers.delete(queue);
  }

  /** CancelTask: the turn stops and its subscribers get the canceled status, then end. */
  cancel(task: Json): void {
    const taskId = task.id as string;
    const turn = this.turns.get(taskId);
    if (!turn) throw new RpcError(-32002, 'Task cannot be canceled', 'TASK_NOT_CANCELABLE');
    turn.canceled = true;
    const event = canceledStatus(task);
    applyEvent(task, event);
    for (const queue of turn.subscribers) queue.push(event);
    this.finish(taskId);
  }
}
