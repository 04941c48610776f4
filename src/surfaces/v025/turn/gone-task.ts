import { randomUUID } from 'node:crypto';
import {
  A2AError,
  ErrorCode,
  refusesFinishedTask,
  withFields,
  type AgentCard,
  type SendMessageRequest,
  type StreamResponse,
} from '../../../model/index.js';
import { eventRefusal } from '../../../upstream/iac-code/expiry.js';
import { isIacCodeCard } from '../../../upstream/iac-code/preferred-language.js';
import type { CallContext } from '../../../core/agent-port.js';
import { createTurnVerdict, type DecidedTurnVerdict } from '../../../core/turn-verdict.js';
import { JudgedAttempt } from './judged-attempt.js';
import { withStartedAfreshTold, type StartedAfreshNotes } from './started-afresh.js';

/** The codes agents refuse a message to a finished task with: -32004 (a2a-js 1.x), -32600 (0.2.5), -32602 (iac-code). */
export const FINISHED_CODES: ReadonlySet<number> = new Set([ErrorCode.UnsupportedOperation, ErrorCode.InvalidRequest, ErrorCode.InvalidParams]);

/**
 * How often one turn goes again: the task iac-code forgot, then (an iac-code that also refuses the forgotten
 * context's id) a fresh context. Bounded so that an agent that refuses every id cannot loop a turn.
 */
const MAX_RETRIES = 2;

/**
 * The agent no longer has the task `taskId`: it does not know it (an agent that keeps its tasks in memory
 * and restarted: -32001), or says that task is finished (it ended unseen): a2a-js "Task X is in a terminal
 * state", iac-code "Task X is in terminal state: N". Only a refusal that names the task: any other
 * invalid request is the turn's own failure.
 */
export function isGoneTask(error: unknown, taskId: string): boolean {
  if (error instanceof A2AError && error.code === ErrorCode.TaskNotFound) return true;
  return refusesFinishedTask(error, taskId, FINISHED_CODES);
}

/** The caller's message as a new task of the same context. */
function inNewTask(asked: SendMessageRequest): SendMessageRequest {
  const { taskId: _gone, ...message } = asked.message;
  return withFields(asked, { message });
}

/** The caller's message as a new task of a new context: iac-code refuses the old context's id. */
function inFreshContext(asked: SendMessageRequest): SendMessageRequest {
  const { message } = inNewTask(asked);
  return withFields(asked, { message: withFields(message, { contextId: randomUUID() }) });
}

/**
 * What to send instead of `request` when the first event that is not an opening says iac-code refused the turn
 * before it did anything (upstream/iac-code/expiry.ts): the forgotten task only when the facade aimed the turn
 * at it; a context that takes no turn again (marked expired, bound to another workspace), for any turn.
 */
function retryFor(event: StreamResponse, request: SendMessageRequest, asked: SendMessageRequest): SendMessageRequest | undefined {
  const aimedAt = request.message.taskId;
  const refused = eventRefusal(event, aimedAt);
  if (refused === 'context' || refused === 'workspace') return inFreshContext(asked);
  return refused === 'task' && aimedAt !== undefined ? inNewTask(asked) : undefined;
}

/**
 * Whether a turn that opens a new task is watched for a refusal too, its opening held back for the event after it:
 * only iac-code refuses a context (expiry.ts), so another agent's opening is shown as it comes. No card yet (the
 * agent was down at start): taken for iac-code, the agent the facade is for (as reply-options.ts shownStates does).
 */
export const refusesContexts = (card: AgentCard | undefined): boolean => card === undefined || isIacCodeCard(card);

/**
 * Sends one attempt of the turn, with what its call context says of it. `turnVerdict`, given when the turn may yet go
 * again: the attempt is dropped (refused) or taken once its first events say so; what keeps the turn for its caller
 * waits for it. `pushConfigsOf`: the task the facade aimed the turn at, which the agent no longer had; the attempt's
 * task takes on the webhooks its caller set on that one.
 */
export type AttemptRun = (request: SendMessageRequest, attempt?: Pick<CallContext, 'turnVerdict' | 'pushConfigsOf'>) => AsyncIterable<StreamResponse>;

export interface GoneTaskOptions {
  /**
   * The caller's own message, when the facade sent the agent an answer made of it (to a permission prompt or a
   * choice the lost task asked); that is what goes again.
   */
  asked?: SendMessageRequest | undefined;
  /**
   * The turn goes again in the fresh context `contextId`: its conversation goes on there (moved-contexts.ts).
   * Awaited before it is sent, so the caller's next message, sent once it read the answer, finds the note.
   */
  movedTo?: ((contextId: string) => Promise<void>) | undefined;
  /**
   * The words that open the reply of a turn sent again in a fresh context (started-afresh.ts), in the turn's language:
   * the agent has none of the conversation before it. Not for a new task of the same context, which the agent keeps
   * (iac-code reads an evicted context back from its saved session: docs/iac-code.md, "Idle eviction").
   */
  startedAfresh?: string | undefined;
  /**
   * Those words are told (started-afresh.ts), in the fresh context's task: the turn noted before anything of it goes
   * out, so that what shows it again (tasks/get, tasks/resubscribe, a retry of its message), asked as soon as its first
   * frame names the task, shows them too; the event that tells them, as it goes out (the rest its user hung up on).
   */
  toldAfresh?: StartedAfreshNotes | undefined;
}

/** What every attempt of one turn shares: what goes again, where a move is noted, and whether the move was told. */
interface Turn extends Pick<GoneTaskOptions, 'movedTo' | 'startedAfresh' | 'toldAfresh'> {
  asked: SendMessageRequest;
  /** The words of startedAfresh open the reply already: a fresh context refused in turn moves it once more, told once. */
  afreshTold?: boolean;
  /**
   * The task the facade aimed the turn at, once the turn went again without it: the caller's webhooks set on it
   * (tasks/pushNotificationConfig/set) are pushed the task that now carries the turn, which the caller reads.
   */
  movedFrom?: string;
}

/**
 * A turn whose task the facade picked (the caller named none, as Bailian never does: the facade aimed it at the
 * conversation's waiting task, or it opens a new one) that the agent cannot take, because it no longer has what
 * the turn went to: the caller's own words go again, in a new task, and the caller reads the answer to them
 * rather than a failure it cannot act on (and has its next message lost the same way). Three cases:
 * - the follow-up the facade aimed at the conversation's waiting task is refused before the first event,
 *   because the agent no longer has that task (isGoneTask): a new task of the same context;
 * - iac-code evicted the conversation while it sat idle and fails the turn at once (docs/iac-code.md, "Idle
 *   eviction"): a task it forgot goes again as a new task of the same context, which iac-code takes up from
 *   its saved session; a context whose id it refuses, in a fresh context;
 * - iac-code fails the turn at once because its context is bound to another folder (begun before
 *   `upstream.workspace-root` was turned on, or after it was turned off: docs/iac-code.md, "Workspaces"), which
 *   no turn of that context can change: in a fresh context, which gets its own folder.
 * Nothing of the refused attempt is shown, nor pushed: it did nothing with the message. A turn that goes on in a fresh context
 * opens with the words that say the agent has none of the conversation there (`startedAfresh`), once.
 */
export function inNewTaskIfGone(request: SendMessageRequest, run: AttemptRun, options: GoneTaskOptions = {}): AsyncIterableIterator<StreamResponse> {
  const { movedTo, startedAfresh, toldAfresh } = options;
  return new GoneTaskAttempt(request, run, { asked: options.asked ?? request, movedTo, startedAfresh, toldAfresh }, MAX_RETRIES);
}

/** One attempt of the turn, sent again in a new task (or a fresh context) when the agent refuses it for what it lost. */
class GoneTaskAttempt extends JudgedAttempt<SendMessageRequest> {
  readonly #request: SendMessageRequest;
  readonly #run: AttemptRun;
  readonly #turn: Turn;
  readonly #retries: number;
  // An attempt that may be sent again is told dropped or taken (push registers an inline webhook only for the taken one).
  readonly #verdict: DecidedTurnVerdict | undefined;

  constructor(request: SendMessageRequest, run: AttemptRun, turn: Turn, retries: number) {
    super();
    this.#request = request;
    this.#run = run;
    this.#turn = turn;
    this.#retries = retries;
    this.#verdict = retries > 0 ? createTurnVerdict() : undefined;
  }

  protected open(): AsyncIterable<StreamResponse> {
    return this.#run(this.#request, { turnVerdict: this.#verdict, pushConfigsOf: this.#turn.movedFrom });
  }

  protected taken(): Promise<void> | undefined {
    return this.#verdict?.decide(true);
  }

  protected dropped(): Promise<void> | undefined {
    return this.#verdict?.decide(false);
  }

  /** Refused before the first event because the agent no longer has the task aimed at: a new task of the context. */
  protected insteadOfFailure(error: unknown): AsyncIterable<StreamResponse> | undefined {
    const aimedAt = this.#request.message.taskId;
    if (this.#retries === 0 || aimedAt === undefined || !isGoneTask(error, aimedAt)) return undefined;
    this.#turn.movedFrom = aimedAt;
    return new GoneTaskAttempt(inNewTask(this.#turn.asked), this.#run, this.#turn, this.#retries - 1);
  }

  protected refusal(first: IteratorResult<StreamResponse>): SendMessageRequest | undefined {
    return first.done || this.#retries === 0 ? undefined : retryFor(first.value, this.#request, this.#turn.asked);
  }

  protected async again(retry: SendMessageRequest): Promise<AsyncIterable<StreamResponse>> {
    const turn = this.#turn;
    const { contextId } = this.#request.message;
    turn.movedFrom ??= this.#request.message.taskId;
    const moved = retry.message.contextId;
    const fresh = moved !== contextId && moved !== undefined;
    if (fresh) await turn.movedTo?.(moved);
    const again = new GoneTaskAttempt(retry, this.#run, turn, this.#retries - 1);
    // The agent has none of the conversation in the fresh context: its user reads so first (started-afresh.ts).
    if (!fresh || turn.startedAfresh === undefined || turn.afreshTold) return again;
    turn.afreshTold = true;
    return withStartedAfreshTold(again, turn.startedAfresh, { messageId: retry.message.messageId, told: turn.toldAfresh });
  }
}
